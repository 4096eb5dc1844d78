import SkwadModel
import SkwadNode
import SkwadReplica

/// `create`: the new pack.
struct CreatedReply: REPLReply {
    let pack: PackSummary

    func text(_ r: Renderer) -> String {
        let p = pack
        return "created pack \(r.colored(SafeText.line(r.label(p.id, p.name)), pack: p.id, color: p.color)) \(r.id(p.id))"
            + (p.fence.map { " (radius \(Int($0.radiusMeters)) m\(p.locked ? ", locked" : ""))" } ?? "")
    }

    func json(_ r: Renderer) -> [(String, JSON)] { [("id", .string(pack.id.hex)), ("pack", r.pack(pack, joined: true))] }
}

/// `packs`: the live packs around you.
struct PacksReply: REPLReply {
    let list: [Node.PackListing]

    func text(_ r: Renderer) -> String {
        if list.isEmpty { return "no packs yet: create one with create NAME" }
        return list.map { l in
            let p = l.pack
            var parts = [r.id(p.id), r.colored(SafeText.line(r.label(p.id, p.name)), pack: p.id, color: p.color)]
            let tags = r.shownTags(p)
            if !tags.isEmpty { parts.append("[" + SafeText.line(tags.joined(separator: ",")) + "]") }
            if let d = p.distanceMeters, let b = p.bearingDegrees { parts.append("\(Renderer.distance(d)) \(Renderer.compass(b))") }
            if let f = p.fence { parts.append("r=\(Renderer.distance(f.radiusMeters))\(p.locked ? " locked" : "")") }
            parts.append("\(Wording.count(p.popularity, "person", "people")), \(Wording.count(p.postCount, "post"))")
            parts.append(p.isAdmin ? "permanent" : "expires " + (p.expiresMs.map { Renderer.relative($0, now: r.nowMs) } ?? "never"))
            if l.joined { parts.append("(joined)") }
            return parts.joined(separator: "  ")
        }.joined(separator: "\n")
    }

    func json(_ r: Renderer) -> [(String, JSON)] { [("packs", .array(list.map { r.pack($0.pack, joined: $0.joined) }))] }
}
