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
    case post(pack: String, title: String, body: String, tags: [String], here: Bool = false, image: String? = nil)
    case comment(target: String, text: String)
    case vote(target: String, value: Int32)
    /// `images`: a small thumbnail under each post with a picture, on a terminal (`--no-images`: none).
    case feed(pack: String?, sort: FeedSort, limit: Int, tag: String? = nil, within: Double? = nil, images: Bool = true)
    /// `images`: a thumbnail of the post's picture on a terminal (`--no-images`: none).
    case show(String, images: Bool = true)
    case delete(String)
    case den
    case peers
    case stats
    case search(text: String, pack: String?, limit: Int)
    case inbox
    case map(radius: Double?, json: Bool)
    /// `trust KEY` (true), `untrust KEY` (false): this node's admin keys.
    case trust(String, Bool)
    case trusted
    case quit
    /// hide, unhide, edit, log, report, reports, dismiss, block, unblock, mute, unmute, blocks (CommandModeration.swift).
    case moderation(ModerationCommand)
    /// place, places, review, swipe, favs, compare (CommandPlaces.swift).
    case places(PlaceCommand)
    /// dm, chat, verify (CommandConversations.swift).
    case conversation(ConversationCommand)
    /// create --private, invite, join CODE, remove (CommandPrivatePacks.swift).
    case privatePack(PrivatePackCommand)
    /// ask, pick (CommandCaptions.swift).
    case caption(CaptionCommand)
    /// invite, connect (CommandContacts.swift).
    case contact(ContactCommand)
}

public struct CommandError: Error, Equatable, CustomStringConvertible, Sendable {
    public let description: String
    init(_ d: String) { description = d }
}

