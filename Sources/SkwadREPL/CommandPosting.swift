import SkwadModel
import SkwadNode
import SkwadReplica

/// The verbs that write in a pack: post, comment, up, down, unvote, delete.
struct PostCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "post", usage: "post PACK \"TITLE\" \"BODY\" [--tags a,b] [--named] [--here] [--image FILE]",
        summary: "post anonymously in a pack; title up to \(Limits.maxTitle) characters, body up to \(Limits.maxBody) "
            + "(letters beyond plain ASCII count 2, emoji 4); --named: under your display name there",
        params: [
            .word("pack", "PACK"), .word("title", "\"TITLE\""), .word("body", "\"BODY\""), .flag("named", "--named"),
            .flag("here", "--here"), .option("tags", "--tags", .list, absent: .array([])), .option("image", "--image")
        ],
        completion: Completes(first: [.packs]))
    var pack: String
    var title: String
    var body: String
    /// Under your persona in the pack, shown with your display name.
    var named = false
    /// The post carries your cell.
    var here = false
    var tags: [String]
    /// A picture file to attach.
    var image: String?

    func validate() throws {
        if named && here {
            throw CommandError("--named and --here do not go together (a display name with your place would say who you are)")
        }
        if named && image != nil { throw CommandError("--named does not take --image yet: post the picture without a display name") }
    }

    func run(_ x: Executor) async throws -> any REPLReply {
        let node = x.node
        if named { return ConversationReply.posted(try await node.postNamed(pack: pack, title: title, body: body, tags: tags)) }
        let bytes = try image.map { try PictureFile.read($0) }
        let id = try await node.post(pack: pack, title: title, body: body, tags: tags, here: here, image: bytes)
        let held = await node.isHeld(id) ? Executor.heldNote : ""
        return DoneReply("posted \(id.short(await node.displayIDLength()))" + held, id: id)
    }
}

struct CommentCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "comment", verbs: ["comment", "reply"], usage: "comment ID \"TEXT\"",
        summary: "comment on a post, or reply to a comment; up to \(Limits.maxBody) characters",
        params: [.word("target", "ID"), .word("text", "\"TEXT\"")], completion: Completes(first: [.ops]))
    var target: String
    var text: String

    func run(_ x: Executor) async throws -> any REPLReply {
        let node = x.node
        let id = try await node.comment(on: target, text: text)
        let word = await node.isReviewReply(id) ? "replied" : "commented"  // `reply REVIEW`: the landlord's reply
        let held = await node.isHeld(id) ? Executor.heldNote : ""
        return DoneReply("\(word) \(id.short(await node.displayIDLength()))" + held, id: id)
    }
}

struct UpCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "up", usage: "up ID", summary: "upvote a post or comment", params: [.word("target", "ID")], completion: Completes(first: [.ops]))
    var target: String
    func run(_ x: Executor) async throws -> any REPLReply { try await x.vote(target, 1) }
}

struct DownCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "down", usage: "down ID", summary: "downvote a post or comment", params: [.word("target", "ID")],
        completion: Completes(first: [.ops]))
    var target: String
    func run(_ x: Executor) async throws -> any REPLReply { try await x.vote(target, -1) }
}

struct UnvoteCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "unvote", usage: "unvote ID", summary: "withdraw your vote", params: [.word("target", "ID")], completion: Completes(first: [.ops]))
    var target: String
    func run(_ x: Executor) async throws -> any REPLReply { try await x.vote(target, 0) }
}

struct DeleteCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "delete", verbs: ["delete", "rm"], usage: "delete ID", summary: "delete your post or comment, or a pack you are the Alpha of",
        params: [.word("target", "ID")], completion: Completes(first: [.packs, .ops]))
    var target: String
    func run(_ x: Executor) async throws -> any REPLReply {
        let id = try await x.node.delete(target)
        return DoneReply("deleted \(target)", id: id)
    }
}

extension Executor {
    /// `up` (+1), `down` (-1), `unvote` (0): the last vote counts.
    func vote(_ target: String, _ value: Int32) async throws -> DoneReply {
        let id = try await node.vote(on: target, value: value)
        let word = value > 0 ? "upvoted" : value < 0 ? "downvoted" : "vote withdrawn on"
        return DoneReply("\(word) \(target)", id: id)
    }
}
