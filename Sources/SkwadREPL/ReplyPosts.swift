import SkwadModel
import SkwadNode
import SkwadReplica

/// `feed`: posts, with thumbnails of their pictures for a terminal.
struct FeedReply: REPLReply {
    let posts: [PostView]
    /// Half-block lines of pictures, by post (drawn on a terminal only).
    var thumbnails: [OpID: [String]] = [:]
    /// What an empty feed says when a filter left every post out (`--within`, `--tag`, a pack).
    var empty: String?

    func text(_ r: Renderer) -> String {
        if posts.isEmpty {
            if let empty { return SafeText.line(empty) }
            return r.joinedCount > 0
                ? "no posts yet: post one (post PACK \"TITLE\" \"BODY\"), or see other packs (packs)"
                : "no posts: join a pack (packs, join PACK) or post one"
        }
        return posts.map { p in
            guard r.mode == .terminal, let lines = thumbnails[p.id], p.picture != nil, p.hidden == nil else { return r.postLine(p) }
            return ([r.postLine(p)] + lines).joined(separator: "\n")
        }.joined(separator: "\n")
    }

    func json(_ r: Renderer) -> [(String, JSON)] { [("posts", .array(posts.map(r.post)))] }
}

/// `show`: a post and its comments.
struct ThreadReply: REPLReply {
    let thread: ThreadView
    /// Half-block lines of its picture (drawn on a terminal only).
    var thumbnail: [String] = []

    func text(_ r: Renderer) -> String {
        let t = thread
        var lines = [r.postLine(t.post)]
        if !t.post.body.isEmpty { lines.append("    " + SafeText.block(t.post.body, indent: "    ")) }
        if !t.post.tags.isEmpty { lines.append("    tags: " + SafeText.line(t.post.tags.joined(separator: ", "))) }
        if let d = r.placeDistance(t.post) { lines.append("    posted about \(Renderer.distance(d)) from you") }
        if let name = t.post.displayName, let about = t.post.displayAbout, !about.isEmpty {
            lines.append("    \"\(SafeText.line(name))\": \(SafeText.line(about))")
        }
        if let pic = t.post.picture, t.post.hidden == nil {
            let type = pic.pictureType?.name ?? "picture"
            lines.append("    picture: \(type), \(Wording.bytes(Int(pic.size))) (open \(r.id(t.post.id)) writes it to a file)")
            if r.mode == .terminal { lines += thumbnail }
        }
        if let h = t.post.hidden {
            let why = h == .moderated ? "by a moderator" : h == .banned ? "its author is banned here" : "score too low"
            lines.append("    (hidden: \(why))")
        }
        for c in t.comments {
            let pad = String(repeating: "  ", count: c.depth + 2)
            let body = c.removed ? r.dim("[removed]") : SafeText.block(c.body, indent: pad + "  ")
            let mark = c.picked ? "★ picked  " : ""
            let edited = c.edited ? " (edited)" : ""
            lines.append(
                "\(pad)\(r.id(c.id))  \(r.score(c.score))  \(mark)\(r.who(c.author, c.role))  \(r.dim(r.time(c.hlc)))  \(body)\(edited)")
        }
        if t.comments.isEmpty {
            lines.append(r.dim(t.post.isAsk ? "    no captions yet (comment \(r.id(t.post.id)) \"TEXT\")" : "    no comments yet"))
        }
        return lines.joined(separator: "\n")
    }

    func json(_ r: Renderer) -> [(String, JSON)] { [("post", r.post(thread.post)), ("comments", .array(thread.comments.map(r.comment)))] }
}

/// `den`: what is yours.
struct DenReply: REPLReply {
    let den: Node.Den

    func text(_ r: Renderer) -> String {
        let d = den
        var lines = [
            "your packs (Alpha): "
                + (d.view.packs.isEmpty ? "none" : d.view.packs.map { "\(SafeText.line($0.name)) \(r.id($0.id))" }.joined(separator: ", ")),
            "joined: " + (d.joined.isEmpty ? "none" : d.joined.map { SafeText.line(r.label($0.id, $0.name)) }.joined(separator: ", ")),
            "posts: \(d.view.posts.count)  comments: \(d.view.comments.count)  upvotes received: \(d.view.totalUpvotes)"
        ]
        lines += d.view.posts.map { "  " + r.postLine($0) }
        lines += d.view.comments.map {
            "  \(r.id($0.id))  \(r.score($0.score))  on \(r.id($0.post))  \(SafeText.block($0.body, indent: "    "))"
        }
        lines += r.denPlaceLines(d)
        return lines.joined(separator: "\n")
    }

    func json(_ r: Renderer) -> [(String, JSON)] {
        let d = den
        return [
            ("packs", .array(d.view.packs.map { r.pack($0, joined: true) })), ("joined", .array(d.joined.map { .string($0.id.hex) })),
            ("posts", .array(d.view.posts.map(r.post))), ("comments", .array(d.view.comments.map(r.comment))),
            ("totalUpvotes", .int(d.view.totalUpvotes)), ("places", .array(d.places.map(r.placeJSON))),
            ("reviews", .array(d.reviews.map(r.reviewJSON)))
        ]
    }
}
