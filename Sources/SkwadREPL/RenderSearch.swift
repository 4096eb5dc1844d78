import SkwadNode

extension Renderer {
    /// Search results: each post's line, and under it the comment that matched.
    func searchText(_ hits: [SearchHit]) -> String {
        if hits.isEmpty { return "nothing found (search looks in the posts and comments this node holds)" }
        var lines: [String] = []
        for h in hits {
            lines.append(postLine(h.post))
            if let c = h.comment {
                lines.append(
                    "    ↳ \(id(c.id))  \(score(c.score))  \(who(c.author, c.role))  \(dim(time(c.hlc)))  \(SafeText.block(c.body, indent: "      "))"
                )
            }
        }
        return lines.joined(separator: "\n")
    }

    func searchHit(_ h: SearchHit) -> JSON {
        .object([("post", post(h.post)), ("comment", h.comment.map(comment) ?? .null)])
    }
}
