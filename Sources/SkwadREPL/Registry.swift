import Foundation

/// A REPL verb: its grammar, help and completion (`spec`), its arguments (the type's
/// `Decodable` properties, keyed as the spec's parameters), the checks a decoder cannot make,
/// and its run against the node, whose reply renders as text or JSON (`REPLReply`).
public protocol REPLCommand: Decodable, Sendable {
    static var spec: CommandSpec { get }
    /// Refuses what the types allow but the verb does not (ranges, combinations); run for a
    /// typed line and a JSON object alike.
    func validate() throws
    func run(_ x: Executor) async throws -> any REPLReply
}

extension REPLCommand {
    public func validate() throws {}
}

/// Every command, the one list: help (in this order), completion, the REPL's parsing and
/// named calls with JSON arguments read it. A new verb is a type in its family's file and a
/// line here.
public enum Registry {
    public static let all: [any REPLCommand.Type] = [
        HelpCommand.self, WhoamiCommand.self, LocateCommand.self, CreateCommand.self, CreatePrivateCommand.self,
        PacksCommand.self, JoinCommand.self, LeaveCommand.self, PostCommand.self, CommentCommand.self, UpCommand.self,
        DownCommand.self, UnvoteCommand.self, FeedCommand.self, FeedFollowingCommand.self, ShowCommand.self,
        DeleteCommand.self, DenCommand.self, PeersCommand.self, StatsCommand.self, SearchCommand.self, InboxCommand.self,
        MapCommand.self, TrustCommand.self, UntrustCommand.self, TrustedCommand.self,
        // moderation
        EditCommand.self, HideCommand.self, UnhideCommand.self, LogCommand.self, ReportCommand.self, ReportsCommand.self,
        BanCommand.self, UnbanCommand.self, DismissCommand.self, BlockCommand.self, UnblockCommand.self, MuteCommand.self,
        UnmuteCommand.self, BlocksCommand.self,
        // places
        PlaceCommand.self, PlaceAddCommand.self, PlaceEditCommand.self, PlacesCommand.self, ReviewCommand.self,
        SwipeCommand.self, FavsCommand.self, CompareCommand.self,
        // conversations
        DMCommand.self, ChatCommand.self, VerifyCommand.self, FollowCommand.self, UnfollowCommand.self,
        FollowingCommand.self, ProfileCommand.self,
        // invite-only packs, contact codes, captions and pictures
        RemoveCommand.self, InviteCommand.self, ConnectCommand.self, AskCommand.self, OpenCommand.self, PickCommand.self,
        QuitCommand.self
    ]

    /// The specs `help` lists, in order (one per verb; forms of a verb are helped by it).
    public static let helped: [CommandSpec] = all.map { $0.spec }.filter { $0.usage != nil }

    /// The names `help` lists and Tab completes first.
    static let helpNames: [String] = helped.map { $0.verbs[0] }

    private static let byVerb: [String: [any REPLCommand.Type]] = {
        var out: [String: [any REPLCommand.Type]] = [:]
        for c in all { for v in c.spec.verbs { out[v, default: []].append(c) } }
        return out
    }()

    private static let byName: [String: any REPLCommand.Type] = Dictionary(uniqueKeysWithValues: all.map { ($0.spec.name, $0) })

    /// The spec whose help and completion a typed verb (or alias) gets.
    static func spec(of verb: String) -> CommandSpec? {
        byVerb[verb]?.map { $0.spec }.first { $0.usage != nil }
    }

    /// The usage errors quote: the helped verb's, else the word itself (as typed).
    static func usage(of verb: String) -> String { helped.first { $0.verbs[0] == verb }?.usage ?? verb }

    /// Parses one line. Returns nil for a blank line.
    public static func parse(_ line: String) throws -> (any REPLCommand)? {
        let words: [Tokenizer.Token]
        do { words = try Tokenizer.tokens(line) } catch { throw CommandError("\(error)") }
        guard let verb = words.first?.text.lowercased() else { return nil }
        var args = Args(verb: verb, words: Array(words.dropFirst()))
        guard let type = pick(verb, &args) else {
            let hint = nearestCommand(to: verb).map { " (did you mean '\($0)'?)" } ?? ""
            throw CommandError("unknown command '\(clip(verb))'\(hint); type help")
        }
        return try read(type, &args)
    }

    /// The command named `name` (its spec's name: `post`, `place-add`) with arguments by key,
    /// as a JSON object gives them: what a typed line would run, checked the same way.
    public static func command(named name: String, arguments: [String: ArgValue]) throws -> any REPLCommand {
        guard let type = byName[name] else { throw CommandError("no command '\(clip(name))'") }
        return try decode(type, arguments)
    }

    /// `command(named:arguments:)` from the bytes of a JSON object.
    public static func command(named name: String, json: Data) throws -> any REPLCommand {
        let arguments: [String: ArgValue]
        do { arguments = try JSONDecoder().decode([String: ArgValue].self, from: json) } catch {
            throw CommandError("the arguments of \(clip(name)) must be a JSON object of strings, numbers, booleans and lists")
        }
        return try command(named: name, arguments: arguments)
    }

    /// The command a verb types: a form whose selector is on the line (taking it off), else
    /// the verb's plain form.
    private static func pick(_ verb: String, _ args: inout Args) -> (any REPLCommand.Type)? {
        guard let forms = byVerb[verb] else { return nil }
        for form in forms {
            switch form.spec.selector {
            case .flag(let name)? where args.index(of: name) != nil:
                _ = args.flag(name)
                return form
            case .word(let word)?:
                if let i = args.words.firstIndex(where: { !$0.isOption }), args.words[i].text.lowercased() == word {
                    args.words.remove(at: i)
                    return form
                }
            default: continue
            }
        }
        return forms.first { $0.spec.selector == nil }
    }

    private static func read<C: REPLCommand>(_: C.Type, _ args: inout Args) throws -> C {
        let command = try C.spec.decode(C.self, try C.spec.read(&args))
        try args.finish()
        return command
    }

    private static func decode<C: REPLCommand>(_: C.Type, _ arguments: [String: ArgValue]) throws -> C {
        try C.spec.decode(C.self, arguments)
    }
}
