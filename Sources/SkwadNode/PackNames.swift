import SkwadModel
import SkwadReplica

/// Rules of pack names as this node's user types them: ids win over names, so a name made
/// only of hex digits (which would read as an id prefix) is refused when created or renamed
/// here; and a name a pack had before a rename points to the pack's new name.
enum PackNames {
    /// Only ASCII hex digits (0-9, a-f, A-F), and at least one.
    static func isHex(_ s: String) -> Bool {
        !s.isEmpty && s.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) || (0x41...0x46).contains($0) }
    }

    /// Throws when `name` could be taken for an id prefix.
    static func check(_ name: String) throws {
        guard isHex(name) else { return }
        throw NodeError(
            "a pack name made only of hex digits ('\(NodeError.quote(name))') would read as a pack id: "
                + "add a letter beyond f, a space or a sign")
    }

    /// The live pack that was called `lowered` (lower-cased) before a rename, when exactly
    /// one was: its genesis name or a name of one of its edits.
    static func renamed(from lowered: String, among live: [PackSummary], replica: Replica) -> PackSummary? {
        let found = live.filter { p in
            p.name.lowercased() != lowered
                && replica.directoryOps(of: p.id).contains { op in
                    switch op.body.kind {
                    case .createPack(let c): return c.name.lowercased() == lowered
                    case .editPack(let e): return e.name?.lowercased() == lowered
                    default: return false
                    }
                }
        }
        return found.count == 1 ? found[0] : nil
    }
}
