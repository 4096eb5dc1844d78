import SkwadModel

/// The pending buffer (ops whose pack's genesis has not come, PROTOCOL §4 rule 6) shares its
/// 10,000 places across the network groups that sent them, like the pack table (rule 5):
/// when it is full, an op from group G displaces the newest op held for the group H ≠ G
/// holding the most, if H holds more than G would with it; otherwise it is refused
/// (`unknownPack`). One party flooding signed ops for made-up packs then holds at most its
/// share, and an honest op that outruns its genesis still waits for it.
extension Replica {
    mutating func holdPending(_ op: SignedOp, source: String) {
        pendingSource[op.id] = source
        pendingPerSource[source, default: 0] += 1
        pendingOrder[source, default: []].append((op.id, op.packID))
    }

    /// Forgets who sent a held op that leaves the buffer (admitted, aged out, purged).
    mutating func releasePending(_ id: OpID) {
        guard let source = pendingSource.removeValue(forKey: id) else { return }
        let left = (pendingPerSource[source] ?? 1) - 1
        if left <= 0 {
            pendingPerSource[source] = nil
            pendingOrder[source] = nil
        } else {
            pendingPerSource[source] = left
            // Ids that left are skipped when a victim is chosen; the list is compacted when it
            // holds twice what counts, so it stays within twice the buffer.
            if let n = pendingOrder[source]?.count, n > 2 * left { pendingOrder[source]!.removeAll { pendingSource[$0.id] != source } }
        }
    }

    /// The held op an op from `source` displaces, or nil: refuse it.
    func pendingVictim(for source: String) -> (id: OpID, pack: PackID)? {
        let mine = (pendingPerSource[source] ?? 0) + 1
        guard
            let most = pendingPerSource.filter({ $0.key != source }).max(by: { a, b in
                a.value != b.value ? a.value < b.value : a.key > b.key
            }), most.value > mine
        else { return nil }
        return pendingOrder[most.key]?.last { pendingSource[$0.id] == most.key }
    }

    /// Takes a held op out of the buffer (displaced by the quota).
    mutating func dropPending(_ id: OpID, pack packID: PackID) {
        guard pending[packID] != nil else { return }
        pending[packID]!.removeAll { $0.id == id }
        if pending[packID]!.isEmpty { pending[packID] = nil; pendingSince[packID] = nil }
        pendingIDs.remove(id)
        releasePending(id)
    }
}
