import SkwadModel
import SkwadNode
import SkwadReplica

/// The verbs that read: feed, show, den, search, inbox.
struct FeedCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "feed", usage: "feed [PACK] [--sort new|top] [--limit N] [--tag T] [--within METRES] [--no-images] | feed --following",
        summary: "posts of your packs (or of one pack); --tag keeps posts with that tag; --within keeps posts of any pack that near you; "
            + "on a terminal, a small thumbnail of each picture (--no-images: none); --following: posts of the pseudonyms you follow",
        params: [
            .option("sort", "--sort", .choice(FeedSort.allCases.map(\.rawValue)), absent: .string(FeedSort.new.rawValue)),
            .option("limit", "--limit", .whole, absent: .int(20)), .option("tag", "--tag"), .option("within", "--within", .number),
            .flag("noImages", "--no-images"), .optionalWord("pack")
        ],
        completion: Completes(first: [.packs], later: [.packs]))
    var sort: FeedSort = .new
    var limit = 20
    var tag: String?
    var within: Double?
    /// No thumbnails under the posts.
    var noImages = false
    var pack: String?

    func validate() throws {
        guard limit >= 1 && limit <= 1000 else { throw CommandError("--limit must be 1...1000") }
        if let within, within <= 0 { throw CommandError("--within must be a distance in metres above 0") }
    }

    func run(_ x: Executor) async throws -> any REPLReply {
        let node = x.node
        let posts = try await node.feed(pack: pack, sort: sort, limit: limit, tag: tag, withinMeters: within)
        let thumbnails = !noImages && x.drawsPictures ? await x.feedThumbnails(posts) : [:]
        return FeedReply(posts: posts, thumbnails: thumbnails, empty: posts.isEmpty ? try await emptyNote(node) : nil)
    }

    /// What an empty feed says when a filter left every post out.
    func emptyNote(_ node: Node) async throws -> String? {
        let tagged = tag.map { " tagged \($0)" } ?? ""
        var label: String?
        if let pack {
            let p = try await node.resolvePack(pack)
            label = await node.packLabel(p.id) ?? p.name
        }
        let inPack = label.map { " in \($0)" } ?? ""
        if let within { return "no post\(tagged)\(inPack) lies within \(Renderer.distance(within)) of you (try a larger distance)" }
        if let tag, label == nil { return "no post tagged \(tag), nor in a pack tagged \(tag)" }
        guard let label else { return nil }
        return tag == nil
            ? "no posts in \(label) yet: post one (post \(CommandWord.quote(label)) \"TITLE\" \"BODY\")"
            : "no post\(tagged) in \(label)"
    }
}

struct ShowCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "show", usage: "show POST [--no-images]",
        summary: "a post with its comments; on a terminal, a thumbnail of its picture (--no-images: none)",
        params: [.word("post", "POST"), .flag("noImages", "--no-images")], completion: Completes(first: [.ops]))
    var post: String
    var noImages = false

    func run(_ x: Executor) async throws -> any REPLReply {
        let t = try await x.node.show(post)
        let bytes = !noImages && x.drawsPictures && t.post.picture != nil ? await x.node.pictureBytesShown(t.post.id) : nil
        return ThreadReply(thread: t, thumbnail: bytes.flatMap(PictureThumbnail.decode).map { PictureThumbnail.halfBlocks($0) } ?? [])
    }
}

struct DenCommand: REPLCommand, Equatable {
    static let spec = CommandSpec("den", usage: "den", summary: "your packs, posts, comments and upvotes received")
    func run(_ x: Executor) async throws -> any REPLReply { DenReply(den: await x.node.den()) }
}

struct SearchCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "search", verbs: ["search", "find"], usage: "search TEXT [--pack PACK] [--limit N]",
        summary: "find posts by words of their title, body, tags or comments, best first",
        params: [
            .option("pack", "--pack"), .option("limit", "--limit", .whole, absent: .int(20)), .rest("text", joined: true, required: "TEXT")
        ],
        completion: Completes(later: [.packs]))
    var pack: String?
    var limit = 20
    var text: String?

    func validate() throws {
        guard limit >= 1 && limit <= 200 else { throw CommandError("--limit must be 1...200") }
        // A line without TEXT stops while it is read; a JSON object without it stops here.
        guard let text, !text.isEmpty else { throw CommandError("missing TEXT; usage: \(Registry.usage(of: "search"))") }
    }

    func run(_ x: Executor) async throws -> any REPLReply {
        SearchReply(hits: try await x.node.search(text ?? "", pack: pack, limit: limit))
    }
}

struct InboxCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "inbox", usage: "inbox",
        summary: "replies, votes and moderation on your posts and comments, and your packs expiring or gone, since you last looked")
    func run(_ x: Executor) async throws -> any REPLReply { InboxReply(inbox: try await x.node.inbox()) }
}
