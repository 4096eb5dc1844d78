import SkwadModel
import SkwadReplica

/// Remote contacts: a node that follows an unlocked pack from outside its fence needs a peer
/// inside it, and so does a node inside a fence none of whose active or vicinity links inside
/// it stands nearer to the fence's centre than itself. Each round it routes a `Vicinity`
/// request with the fence's centre as `target` greedily towards the fence (to the known peer
/// nearest to it); answers name peers nearer still, and those inside the fence become links of
/// ours (PROTOCOL §9). Inside its own fence a node takes only contacts nearer the centre than
/// itself, so each member but the innermost is linked to one nearer the centre, and a pack's
/// overlay is one piece. The round's steps are the vicinity part's (Vicinity.swift): each
/// contact checked, each hop checked, each fence sought, one at a time.
extension Vicinity {
    /// Can a peer `p` in `cell` be our remote contact for `fence`? For a fence we stand
    /// outside: if its cell lies inside. For one we stand inside: only if it is `inward` of
    /// us, so that following contacts and inward links from any member ends at the one member
    /// nearest the centre, and the members' overlay is one piece (PROTOCOL §9).
    static func countsAsContact(_ cell: Geohash.Cell, of p: PeerAddress, in fence: Geofence, ours: NodeInfo, me: PeerAddress?) -> Bool {
        guard let mine = ours.place, fence.contains(cell: mine) else { return fence.contains(cell: cell) }
        return GossipEngine.inward(cell, of: p, than: mine, of: me, in: fence)
    }

    /// Our remote contacts that count inside `fence` (`countsAsContact`), sorted.
    static func remoteContacts(inside fence: Geofence, peers: PeerTable, ours: NodeInfo) -> [PeerAddress] {
        peers.remote.compactMap { p, e in
            e.info.place.map { countsAsContact($0, of: p, in: fence, ours: ours, me: peers.me) } == true ? p : nil
        }.sorted()
    }

    /// A peer we heard of: keep it if it can be our contact (`countsAsContact`) for a fence we
    /// need one in; else, if it is nearer to such a fence than we are, a passive peer (the
    /// next hop). A muted peer is neither.
    func offerRemote(_ peer: PeerAddress, info peerInfo: NodeInfo, peers: inout PeerTable, _ x: VicinityInputs) -> [VicinityAction] {
        guard !farFences.isEmpty, peer != peers.me, peers.muted[peer] == nil, let place = peerInfo.place else { return [] }
        let me = peers.me
        let containing = farFences.filter { Self.countsAsContact(place, of: peer, in: $0, ours: x.info, me: me) }
        if !containing.isEmpty {
            // Up to `remotePerFence` contacts inside each such fence.
            let wanted = containing.contains { f in
                Self.remoteContacts(inside: f, peers: peers, ours: x.info).count < x.config.remotePerFence
            }
            guard peers.remote[peer] == nil && wanted else { return [] }
            peers.addRemote(peer, VicinityEntry(info: peerInfo, distance: 0, lastHeardMs: x.nowMs))
            // It is a link before it speaks to us, so `handle` does not see it come up.
            return [.newLink(peer)]
        }
        guard peers.active[peer] == nil, peers.vicinity[peer] == nil,
            farFences.contains(where: { f in place.center.distance(to: f.center) < x.info.distance(to: Geohash.decode(cellOf: f.center)) })
        else { return [] }
        return [.passive(peer, cell: peerInfo.cell)]
    }

    /// A remote contact, at the round: dropped when it no longer counts inside a fence we need
    /// one in; silenced when it leaves our reconciliations unanswered (a liar claiming a cell
    /// near the centre, which every member inside would take: it is inward of them all), and
    /// the search goes on.
    func checkContact(_ p: PeerAddress, peers: inout PeerTable, _ x: VicinityInputs) -> [VicinityAction] {
        guard let e = peers.remote[p] else { return [] }
        let me = peers.me
        guard let place = e.info.place, farFences.contains(where: { Self.countsAsContact(place, of: p, in: $0, ours: x.info, me: me) })
        else {
            peers.removeRemote(p)
            return []
        }
        return peers.answersRounds(p) ? [] : [.silence(p)]
    }

    /// A hop that left a request unanswered (a liar named at the fence's centre never
    /// answers: the greedy search asked it every round, hostile seed 6) is asked again at
    /// most `vicinityMisses` times in all, then silenced like a vicinity entry.
    func checkHop(_ p: PeerAddress, peers: inout PeerTable, _ x: VicinityInputs) -> [VicinityAction] {
        guard var h = peers.remoteHops[p], let asked = h.askedMs, x.nowMs >= asked &+ x.config.vicinityTimeoutMs else { return [] }
        h.askedMs = nil
        h.misses += 1
        peers[hopAsk: p] = h.misses < x.config.vicinityMisses ? h : nil
        return h.misses >= x.config.vicinityMisses ? [.silence(p)] : []
    }

