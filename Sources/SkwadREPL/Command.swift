import SkwadModel
import SkwadReplica

/// A parsed REPL command. Parsing is pure and never throws anything but `CommandError`.
public enum Command: Equatable, Sendable {
    case help(String?)
    case whoami
    case locate(GeoPoint)
    case create(name: String, radius: Double?, locked: Bool, tags: [String], color: String)
    case packs(sort: PackSort, tag: String?)
    case join(String)
    case leave(String)
    case post(pack: String, title: String, body: String, tags: [String])
    case comment(target: String, text: String)
    case vote(target: String, value: Int32)
    case feed(pack: String?, sort: FeedSort, limit: Int, tag: String? = nil, within: Double? = nil)
    case show(String)
    case delete(String)
    case den
    case peers
    case stats
    case search(text: String, pack: String?, limit: Int)
    case inbox
    case map(radius: Double?, json: Bool)
    case quit
    /// hide, unhide, edit, log, report, reports, dismiss, block, unblock, mute, unmute, blocks (CommandModeration.swift).
    case moderation(ModerationCommand)
}

public struct CommandError: Error, Equatable, CustomStringConvertible, Sendable {
    public let description: String
    init(_ d: String) { description = d }
}

/// Usage and one-line help of every command, in the order `help` lists them.
public let commandHelp: [(name: String, usage: String, summary: String)] = [
    ("help", "help [COMMAND]", "list commands, or explain one"),
    ("whoami", "whoami", "your node id, location and data directory"),
    ("locate", "locate LAT,LON", "set your (self-reported) location, e.g. locate 40.4433,-79.9436"),
    ("create", "create NAME [--radius METERS] [--locked] [--tags a,b] [--color C]", "create a pack and become its Alpha"),
    ("packs", "packs [--sort distance|popular|new] [--tag T]", "packs around you, with distance and bearing"),
    ("join", "join PACK", "join a pack (by name or id prefix): its posts enter your feed"),
    ("leave", "leave PACK", "leave a pack"),
    ("post", "post PACK \"TITLE\" \"BODY\" [--tags a,b]", "post anonymously in a pack"),
    ("comment", "comment ID \"TEXT\"", "comment on a post, or reply to a comment"),
    ("up", "up ID", "upvote a post or comment"),
    ("down", "down ID", "downvote a post or comment"),
    ("unvote", "unvote ID", "withdraw your vote"),
    ("feed", "feed [PACK] [--sort new|top] [--limit N] [--tag T] [--within METRES]",
     "posts of your packs (or of one pack); --tag keeps posts with that tag; --within keeps posts of any pack that near you"),
    ("show", "show POST", "a post with its comments"),
    ("delete", "delete ID", "delete your post or comment, or a pack you are the Alpha of"),
    ("den", "den", "your packs, posts, comments and upvotes received"),
    ("peers", "peers", "neighbours this node gossips with"),
    ("stats", "stats", "datagrams, bytes, ops admitted and dropped, by reason"),
    ("search", "search TEXT [--pack PACK] [--limit N]", "find posts by words of their title, body, tags or comments, best first"),
    ("inbox", "inbox", "replies, votes and moderation on your posts and comments, and your packs expiring or gone, since you last looked"),
    ("map", "map [--radius METRES] [--json]", "the packs around you on a grid: you at the centre, north up"),
] + moderationHelp + [
    ("quit", "quit", "stop the node (also: exit, Ctrl-D)"),
]

