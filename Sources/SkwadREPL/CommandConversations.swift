import SkwadCrypto
import SkwadModel
import SkwadNode
import SkwadReplica

/// Direct messages, key verification, follows and personas (issue 26): dm, chat, verify,
/// follow, unfollow, following, profile, and `feed --following`.
struct DMCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "dm", verbs: ["dm", "msg"], usage: "dm AUTHOR|ID \"TEXT\"",
        summary: "a private message to a pseudonym (anon·3f2a9c01), or to the author of a post, comment or message",
        params: [.word("to", "AUTHOR|ID"), .word("text", "\"TEXT\"")])
    var to: String
    var text: String
    func run(_ x: Executor) async throws -> any REPLReply {
        let r = try await x.node.dm(to: to, text: text)
        return ConversationReply.sent(r.id, peer: r.peer, packName: r.packName)
    }
}

struct ChatCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "chat", usage: "chat [AUTHOR|ID]", summary: "your conversations, or one of them, with delivery marks",
        params: [.optionalWord("with")])
    var with: String?
    func run(_ x: Executor) async throws -> any REPLReply { ConversationReply.chat(try await x.node.chat(with: with)) }
}

struct VerifyCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "verify", usage: "verify AUTHOR [--confirm|--undo]",
        summary: "the safety number of you and a pseudonym, the same on both sides; --confirm marks it verified",
        params: [.word("author", "AUTHOR"), .flag("confirm", "--confirm"), .flag("undo", "--undo")])
    var author: String
    /// Mark the pseudonym verified.
    var confirm = false
    /// Remove the mark.
    var undo = false

    func validate() throws {
        guard !(confirm && undo) else { throw CommandError("--confirm and --undo together; usage: \(Registry.usage(of: "verify"))") }
    }

    func run(_ x: Executor) async throws -> any REPLReply {
        ConversationReply.safety(try await x.node.verify(author, confirm: confirm ? true : undo ? false : nil))
    }
}

struct FollowCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "follow", usage: "follow AUTHOR|ID",
        summary: "follow a pseudonym of a pack: its posts in feed --following, a line when one arrives",
        params: [.word("author", "AUTHOR|ID")])
    var author: String
    func run(_ x: Executor) async throws -> any REPLReply { try await x.follow(author, on: true) }
}

struct UnfollowCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "unfollow", usage: "unfollow AUTHOR|ID", summary: "stop following a pseudonym", params: [.word("author", "AUTHOR|ID")])
    var author: String
    func run(_ x: Executor) async throws -> any REPLReply { try await x.follow(author, on: false) }
}

struct FollowingCommand: REPLCommand, Equatable {
    static let spec = CommandSpec("following", usage: "following", summary: "the pseudonyms you follow")
    func run(_ x: Executor) async throws -> any REPLReply { ConversationReply.following(await x.node.following()) }
}

/// `feed --following`: posts of the pseudonyms you follow (helped with `feed`).
struct FeedFollowingCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "feed-following", verbs: ["feed"], selector: .flag("--following"), usage: nil,
        params: [.option("limit", "--limit", .whole, absent: .int(20))])
    var limit = 20

    func validate() throws {
        guard limit >= 1 && limit <= 1000 else { throw CommandError("--limit must be 1...1000") }
    }

    func run(_ x: Executor) async throws -> any REPLReply { ConversationReply.feed(await x.node.followingFeed(limit: limit)) }
}

struct ProfileCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "profile", usage: "profile PACK --name \"NAME\" [--about \"TEXT\"]",
        summary: "a display name (and an about line, shown by show under your named posts) in that pack only, under a second key"
            + " of yours there; post ... --named posts under it",
        params: [.word("pack", "PACK"), .option("name", "--name"), .option("about", "--about", absent: .string(""))],
        completion: Completes(first: [.packs]))
    var pack: String
    var name: String?
    var about: String

    func validate() throws {
        guard name != nil else { throw CommandError("missing --name; usage: \(Registry.usage(of: "profile"))") }
    }

    func run(_ x: Executor) async throws -> any REPLReply {
        let r = try await x.node.profile(pack: pack, name: name ?? "", about: about)
        return ConversationReply.profiled(r.persona, packName: r.packName, name: r.name, about: r.about)
    }
}

extension Executor {
    /// `follow` (`on`) and `unfollow`.
    func follow(_ who: String, on: Bool) async throws -> ConversationReply {
        let r = try await node.follow(who, on: on)
        return .followed(r.author, packName: r.packName, on: on)
    }
}

/// What a conversation verb produced, before rendering.
public enum ConversationReply: REPLReply {
    case sent(OpID, peer: PublicKey, packName: String)
    case chat(ChatView)
    case safety(SafetyView)
    case followed(PublicKey, packName: String, on: Bool)
    case following([FollowedAuthor])
    case feed([PostView])
    case profiled(PublicKey, packName: String, name: String, about: String)
    case posted(OpID)

    public func text(_ r: Renderer) -> String { r.conversationText(self) }
    public func json(_ r: Renderer) -> [(String, JSON)] { r.conversationJSON(self) }
}