/// Usage and one-line help of every command, in the order `help` lists them.
public let commandHelp: [(name: String, usage: String, summary: String)] =
    [
        ("help", "help [COMMAND]", "list commands, or explain one"),
        ("whoami", "whoami", "your node id, location and data directory"),
        ("locate", "locate LAT,LON", "set your (self-reported) location, e.g. locate 40.4433,-79.9436"),
        (
            "create", "create NAME [--radius METERS] [--locked] [--tags a,b] [--color C] [--private]",
            "create a pack and become its Alpha; it lives 24 h, up to 48 h as more people take part (admin packs are permanent); "
                + "--private: invite-only, everything in it sealed with a pack key (invite PACK)"
        ),
        ("packs", "packs [--sort distance|popular|new] [--tag T]", "packs around you, with distance and bearing"),
        (
            "join", "join PACK|CODE",
            "join a pack (by name or id prefix), or an invite-only pack with a join code: its posts enter your feed"
        ),
        ("leave", "leave PACK", "leave a pack"),
        (
            "post", "post PACK \"TITLE\" \"BODY\" [--tags a,b] [--named] [--here] [--image FILE]",
            "post anonymously in a pack; title up to \(Limits.maxTitle) characters, body up to \(Limits.maxBody) "
                + "(letters beyond plain ASCII count 2, emoji 4); --named: under your display name there"
        ),
        ("comment", "comment ID \"TEXT\"", "comment on a post, or reply to a comment; up to \(Limits.maxBody) characters"),
        ("up", "up ID", "upvote a post or comment"),
        ("down", "down ID", "downvote a post or comment"),
        ("unvote", "unvote ID", "withdraw your vote"),
        (
            "feed",
            "feed [PACK] [--sort new|top] [--limit N] [--tag T] [--within METRES] [--no-images] | feed --following",
            "posts of your packs (or of one pack); --tag keeps posts with that tag; --within keeps posts of any pack that near you; "
                + "on a terminal, a small thumbnail of each picture (--no-images: none); --following: posts of the pseudonyms you follow"
        ),
        ("show", "show POST [--no-images]", "a post with its comments; on a terminal, a thumbnail of its picture (--no-images: none)"),
        ("delete", "delete ID", "delete your post or comment, or a pack you are the Alpha of"),
        ("den", "den", "your packs, posts, comments and upvotes received"),
        ("peers", "peers", "neighbours this node gossips with"),
        ("stats", "stats", "datagrams, bytes, ops admitted and dropped, by reason"),
        ("search", "search TEXT [--pack PACK] [--limit N]", "find posts by words of their title, body, tags or comments, best first"),
        (
            "inbox", "inbox",
            "replies, votes and moderation on your posts and comments, and your packs expiring or gone, since you last looked"
        ),
        ("map", "map [--radius METRES] [--json]", "the packs around you on a grid: you at the centre, north up"),
        ("trust", "trust ADMINKEY", "trust an admin key (your campus's): its packs are permanent here and it may moderate any pack"),
        ("untrust", "untrust ADMINKEY", "stop trusting an admin key"),
        ("trusted", "trusted", "the admin keys this node trusts, and the config file they are kept in")
    ] + moderationHelp + placeHelp + conversationHelp + privatePackHelp + contactHelp + captionHelp + [
        ("quit", "quit", "stop the node (also: exit, Ctrl-D)")
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
        case "create" where args.index(of: "--private") != nil:
            _ = args.flag("--private")
            let name = try args.positional("NAME")
            let radius = try args.double("--radius")
            if args.flag("--locked") { throw CommandError("an invite-only pack cannot be --locked (its ops claim no location)") }
            cmd = .privatePack(.create(name: name, radius: radius, tags: try args.list("--tags"), color: try args.value("--color") ?? ""))
        case "create":
            let name = try args.positional("NAME")
            let radius = try args.double("--radius")
            let locked = args.flag("--locked")
            cmd = .create(name: name, radius: radius, locked: locked, tags: try args.list("--tags"), color: try args.value("--color") ?? "")
        case "packs":
            let sort = try args.choice("--sort", PackSort.self) ?? .new
            cmd = .packs(sort: sort, tag: try args.value("--tag"))
        case "join":
            let ref = try args.positional("PACK")
            if JoinCode.looks(ref) {
                // Anything written like a join code is one: a malformed code is refused here, at
                // once, never looked up as a pack name.
                do { _ = try JoinCode(parsing: ref) } catch { throw CommandError("\(error)") }
                cmd = .privatePack(.join(code: ref))
            } else {
                cmd = .join(ref)
            }
        case "leave": cmd = .leave(try args.positional("PACK"))
        case "post":
            let pack = try args.positional("PACK"), title = try args.positional("\"TITLE\""), body = try args.positional("\"BODY\"")
            let named = args.flag("--named"), here = args.flag("--here")
            let tags = try args.list("--tags"), image = try args.value("--image")
            if named && here {
                throw CommandError("--named and --here do not go together (a display name with your place would say who you are)")
            }
            if named && image != nil { throw CommandError("--named does not take --image yet: post the picture without a display name") }
            cmd =
                named
                ? .conversation(.namedPost(pack: pack, title: title, body: body, tags: tags))
                : .post(pack: pack, title: title, body: body, tags: tags, here: here, image: image)
        case "comment", "reply":
            cmd = .comment(target: try args.positional("ID"), text: try args.positional("\"TEXT\""))
        case "up": cmd = .vote(target: try args.positional("ID"), value: 1)
        case "down": cmd = .vote(target: try args.positional("ID"), value: -1)
        case "unvote": cmd = .vote(target: try args.positional("ID"), value: 0)
        case "feed" where args.index(of: "--following") != nil:
            _ = args.flag("--following")
            let limit = try args.int("--limit") ?? 20
            guard limit >= 1 && limit <= 1000 else { throw CommandError("--limit must be 1...1000") }
            cmd = .conversation(.followingFeed(limit: limit))
        case "feed":
            let sort = try args.choice("--sort", FeedSort.self) ?? .new
            let limit = try args.int("--limit") ?? 20
            guard limit >= 1 && limit <= 1000 else { throw CommandError("--limit must be 1...1000") }
            let tag = try args.value("--tag"), within = try args.double("--within")
            if let within, within <= 0 { throw CommandError("--within must be a distance in metres above 0") }
            let images = !args.flag("--no-images")
            cmd = .feed(pack: args.optionalPositional(), sort: sort, limit: limit, tag: tag, within: within, images: images)
        case "show":
            let ref = try args.positional("POST")
            cmd = .show(ref, images: !args.flag("--no-images"))
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
        case "trust": cmd = .trust(try args.positional("ADMINKEY"), true)
        case "untrust": cmd = .trust(try args.positional("ADMINKEY"), false)
        case "trusted": cmd = .trusted
        case "quit", "exit", "q": cmd = .quit
        case _ where ModerationCommand.verbs.contains(verb):
            guard let m = try ModerationCommand.parse(verb: verb, args: &args) else { throw CommandError("unknown command '\(verb)'") }
            cmd = .moderation(m)
        case _ where PlaceCommand.verbs.contains(verb):
            guard let m = try PlaceCommand.parse(verb: verb, args: &args) else { throw CommandError("unknown command '\(verb)'") }
            cmd = .places(m)
        case _ where ContactCommand.verbs.contains(verb):
            guard let c = try ContactCommand.parse(verb: verb, args: &args) else { throw CommandError("unknown command '\(verb)'") }
            cmd = .contact(c)
        case _ where PrivatePackCommand.verbs.contains(verb):
            guard let c = try PrivatePackCommand.parse(verb: verb, args: &args) else { throw CommandError("unknown command '\(verb)'") }
            cmd = .privatePack(c)
        case _ where CaptionCommand.verbs.contains(verb):
            guard let c = try CaptionCommand.parse(verb: verb, args: &args) else { throw CommandError("unknown command '\(verb)'") }
            cmd = .caption(c)
        case _ where ConversationCommand.verbs.contains(verb):
            guard let c = try ConversationCommand.parse(verb: verb, args: &args) else { throw CommandError("unknown command '\(verb)'") }
            cmd = .conversation(c)
        default:
            let hint = nearestCommand(to: verb).map { " (did you mean '\($0)'?)" } ?? ""
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
            throw CommandError(
                extra.isOption
                    ? "unknown option \(clip(extra.text)); usage: \(usage)"
                    : "unexpected '\(clip(extra.text))' (quote text with spaces); usage: \(usage)")
        }
    }
}

