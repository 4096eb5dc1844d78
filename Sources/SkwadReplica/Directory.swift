import SkwadModel

/// The pack directory (PROTOCOL.md §11a): what a node needs to find and join a pack — its
/// genesis and its `EditPack` ops — for the live packs a predicate selects. Reconciled
/// between neighbours like a pack's own ops, so a node that was offline or started late
/// learns the packs around it.
extension Replica {
    /// (hlc, id) of the genesis and edits of every live pack that `include` selects, sorted
    /// ascending, at most `capacity` packs (the oldest geneses first, so two nodes that both
    /// hold more than the capacity agree on the same prefix).
    public func directoryItems(nowMs: UInt64, capacity: Int, include: (PackScope) -> Bool) -> [(hlc: HLC, id: OpID)] {
        let gone = goneEntries()
        // Fields are read through the dictionary's storage in place: a `for (id, p) in packs`
        // loop copies each PackState (a dozen collections retained and released per pack).
        var chosen: [(created: HLC, id: PackID, at: Dictionary<PackID, PackState>.Index)] = []
        var i = packs.startIndex
        while i != packs.endIndex {
            defer { i = packs.index(after: i) }
            guard !packs.values[i].deleted, !packs.values[i].isExpired(nowMs: nowMs) else { continue }
            if include(packs.values[i].scope) { chosen.append((packs.values[i].genesis.hlc, packs.keys[i], i)) }
        }
        // Deleted packs (`at` nil: read from `gone`) compete for the same capacity.
        var chosenGone: [(created: HLC, id: PackID, at: Int)] = []
        for (k, g) in gone.enumerated() where include(g.scope) { chosenGone.append((g.genesis.hlc, g.scope.id, k)) }
        var all: [(created: HLC, id: PackID, at: Dictionary<PackID, PackState>.Index?, gone: Int)] =
            chosen.map { ($0.created, $0.id, $0.at, -1) } + chosenGone.map { ($0.created, $0.id, nil, $0.at) }
        if all.count > capacity {
            all.sort { ($0.created, $0.id) < ($1.created, $1.id) }
            all.removeLast(all.count - capacity)
        }
        var items: [(hlc: HLC, id: OpID)] = []
        items.reserveCapacity(all.count)
        for c in all {
            if let at = c.at {
                items.append((packs.values[at].genesis.hlc, packs.values[at].genesis.id))
                if !packs.values[at].edits.isEmpty { items += packs.values[at].edits }
            } else {
                items.append((gone[c.gone].genesis.hlc, gone[c.gone].genesis.id))
                items += gone[c.gone].edits
            }
        }
        items.sort { ($0.hlc, $0.id) < ($1.hlc, $1.id) }
        return items
    }

    /// Every live pack (not deleted, not expired) sorted by id, as `liveScopes` lists them,
    /// with its directory entry: its genesis and edits. `directoryItems` selects from these
    /// and from `deletedEntries`; the engine's view cache selects from them for many
    /// perspectives without reading the packs again.
    public func directoryEntries(nowMs: UInt64) -> [(scope: PackScope, genesis: SignedOp, edits: [(hlc: HLC, id: OpID)])] {
        // Sorted as (id, index) pairs, then read once each: sorting the entries themselves
        // would copy a scope, a genesis and an edit list at every move (the view cache
        // rebuilds this after every genesis admitted).
        var order: [(id: PackID, at: Dictionary<PackID, PackState>.Index)] = []
        order.reserveCapacity(packs.count)
        var i = packs.startIndex
        while i != packs.endIndex {
            defer { i = packs.index(after: i) }
            guard !packs.values[i].deleted, !packs.values[i].isExpired(nowMs: nowMs) else { continue }
            order.append((packs.keys[i], i))
        }
        order.sort { $0.id < $1.id }
        return order.map { (packs.values[$0.at].scope, packs.values[$0.at].genesis, packs.values[$0.at].edits) }
    }

    /// The directory entries of deleted packs (genesis and the deletion that counts), whether
    /// their ops are still held or only their tombstones, sorted by id (PROTOCOL §11a).
    public func deletedEntries() -> [(scope: PackScope, genesis: SignedOp, edits: [(hlc: HLC, id: OpID)])] {
        goneEntries()
    }

    /// Live packs whose name equals `query` (case-insensitively) or whose id starts with it
    /// (at least 4 hex digits), at most `limit`, oldest first.
    public func findPacks(_ query: String, nowMs: UInt64, limit: Int) -> [PackState] {
        let q = query.lowercased()
        let byID = q.count >= 4 && q.count <= 64 && q.allSatisfy(\.isHexDigit)
        var found: [PackState] = []
        for p in packs.values where !p.deleted && !p.isExpired(nowMs: nowMs) {
            // An invite-only pack is found by its id (the join code's), never by its name.
            if p.isPrivate && !byID { continue }
            if p.create.name.lowercased() == q || p.genesisCreate.name.lowercased() == q || (byID && p.id.hex.hasPrefix(q)) {
                found.append(p)
            }
        }
        found.sort { ($0.genesis.hlc, $0.id) < ($1.genesis.hlc, $1.id) }
        return Array(found.prefix(limit))
    }

    /// The genesis and edits of a pack, oldest first (what a directory entry carries).
    public func directoryOps(of id: PackID) -> [SignedOp] {
        guard let p = packs[id] else { return [] }
        return [p.genesis] + p.edits.compactMap { ops[$0.id] }
    }
}
