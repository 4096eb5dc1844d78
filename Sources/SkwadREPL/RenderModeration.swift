import SkwadModel
import SkwadNode
import SkwadReplica

/// Text and JSON of the moderation verbs' replies. Everything that came from the network
/// (names, reasons, excerpts) goes through SafeText.
extension Renderer {
    func moderationText(_ r: ModerationReply) -> String {
        switch r {
        case let .log(p, entries):
            if entries.isEmpty { return "no moderation in \(SafeText.line(p.name)) yet" }
            return entries.map { e in
                var parts = [dim(time(e.hlc)), who(e.author, e.role), e.action.rawValue]
                if let t = e.target { parts.append(id(t)) }
                if let k = e.subject { parts.append(pseudonymTag(k)) }
                if !e.detail.isEmpty { parts.append((e.action == .editPack ? "" : "reason: ") + SafeText.line(e.detail)) }
                return parts.joined(separator: "  ")
            }.joined(separator: "\n")
        case .reports(let list):
            if list.isEmpty { return "no open reports" }
            return list.map { r in
                let excerpt = r.excerpt.isEmpty ? dim("(not here yet)") : "\"\(SafeText.line(String(r.excerpt.prefix(60))))\""
                return "\(id(r.id))  \(dim(time(r.hlc)))  on \(id(r.target)) \(excerpt)" + (r.targetHidden ? "  (hidden)" : "")
                    + "\n    by \(pseudonymTag(r.reporter))  reason: \(SafeText.line(r.reason))"
            }.joined(separator: "\n") + "\n"
                + dim("hide ID [REASON] to hide the target; ban PACK AUTHOR to ban a reporter or author; dismiss REPORT to set one aside")
        case .blocks(let b):
            var lines = ["blocked:" + (b.authors.isEmpty ? " none" : "")]
            lines += b.authors.map { "  \(pseudonymTag($0.key))" + ($0.pack.map { "  in \(SafeText.line($0))" } ?? "") }
            lines.append("muted:" + (b.packs.isEmpty ? " none" : ""))
            lines += b.packs.map { "  \($0.name.map(SafeText.line) ?? "(gone)")  \(id($0.id))" }
            return lines.joined(separator: "\n")
        }
    }

    func moderationJSON(_ r: ModerationReply) -> [(String, JSON)] {
        switch r {
        case let .log(p, entries):
            return [
                ("pack", .string(p.id.hex)),
                (
                    "log",
                    .array(
                        entries.map { e in
                            .object([
                                ("id", .string(e.id.hex)), ("author", .string(pseudonymTag(e.author))),
                                ("role", e.role.map { .string($0.rawValue) } ?? .null), ("action", .string(e.action.rawValue)),
                                ("target", e.target.map { .string($0.hex) } ?? .null),
                                ("subject", e.subject.map { .string(pseudonymTag($0)) } ?? .null), ("detail", .string(e.detail)),
                                ("time", .int(Int(e.hlc.physicalMs)))
                            ])
                        })
                )
            ]
        case .reports(let list):
            return [
                (
                    "reports",
                    .array(
                        list.map { r in
                            .object([
                                ("id", .string(r.id.hex)), ("pack", .string(r.pack.hex)), ("target", .string(r.target.hex)),
                                ("reporter", .string(pseudonymTag(r.reporter))),
                                ("reason", .string(r.reason)), ("excerpt", .string(r.excerpt)), ("hidden", .bool(r.targetHidden)),
                                ("time", .int(Int(r.hlc.physicalMs)))
                            ])
                        })
                )
            ]
        case .blocks(let b):
            return [
                ("blocked", .array(b.authors.map { .string(pseudonymTag($0.key)) })),
                ("muted", .array(b.packs.map { .string($0.id.hex) }))
            ]
        }
    }
}