extension Command {
    /// Parses one line. Returns nil for a blank line.
    public static func parse(_ line: String) throws -> Command? {
        let words: [Tokenizer.Token]
        do { words = try Tokenizer.tokens(line) } catch { throw CommandError("\(error)") }
        guard let verb = words.first?.text.lowercased() else { return nil }
        var args = Args(verb: verb, words: Array(words.dropFirst()))
        let cmd: Command
        switch verb {
        case "help", "?":
            cmd = .help(args.optionalPositional())
        case "whoami": cmd = .whoami
        case "locate":
            let text = try args.positional("LAT,LON")
            do { cmd = .locate(try GeoPoint(parsing: text)) } catch { throw CommandError("\(error)") }
        case "create":
            let name = try args.positional("NAME")
            let radius = try args.double("--radius")
            let locked = args.flag("--locked")
            cmd = .create(name: name, radius: radius, locked: locked, tags: try args.list("--tags"), color: try args.value("--color") ?? "")
        case "packs":
            let sort = try args.choice("--sort", PackSort.self) ?? .new
            cmd = .packs(sort: sort, tag: try args.value("--tag"))
        case "join": cmd = .join(try args.positional("PACK"))
        case "leave": cmd = .leave(try args.positional("PACK"))
        case "post":
            let pack = try args.positional("PACK"), title = try args.positional("\"TITLE\""), body = try args.positional("\"BODY\"")
            cmd = .post(pack: pack, title: title, body: body, tags: try args.list("--tags"))
        case "comment", "reply":
            cmd = .comment(target: try args.positional("ID"), text: try args.positional("\"TEXT\""))
        case "up": cmd = .vote(target: try args.positional("ID"), value: 1)
        case "down": cmd = .vote(target: try args.positional("ID"), value: -1)
        case "unvote": cmd = .vote(target: try args.positional("ID"), value: 0)
        case "feed":
            let sort = try args.choice("--sort", FeedSort.self) ?? .new
            let limit = try args.int("--limit") ?? 20
            guard limit >= 1 && limit <= 1000 else { throw CommandError("--limit must be 1...1000") }
            let tag = try args.value("--tag"), within = try args.double("--within")
            if let within, within <= 0 { throw CommandError("--within must be a distance in metres above 0") }
            cmd = .feed(pack: args.optionalPositional(), sort: sort, limit: limit, tag: tag, within: within)
        case "show": cmd = .show(try args.positional("POST"))
        case "delete", "rm": cmd = .delete(try args.positional("ID"))
        case "den": cmd = .den
        case "peers": cmd = .peers
        case "stats": cmd = .stats
        case "search", "find":
            let pack = try args.value("--pack")
            let limit = try args.int("--limit") ?? 20
            guard limit >= 1 && limit <= 200 else { throw CommandError("--limit must be 1...200") }
            var words: [String] = []
            while let w = args.optionalPositional() { words.append(w) }
            guard !words.isEmpty else { throw CommandError("missing TEXT; usage: \(args.usage)") }
            cmd = .search(text: words.joined(separator: " "), pack: pack, limit: limit)
        case "inbox": cmd = .inbox
        case "map":
            let radius = try args.double("--radius")
            if let radius, !(radius >= 10 && radius <= Double(Limits.maxRadiusMeters) * 20) {
                throw CommandError("--radius must be 10...\(Limits.maxRadiusMeters * 20) metres")
            }
            cmd = .map(radius: radius, json: args.flag("--json"))
        case "quit", "exit", "q": cmd = .quit
        case _ where ModerationCommand.verbs.contains(verb):
            guard let m = try ModerationCommand.parse(verb: verb, args: &args) else { throw CommandError("unknown command '\(verb)'") }
            cmd = .moderation(m)
        default:
            let known = commandHelp.map(\.name)
            // One distance per known name (not two per comparison): the first nearest wins.
            let guess = verb.count > 32 ? nil : known.map { ($0, editDistance($0, verb)) }.min { $0.1 < $1.1 }
            let hint = guess.map { $0.1 <= 2 ? " (did you mean '\($0.0)'?)" : "" } ?? ""
            throw CommandError("unknown command '\(clip(verb))'\(hint); type help")
        }
        try args.finish()
        return cmd
    }
}

/// Positional arguments and --flags of one command line.
struct Args {
    let verb: String
    var words: [Tokenizer.Token]

    var usage: String { commandHelp.first { $0.name == verb }?.usage ?? verb }

    func index(of option: String) -> Int? { words.firstIndex { $0.isOption && $0.text == option } }

    mutating func take(_ name: String) -> (present: Bool, value: String?)? {
        guard let i = index(of: name) else { return nil }
        words.remove(at: i)
        guard i < words.count, !words[i].isOption else { return (true, nil) }
        return (true, words.remove(at: i).text)
    }

    mutating func flag(_ name: String) -> Bool {
        guard let i = index(of: name) else { return false }
        words.remove(at: i); return true
    }

    mutating func value(_ name: String) throws -> String? {
        guard let t = take(name) else { return nil }
        guard let v = t.value else { throw CommandError("\(name) needs a value; usage: \(usage)") }
        return v
    }

    mutating func double(_ name: String) throws -> Double? {
        guard let v = try value(name) else { return nil }
        guard let d = Double(v), d.isFinite else { throw CommandError("\(name) expects a number, got '\(clip(v))'") }
        return d
    }

    mutating func int(_ name: String) throws -> Int? {
        guard let v = try value(name) else { return nil }
        guard let n = Int(v) else { throw CommandError("\(name) expects a whole number, got '\(clip(v))'") }
        return n
    }

    mutating func list(_ name: String) throws -> [String] {
        guard let v = try value(name) else { return [] }
        return v.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    mutating func choice<T: RawRepresentable & CaseIterable>(_ name: String, _: T.Type) throws -> T? where T.RawValue == String {
        guard let v = try value(name) else { return nil }
        guard let c = T(rawValue: v.lowercased()) else {
            throw CommandError("\(name) must be one of \(T.allCases.map(\.rawValue).joined(separator: "|")), got '\(clip(v))'")
        }
        return c
    }

    mutating func positional(_ what: String) throws -> String {
        guard let s = optionalPositional() else { throw CommandError("missing \(what); usage: \(usage)") }
        return s
    }

    mutating func optionalPositional() -> String? {
        guard let i = words.firstIndex(where: { !$0.isOption }) else { return nil }
        return words.remove(at: i).text
    }

    func finish() throws {
        if let extra = words.first {
            throw CommandError(extra.isOption ? "unknown option \(clip(extra.text)); usage: \(usage)"
                                              : "unexpected '\(clip(extra.text))' (quote text with spaces); usage: \(usage)")
        }
    }
}

func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    var row = Array(0...b.count)
    for i in 1...max(1, a.count) where !a.isEmpty {
        var prev = row[0]; row[0] = i
        for j in 1...max(1, b.count) where !b.isEmpty {
            let cur = row[j]
            row[j] = min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] == b[j - 1] ? 0 : 1))
            prev = cur
        }
    }
    return row[b.count]
}
