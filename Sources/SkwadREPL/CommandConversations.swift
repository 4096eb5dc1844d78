import SkwadCrypto
import SkwadModel
import SkwadNode
import SkwadReplica

/// Direct messages and key verification (issue 26): their grammar, kept apart from
/// Command.swift. `Command.parse` hands these verbs here.
public enum ConversationCommand: Equatable, Sendable {
    case dm(to: String, text: String)
    case chat(String?)
    /// `confirm`: true marks the pseudonym verified, false removes the mark, nil only shows the number.
    case verify(String, confirm: Bool?)
    case follow(String)
    case unfollow(String)
    case following
    /// `feed --following`: posts of the pseudonyms you follow.
    case followingFeed(limit: Int)
    case profile(pack: String, name: String, about: String)
    /// `post … --named`: a post under your persona, shown with your display name.
    case namedPost(pack: String, title: String, body: String, tags: [String])

    static let verbs: Set<String> = ["dm", "msg", "chat", "verify", "follow", "unfollow", "following", "profile"]

    /// Parses the arguments of a conversation verb; nil for any other verb.
    static func parse(verb: String, args: inout Args) throws -> ConversationCommand? {
        switch verb {
        case "dm", "msg": return .dm(to: try args.positional("AUTHOR|ID"), text: try args.positional("\"TEXT\""))
        case "chat": return .chat(args.optionalPositional())
        case "verify":
            let who = try args.positional("AUTHOR")
            let yes = args.flag("--confirm"), no = args.flag("--undo")
            guard !(yes && no) else { throw CommandError("--confirm and --undo together; usage: \(args.usage)") }
            return .verify(who, confirm: yes ? true : no ? false : nil)
        case "follow": return .follow(try args.positional("AUTHOR|ID"))
        case "unfollow": return .unfollow(try args.positional("AUTHOR|ID"))
        case "following": return .following
        case "profile":
            let pack = try args.positional("PACK")
            guard let name = try args.value("--name") else { throw CommandError("missing --name; usage: \(args.usage)") }
            return .profile(pack: pack, name: name, about: try args.value("--about") ?? "")
        default: return nil
        }
    }
}

/// Help lines of the conversation verbs (listed by `help` with the others).
let conversationHelp: [(name: String, usage: String, summary: String)] = [
    ("dm", "dm AUTHOR|ID \"TEXT\"", "a private message to a pseudonym (anon·3f2a9c01), or to the author of a post, comment or message"),
    ("chat", "chat [AUTHOR|ID]", "your conversations, or one of them, with delivery marks"),
    (
        "verify", "verify AUTHOR [--confirm|--undo]",
        "the safety number of you and a pseudonym, the same on both sides; --confirm marks it verified"
    ),
    ("follow", "follow AUTHOR|ID", "follow a pseudonym of a pack: its posts in feed --following, a line when one arrives"),
    ("unfollow", "unfollow AUTHOR|ID", "stop following a pseudonym"),
    ("following", "following", "the pseudonyms you follow"),
    (
        "profile", "profile PACK --name \"NAME\" [--about \"TEXT\"]",
        "a display name (and an about line, shown by show under your named posts) in that pack only, under a second key"
            + " of yours there; post ... --named posts under it"
    )
]

/// What a conversation verb produced, before rendering.
public enum ConversationReply: Sendable {
    case sent(OpID, peer: PublicKey, packName: String)
    case chat(ChatView)
    case safety(SafetyView)
    case followed(PublicKey, packName: String, on: Bool)
    case following([FollowedAuthor])
    case feed([PostView])
    case profiled(PublicKey, packName: String, name: String, about: String)
    case posted(OpID)
}

extension Executor {
    func runConversation(_ cmd: ConversationCommand) async throws -> ConversationReply {
        switch cmd {
        case let .dm(to, text):
            let r = try await node.dm(to: to, text: text)
            return .sent(r.id, peer: r.peer, packName: r.packName)
        case .chat(let who): return .chat(try await node.chat(with: who))
        case let .verify(who, confirm): return .safety(try await node.verify(who, confirm: confirm))
        case .follow(let who), .unfollow(let who):
            let on: Bool
            if case .follow = cmd { on = true } else { on = false }
            let r = try await node.follow(who, on: on)
            return .followed(r.author, packName: r.packName, on: on)
        case .following: return .following(await node.following())
        case .followingFeed(let limit): return .feed(await node.followingFeed(limit: limit))
        case let .profile(pack, name, about):
            let r = try await node.profile(pack: pack, name: name, about: about)
            return .profiled(r.persona, packName: r.packName, name: r.name, about: r.about)
        case let .namedPost(pack, title, body, tags):
            return .posted(try await node.postNamed(pack: pack, title: title, body: body, tags: tags))
        }
    }
}