    /// A fence we need a contact in and have none: a request towards it, through the known
    /// peer nearest to it (the next hop), with the fence's centre as `target`.
    func seek(_ fence: Geofence, peers: inout PeerTable, _ x: VicinityInputs) -> [VicinityAction] {
        guard Self.remoteContacts(inside: fence, peers: peers, ours: x.info).isEmpty else { return [] }
        var best: (Double, PeerAddress)?
        func consider(_ p: PeerAddress, _ cell: String?) {
            // Not through a peer that leaves our exchanges or rounds unanswered, nor one
            // whose answer to our last request is still due.
            guard peers.muted[p] == nil, peers.answersRounds(p), peers.remoteHops[p]?.askedMs == nil, let c = NodeInfo.decode(cell)
            else { return }
            let d = c.center.distance(to: fence.center)
            if best.map({ d < $0.0 || (d == $0.0 && p < $0.1) }) ?? true { best = (d, p) }
        }
        for (p, st) in peers.active { consider(p, st.info.cell) }
        for (p, e) in peers.vicinity { consider(p, e.info.cell) }
        for (p, c) in peers.passive { consider(p, c) }
        guard let (_, hop) = best else { return [] }
        let m = x.message(
            for: Geohash.decode(cellOf: fence.center), to: hop, reply: false, targetCell: Geohash.encode(fence.center, precision: 7),
            peers: peers)
        peers.noteHopAsked(hop, nowMs: x.nowMs, capacity: GossipEngine.remoteHopCapacity)
        return [.send(m, to: hop)]
    }
}

extension PeerTable {
    /// A link counts as a contact while it left fewer than `contactMisses` of our
    /// reconciliation rounds in a row unanswered (§11).
    func answersRounds(_ p: PeerAddress) -> Bool { (reconMisses[p] ?? 0) < GossipEngine.contactMisses }
}

extension GossipEngine {
    /// The remote round: the fences needing a contact noted, then each contact and each hop
    /// checked and each such fence sought (`Vicinity.checkContact`, `checkHop`, `seek`).
    mutating func remoteRound(nowMs: UInt64, replica: Replica, into out: inout [GossipDirective]) {
        vicinity.farFences = fencesNeedingContact(replica, nowMs: nowMs)
        let x = vicinityInputs(nowMs)
        for p in peers.remote.keys.sorted() { carry(vicinity.checkContact(p, peers: &peers, x), nowMs: nowMs, into: &out) }
        for p in peers.remoteHops.keys.sorted() { carry(vicinity.checkHop(p, peers: &peers, x), nowMs: nowMs, into: &out) }
        for fence in vicinity.farFences { carry(vicinity.seek(fence, peers: &peers, x), nowMs: nowMs, into: &out) }
    }

    /// The fences we need a remote contact inside: those of live, unlocked packs we subscribed
    /// to and stand outside of, and those of live packs we stand inside of with no active or
    /// vicinity link inside that is nearer to the centre than we are (`inward`; remote
    /// contacts do not count, or a contact would end its own need).
    mutating func fencesNeedingContact(_ replica: Replica, nowMs: UInt64) -> [Geofence] {
        // A link that never took part in reconciliation, or leaves our rounds unanswered (a
        // liar claiming a cell inside the fence, a silent dropper), is no contact there.
        var near: [(PeerAddress, Geohash.Cell)] = []
        peers.walk(.active) { p, r in if isContact(p), let c = r.place(as: .active) { near.append((p, c)) } }
        peers.walk(.vicinity) { p, r in
            if (r.vicinityHeardMs ?? 0) > 0 && isContact(p), let c = r.place(as: .vicinity) { near.append((p, c)) }
        }
        // `inside[i]`: our cell lies inside the fence of `live[i]` (cached; false without a cell).
        let (live, inside) = spread.packViews.liveScopes(replica, nowMs: nowMs, inside: info.place)
        return live.indices.compactMap { i in
            let s = live[i]
            guard let f = s.fence else { return nil }
            guard inside[i] else {
                return !s.locked && info.subscribed(s.id) ? f : nil
            }
            return near.contains { Self.inward($0.1, of: $0.0, than: info.place, of: selfAddress, in: f) } ? nil : f
        }
    }

    /// Is a link `p` in cell `cell` inside `fence` and nearer to its centre than we are (ties
    /// broken by address, so that one member of a fence, the nearest, has no inward link)?
    /// Each distance is the one `Geofence.contains(cell:)` measures.
    static func inward(
        _ cell: Geohash.Cell, of p: PeerAddress, than me: Geohash.Cell?, of myAddress: PeerAddress?, in fence: Geofence
    ) -> Bool {
        guard let me else { return false }
        let theirs = fence.center.distance(to: cell.center)
        guard theirs + cell.radiusMeters <= fence.radiusMeters else { return false }
        let mine = fence.center.distance(to: me.center)
        if theirs != mine { return theirs < mine }
        return myAddress.map { p < $0 } ?? false
    }

    /// A link counts as a contact inside a fence it claims to stand in once it has sent us a
    /// reconciliation message (an honest link does within a round or two: the directory is
    /// reconciled with every new link at once), and while it answers our rounds. A peer that
    /// only pings, joins and claims a cell (`hostile.toml`'s liars, asked too rarely to reach
    /// `contactMisses`) kept an edge node from searching for an honest member (hostile seed 6).
    func isContact(_ p: PeerAddress) -> Bool { peers.reconMisses[p].map { $0 < Self.contactMisses } ?? false }
}