/// The known command nearest to an unknown verb when it is at most 2 edits away (the first
/// nearest in `commandHelp` order), else nil: the answer of measuring the edit distance to every
/// name, for less. Only names whose length is within 2 of the verb's are measured, on integer
/// codes, and a measure stops once every cell of a row is above what could still win (row
/// minima never decrease). The full measure of ~30 names per unknown verb was a fifth of the
/// REPL fuzzer's time (perf).
func nearestCommand(to verb: String) -> String? {
    guard verb.count <= 32 else { return nil }
    // One code per Character: its byte when it is a single ASCII byte, else -1, which no byte of
    // a (pure ASCII) command name equals, just as no such Character equals an ASCII one.
    let codes = verb.map { c in c.utf8.count == 1 ? Int(c.utf8.first!) : -1 }
    var best: (name: String, distance: Int)?
    for (name, nameCodes) in commandNameCodes where abs(nameCodes.count - codes.count) <= 2 {
        let d = boundedEditDistance(nameCodes, codes, limit: min(2, (best?.distance ?? 3) - 1))
        if let d { best = (name, d) }
    }
    return best?.name
}

/// Every command name as ASCII byte codes, for `nearestCommand`.
private let commandNameCodes: [(name: String, codes: [Int])] = commandHelp.map { ($0.name, $0.name.utf8.map(Int.init)) }

/// The edit distance of `a` and `b` when it is at most `limit`, else nil. Plain `while` loops:
/// the fuzz build is unoptimized, where ranges go through unspecialized generics.
private func boundedEditDistance(_ a: [Int], _ b: [Int], limit: Int) -> Int? {
    guard limit >= 0, abs(a.count - b.count) <= limit else { return nil }
    var row = [Int](repeating: 0, count: b.count + 1)
    var j = 0
    while j <= b.count { row[j] = j; j += 1 }
    var i = 0
    while i < a.count {
        var prev = row[0]
        row[0] = i + 1
        var rowMin = row[0]
        j = 0
        while j < b.count {
            let cur = row[j + 1]
            row[j + 1] = Swift.min(cur + 1, row[j] + 1, prev + (a[i] == b[j] ? 0 : 1))
            prev = cur
            rowMin = Swift.min(rowMin, row[j + 1])
            j += 1
        }
        if rowMin > limit { return nil }
        i += 1
    }
    return row[b.count] <= limit ? row[b.count] : nil
}
