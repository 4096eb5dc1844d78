import SkwadNode

/// `search`: each post's line, and under it the comment that matched.
struct SearchReply: REPLReply {
    let hits: [SearchHit]

    func text(_ r: Renderer) -> String {
        if hits.isEmpty { return "nothing found (search looks in the posts and comments this node holds)" }
        var lines: [String] = []
        for h in hits {
            lines.append(r.postLine(h.post))
            if let c = h.comment {
                lines.append(
                    "    ↳ \(r.id(c.id))  \(r.score(c.score))  \(r.who(c.author, c.role))  \(r.dim(r.time(c.hlc)))  "
                        + SafeText.block(c.body, indent: "      "))
            }
        }
        return lines.joined(separator: "\n")
    }

    func json(_ r: Renderer) -> [(String, JSON)] {
        [("results", .array(hits.map { .object([("post", r.post($0.post)), ("comment", $0.comment.map(r.comment) ?? .null)]) }))]
    }
}
