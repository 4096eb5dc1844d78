import SkwadModel

// What the vicinity part reads of the peer table: the names it passes on, what a peer has
// proven of its place, and the entries it offers and settles (PROTOCOL §9).
extension PeerTable {
    /// A peer spoke to us directly (`heard`, with its own info) or was named by another
    /// (cell only): keep it if it is among the nearest to us (`ours`). Only a `Vicinity`
    /// message from it (`answered`) settles an exchange we asked it for, or lets it back in
    /// once muted: a peer that pings, joins or sends interest but never answers an exchange
    /// is dropped after `vicinityMisses`, however chatty.
    mutating func offerVicinity(
        _ peer: PeerAddress, info peerInfo: NodeInfo, heard: Bool, answered: Bool = false, ours: NodeInfo, nowMs: UInt64
    ) {
        guard peer != me, peerInfo.place != nil, ours.place != nil else { return }
        if var e = vicinity[peer] {
            guard heard else { return }
            // A peer that takes us for a stranger tells us a coarse cell: keep the finer one.
            if !GossipEngine.isCoarse(peerInfo.cell) || GossipEngine.isCoarse(e.info.cell) {
                e.info = peerInfo
                e.distance = ours.distance(to: peerInfo.place)
            }
            e.lastHeardMs = nowMs
            if answered { e.askedMs = nil; e.misses = 0; e.exchangedMs = nowMs }
            self[vicinity: peer] = e
            return
        }
        // A cell no finer than a stranger's (a declining `NeighborReply`, a shuffle answer to
        // a stranger) places nobody among our nearest.
        guard !GossipEngine.isCoarse(peerInfo.cell) else { return }
        offerVicinity(
            peer,
            VicinityEntry(
                info: peerInfo, distance: ours.distance(to: peerInfo.place), lastHeardMs: heard ? nowMs : 0,
                exchangedMs: answered ? nowMs : 0),
            answered: answered)
    }

    /// Up to `count` peers we know (vicinity, active, inbound), nearest to `target` first,
    /// with cells cut to `precision` (our own announced cell's). A muted peer (one that left
    /// our vicinity exchanges unanswered) is not passed on, even as an active member. Entries
    /// not yet heard from are passed on too: passing on only those that had exchanged with us
    /// would slow full coverage.
    func vicinitySample(for target: Geohash.Cell?, excluding: PeerAddress, count: Int, precision: Int) -> [PeerRef] {
        guard let target else { return [] }
        // Each candidate's distance, and the role whose cell it is named with (read in place,
        // without copying the entries of three views).
        var known: [(Double, PeerAddress, Field)] = []
        walk(.vicinity) { p, r in
            if p != excluding, let pl = r.place(as: .vicinity) { known.append((pl.center.distance(to: target.center), p, .vicinity)) }
        }
        walk(.active) { p, r in
            guard p != excluding, !r.holdsAny(Field.vicinity.bit | Field.muted.bit) else { return }
            if let pl = r.place(as: .active) { known.append((pl.center.distance(to: target.center), p, .active)) }
        }
        // Inbound peers count us among their nearest, so they stand near us, but we may not
        // count them among ours (a sparse side of a density edge, such as a fence's rim next
        // to a campus): introduce them too, or two peers that share every neighbour but
        // stand nearer to each other than to any of them never hear of each other (§9).
        walk(.inbound) { p, r in
            guard p != excluding, !r.holdsAny(Field.active.bit | Field.vicinity.bit | Field.remote.bit) else { return }
            // Not one that told us only a stranger's cell (a directory pull before it held us proven).
            if let c = r.cell(as: .inbound), !GossipEngine.isCoarse(c), let pl = r.place(as: .inbound) {
                known.append((pl.center.distance(to: target.center), p, .inbound))
            }
        }
        known.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
        // At most half of the sample are peers that never proved their cell to us: liars
        // claiming the target's cell (a fence's centre), named to us by others, filled every answer.
        var names = 0, sample: [PeerRef] = []
        for k in known where sample.count < count {
            // Always there: an entry is known above only with a place, decoded from its cell.
            guard let c = cell(of: k.1, as: k.2) else { continue }
            if !provedPlace(k.1) {
                guard names < (count + 1) / 2 else { continue }
                names += 1
            }
            sample.append(PeerRef(address: k.1, cell: String(c.prefix(precision))))
        }
        return sample
    }

    /// A peer has shown it takes part in the protocol near its cell: it exchanged vicinity
    /// with us, asked us for it (inbound), or reconciled with us.
    func provedPlace(_ p: PeerAddress) -> Bool {
        if let e = vicinity[p] { return e.exchangedMs > 0 }
        return inbound[p] != nil || reconMisses[p] != nil
    }

    /// What `theirs` says of `p`, keeping the finer cell we know of it when `theirs` only
    /// cuts it (a peer that takes us for a stranger tells us its coarse cell).
    func sharpened(_ theirs: NodeInfo, of p: PeerAddress) -> NodeInfo {
        guard GossipEngine.isCoarse(theirs.cell), let c = theirs.cell, let known = cell(of: p), known.count > c.count, known.hasPrefix(c)
        else { return theirs }
        var x = theirs
        x.cell = known
        return x
    }
}
