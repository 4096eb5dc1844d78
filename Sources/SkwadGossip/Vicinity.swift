import SkwadModel
import SkwadReplica

/// The vicinity view (Voulgaris, van Steen, "Epidemic-style management of semantic overlays
/// for content-based searching", Euro-Par 2005; Jelasity, Babaoglu, "T-Man", 2005): besides
/// the random HyParView views, each node keeps the `vicinitySize` nearest peers it has heard
/// of, by distance between cell centres, and refines them by exchanging with its oldest
/// entry the peers nearest to *that* peer. Nearby peers are the ones that share geofenced
/// packs, so the vicinity links keep every fence's members connected where a random overlay
/// of five links would not (PROTOCOL.md §9).
struct VicinityEntry: Sendable {
    var info: NodeInfo
    /// Metres from our cell's centre to its.
    var distance: Double
    /// When it last spoke to us directly (0: only heard of).
    var lastHeardMs: UInt64
    /// An exchange with it is under way since then.
    var askedMs: UInt64?
    /// Exchanges in a row it left unanswered (a lossy network loses some of both halves).
    var misses = 0
    /// When it last sent us a `Vicinity` message (0: never; other traffic does not count).
    var exchangedMs: UInt64 = 0
}

/// A remote-contact request routed through a peer (§9): when it left, and how many in a row
/// it left unanswered.
struct HopAsk: Sendable {
    var askedMs: UInt64?
    var misses = 0
}

extension GossipEngine {
    public var vicinityPeers: [PeerAddress] { peers.vicinity.keys.sorted() }

    /// The links ops travel on (`PeerTable.links`).
    var links: [PeerAddress] { peers.links }
    func isLink(_ p: PeerAddress) -> Bool { peers.isLink(p) }
    func peerInfo(_ p: PeerAddress) -> NodeInfo? { peers.info(of: p) }

    /// A peer spoke to us directly (`heard`, with its own info) or was named by another
    /// (cell only): keep it if it is among the nearest. Only a `Vicinity` message from it
    /// (`answered`) settles an exchange we asked it for, or lets it back in once muted
    /// (PeerTable): a peer that pings, joins or sends interest but never answers an exchange
    /// is dropped after `vicinityMisses`, however chatty.
    mutating func offerVicinity(_ peer: PeerAddress, info peerInfo: NodeInfo, heard: Bool, answered: Bool = false, nowMs: UInt64) {
        guard peer != selfAddress, peerInfo.place != nil, info.place != nil else { return }
        if var e = peers.vicinity[peer] {
            guard heard else { return }
            // A peer that takes us for a stranger tells us a coarse cell: keep the finer one.
            if !Self.isCoarse(peerInfo.cell) || Self.isCoarse(e.info.cell) {
                e.info = peerInfo
                e.distance = info.distance(to: peerInfo.place)
            }
            e.lastHeardMs = nowMs
            if answered { e.askedMs = nil; e.misses = 0; e.exchangedMs = nowMs }
            peers[vicinity: peer] = e
            return
        }
        // A cell no finer than a stranger's (a declining `NeighborReply`, a shuffle answer to
        // a stranger) places nobody among our nearest.
        guard !Self.isCoarse(peerInfo.cell) else { return }
        peers.offerVicinity(
            peer,
            VicinityEntry(
                info: peerInfo, distance: info.distance(to: peerInfo.place), lastHeardMs: heard ? nowMs : 0,
                exchangedMs: answered ? nowMs : 0),
            answered: answered)
    }

    /// Our own cell changed: distances change with it.
    mutating func remeasureVicinity() {
        let me = info
        peers.remeasureVicinity { me.distance(to: $0.place) }
    }

    /// Up to `limit` (default `vicinitySample`) peers we know (vicinity, active, inbound), nearest to
    /// `target` first, with cells no finer than our own announced cell. A muted peer (one
    /// that left our vicinity exchanges unanswered) is not passed on, even as an active member.
    /// Entries not yet heard from are passed on too: passing on only those that had exchanged
    /// with us would slow full coverage.
    func vicinitySample(for target: Geohash.Cell?, excluding: PeerAddress, limit: Int? = nil) -> [PeerRef] {
        guard let target else { return [] }
        // Each candidate's distance, and the role whose cell it is named with (read in place,
        // without copying the entries of three views).
        typealias Field = PeerTable.Field
        var known: [(Double, PeerAddress, Field)] = []
        peers.walk(.vicinity) { p, r in
            if p != excluding, let pl = r.place(as: .vicinity) { known.append((pl.center.distance(to: target.center), p, .vicinity)) }
        }
        peers.walk(.active) { p, r in
            guard p != excluding, !r.holdsAny(Field.vicinity.bit | Field.muted.bit) else { return }
            if let pl = r.place(as: .active) { known.append((pl.center.distance(to: target.center), p, .active)) }
        }
        // Inbound peers count us among their nearest, so they stand near us, but we may not
        // count them among ours (a sparse side of a density edge, such as a fence's rim next
        // to a campus): introduce them too, or two peers that share every neighbour but
        // stand nearer to each other than to any of them never hear of each other (§9).
        peers.walk(.inbound) { p, r in
            guard p != excluding, !r.holdsAny(Field.active.bit | Field.vicinity.bit | Field.remote.bit) else { return }
            // Not one that told us only a stranger's cell (a directory pull before it held us proven).
            if let c = r.cell(as: .inbound), !Self.isCoarse(c), let pl = r.place(as: .inbound) {
                known.append((pl.center.distance(to: target.center), p, .inbound))
            }
        }
        known.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
        let precision = info.cell?.count ?? 6
        // At most half of the sample are peers that never proved their cell to us: liars
        // claiming the target's cell (a fence's centre), named to us by others, filled every answer.
        let count = limit ?? config.membership.vicinitySample
        var names = 0, sample: [PeerRef] = []
        for k in known where sample.count < count {
            // Always there: an entry is known above only with a place, decoded from its cell.
            guard let cell = peers.cell(of: k.1, as: k.2) else { continue }
            if !provedPlace(k.1) {
                guard names < (count + 1) / 2 else { continue }
                names += 1
            }
            sample.append(PeerRef(address: k.1, cell: String(cell.prefix(precision))))
        }
        return sample
    }

    /// A peer has shown it takes part in the protocol near its cell: it exchanged vicinity
    /// with us, asked us for it (inbound), or reconciled with us.
    func provedPlace(_ p: PeerAddress) -> Bool {
        if let e = peers.vicinity[p] { return e.exchangedMs > 0 }
        return peers.inbound[p] != nil || peers.reconMisses[p] != nil
    }

    /// A `Vicinity` message to `to`: the peers near `target` to a proven peer, nobody to a
    /// stranger (`send` cuts our own info for it, NeedToKnow.swift).
    func vicinityMessage(for target: Geohash.Cell?, to: PeerAddress, reply: Bool, targetCell: String? = nil) -> Message {
        let named = isProven(to) ? vicinitySample(for: target, excluding: to) : []
        return .vicinity(VicinityExchange(info: info, peers: named, reply: reply, target: targetCell))
    }

    /// Once per interval: drop the peer that did not answer our last exchange, then start an
    /// exchange with the entry that has never exchanged with us (the nearest first), else
    /// with the one that exchanged least recently. Other traffic does not count: a peer that
    /// pings or sends interest but never answers an exchange is asked first, not last (it
    /// was never asked: its traffic kept it "recently heard").
    mutating func vicinityRound(nowMs: UInt64, into out: inout [GossipDirective]) {
        for p in peers.vicinity.keys.sorted() {
            guard var e = peers.vicinity[p], let asked = e.askedMs, nowMs >= asked + config.membership.vicinityTimeoutMs else { continue }
            if e.misses + 1 < config.membership.vicinityMisses {
                // Ask again before giving up.
                e.misses += 1
                e.askedMs = nowMs
                peers[vicinity: p] = e
                send(vicinityMessage(for: e.info.place, to: p, reply: false), to: p, nowMs: nowMs, into: &out)
                continue
            }
            forget(p, .silent, nowMs: nowMs, into: &out)
        }
        // Never exchanged with first, the nearest first among those (the nearest are the ones
        // most likely to share our fences); then the one exchanged with least recently.
        // After `nameFailuresForTurns` names in a row were dropped unanswered, every other
        // round is a cautious one: it asks a peer that spoke to us (never exchanged first, then
        // least recently) before any name. Names in a suspect cell (PeerTable) come after
        // names elsewhere. Liars claiming an eclipse target's own cell, passed on by its
        // honest neighbours, took every round one after another (each failed, was muted, the
        // next took its place), and a member inside a locked fence never met another member
        // (hostile seed 8). Where names answer (an honest network, even a lossy one: two
        // failures in a row are rare) the order is the first one.
        // (Always taking turns between peers that spoke and names, or holding back names while
        // one is unanswered, would slow full coverage where names do answer.)
        var cautious = false
        if membership.vicinityNameFailures >= Self.nameFailuresForTurns {
            membership.vicinityCautiousTurn.toggle()
            cautious = membership.vicinityCautiousTurn
        }
        guard
            let (peer, entry) = peers.vicinity.filter({ $0.value.askedMs == nil })
                .min(by: { a, b in
                    if cautious && (a.value.lastHeardMs == 0) != (b.value.lastHeardMs == 0) { return a.value.lastHeardMs > 0 }
                    if a.value.exchangedMs != b.value.exchangedMs { return a.value.exchangedMs < b.value.exchangedMs }
                    if a.value.exchangedMs == 0 {
                        let sa = peers.isSuspectName(a.value), sb = peers.isSuspectName(b.value)
                        if sa != sb { return sb }
                        if a.value.distance != b.value.distance { return a.value.distance < b.value.distance }
                    }
                    return a.key < b.key
                })
        else { return }
        peers[vicinity: peer]?.askedMs = nowMs
        send(vicinityMessage(for: entry.info.place, to: peer, reply: false), to: peer, nowMs: nowMs, into: &out)
    }

    /// A vicinity entry asked before it had ever exchanged with us was dropped unanswered:
    /// one more name failure in a row (`membership.vicinityNameFailures`, reset when such an entry
    /// answers), and one more against the cell it claimed (`PeerTable.suspect`).
    mutating func nameFailed(_ e: VicinityEntry, nowMs: UInt64) {
        membership.vicinityNameFailures = min(membership.vicinityNameFailures + 1, 1000)
        if let c = e.info.cell { peers.suspect(cell: c, nowMs: nowMs) }
    }

    /// A `Vicinity` message. Only a proven peer (NeedToKnow.swift) is placed by the cell it
    /// claims: offered to our vicinity, remembered as inbound, taken as a remote contact; a
    /// stranger's message only settles an exchange we asked it for. Names with cells no finer
    /// than a stranger's place nobody.
    mutating func onVicinity(_ v: VicinityExchange, from: PeerAddress, nowMs: UInt64, replica: Replica, into out: inout [GossipDirective]) {
        let proven = isProven(from)
        let theirs = sharpened(v.info, of: from)
        let placed = proven && !Self.isCoarse(theirs.cell)
        peers[hopAsk: from] = nil
        if let e = peers.vicinity[from], e.askedMs != nil, e.exchangedMs == 0 {
            membership.vicinityNameFailures = 0
            if let c = e.info.cell { peers.clearSuspect(cell: c) }
        }
        if placed {
            peers[active: from]?.info = theirs
            offerVicinity(from, info: theirs, heard: true, answered: true, nowMs: nowMs)
            if !isLink(from) { peers.rememberInbound(from, info: theirs, nowMs: nowMs) }
            offerRemote(from, info: theirs, nowMs: nowMs)
        } else if let known = peers.vicinity[from]?.info {
            offerVicinity(from, info: known, heard: true, answered: true, nowMs: nowMs)
        }
        for p in v.peers.prefix(config.membership.vicinitySample * 2) {
            guard let cell = p.cell, !Self.isCoarse(cell) else { continue }
            offerVicinity(p.address, info: NodeInfo(cell: cell), heard: false, nowMs: nowMs)
            offerRemote(p.address, info: NodeInfo(cell: cell), nowMs: nowMs)
        }
        guard !v.reply else { return }
        // Walking `target` is bounded per network group, for every peer but an active member.
        var target = v.target
        if let t = target, peers.active[from] == nil, !membership.strangerBudget.mayWalk(group: from.netgroup, target: t, nowMs: nowMs) {
            stats.drop(.vicinityLimited)
            target = nil
        }
        if proven {
            let near = target.map { NodeInfo.decode($0) } ?? theirs.place
            send(vicinityMessage(for: near, to: from, reply: true), to: from, nowMs: nowMs, into: &out)
        } else {
            send(.vicinity(strangerAnswer(target: target, from: from, nowMs: nowMs, replica: replica)), to: from, nowMs: nowMs, into: &out)
        }
    }
}

extension GossipEngine {
    /// Every `reviveIntervalMs`: forget peers dead for longer than `deadForgetMs`, and send a
    /// vicinity request to one random other that once answered us. A partition's two sides each give up on the
    /// other; whichever of these requests crosses after the heal reconnects them.
    mutating func reviveRound(nowMs: UInt64, into out: inout [GossipDirective]) {
        peers.expireDead(nowMs: nowMs, forgetMs: config.membership.deadForgetMs)
        // Only peers that once answered: asking an address that never did (behind a NAT that
        // lets in only replies) cost a handshake, 800 bytes, every 5 s for 10 minutes.
        let answered = peers.dead.filter { !$0.value.unanswered }.map(\.key).sorted()
        guard let peer = answered.randomElement(using: &rng), !isLink(peer) else { return }
        send(vicinityMessage(for: NodeInfo.decode(peers.dead[peer]?.cell), to: peer, reply: false), to: peer, nowMs: nowMs, into: &out)
    }
}

/// Remote contacts: a node that follows an unlocked pack from outside its fence needs a peer
/// inside it, and so does a node inside a fence none of whose active or vicinity links inside
/// it stands nearer to the fence's centre than itself. Each round it routes a `Vicinity`
/// request with the fence's centre as `target` greedily towards the fence (to the known peer
/// nearest to it); answers name peers nearer still, and those inside the fence become links of
/// ours (PROTOCOL §9). Inside its own fence a node takes only contacts nearer the centre than
/// itself, so each member but the innermost is linked to one nearer the centre, and a pack's
/// overlay is one piece.
extension GossipEngine {
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

    /// Our remote contacts that count inside `fence` (`countsAsContact`), sorted.
    func remoteContacts(inside fence: Geofence) -> [PeerAddress] {
        peers.remote.compactMap { p, e in e.info.place.map { countsAsContact($0, of: p, in: fence) } == true ? p : nil }.sorted()
    }

    /// Can a peer `p` in `cell` be our remote contact for `fence`? For a fence we stand
    /// outside: if its cell lies inside. For one we stand inside: only if it is `inward` of
    /// us, so that following contacts and inward links from any member ends at the one member
    /// nearest the centre, and the members' overlay is one piece (PROTOCOL §9).
    func countsAsContact(_ cell: Geohash.Cell, of p: PeerAddress, in fence: Geofence) -> Bool {
        guard let mine = info.place, fence.contains(cell: mine) else { return fence.contains(cell: cell) }
        return Self.inward(cell, of: p, than: mine, of: selfAddress, in: fence)
    }

    /// A link counts as a contact while it left fewer than `contactMisses` of our
    /// reconciliation rounds in a row unanswered (§11).
    func answers(_ p: PeerAddress) -> Bool { (peers.reconMisses[p] ?? 0) < Self.contactMisses }

    /// A link counts as a contact inside a fence it claims to stand in once it has sent us a
    /// reconciliation message (an honest link does within a round or two: the directory is
    /// reconciled with every new link at once), and while it `answers`. A peer that only
    /// pings, joins and claims a cell (`hostile.toml`'s liars, asked too rarely to reach
    /// `contactMisses`) kept an edge node from searching for an honest member (hostile seed 6).
    func isContact(_ p: PeerAddress) -> Bool { peers.reconMisses[p].map { $0 < Self.contactMisses } ?? false }

    /// A peer we heard of: keep it if it can be our contact (`countsAsContact`) for a fence we
    /// need one in; else, if it is nearer to such a fence than we are, keep it as a passive
    /// peer (the next hop). A muted peer is neither.
    mutating func offerRemote(_ peer: PeerAddress, info peerInfo: NodeInfo, nowMs: UInt64) {
        guard !membership.farFences.isEmpty, peer != selfAddress, peers.muted[peer] == nil, let place = peerInfo.place else { return }
        let containing = membership.farFences.filter { countsAsContact(place, of: peer, in: $0) }
        if !containing.isEmpty {
            // Up to `remotePerFence` contacts inside each such fence.
            let wanted = containing.contains { f in
                remoteContacts(inside: f).count < config.membership.remotePerFence
            }
            if peers.remote[peer] == nil && wanted {
                peers.addRemote(peer, VicinityEntry(info: peerInfo, distance: 0, lastHeardMs: nowMs))
                // A new link: its directory is pulled at the next tick (§11a). It is a link
                // before it speaks to us, so `handle` does not see it come up.
                directoryOnNewLink(peer)
            }
        } else if peers.active[peer] == nil, peers.vicinity[peer] == nil,
            membership.farFences.contains(where: { f in
                place.center.distance(to: f.center) < info.distance(to: Geohash.decode(cellOf: f.center))
            })
        {
            addPassive(peer, cell: peerInfo.cell, nowMs: nowMs)
        }
    }

    mutating func remoteRound(nowMs: UInt64, replica: Replica, into out: inout [GossipDirective]) {
        membership.farFences = fencesNeedingContact(replica, nowMs: nowMs)
        for p in peers.remote.keys.sorted() {
            guard let place = peers.remote[p]!.info.place, membership.farFences.contains(where: { countsAsContact(place, of: p, in: $0) })
            else {
                peers.removeRemote(p)
                continue
            }
            // A contact that leaves our reconciliations unanswered (a liar claiming a cell
            // near the centre, which every member inside would take: it is inward of them
            // all) is dropped and muted, and the search goes on.
            if !answers(p) { silence(p, nowMs: nowMs, into: &out) }
        }
        // A hop that left a request unanswered (a liar named at the fence's centre never
        // answers: the greedy search asked it every round, hostile seed 6) is asked again at
        // most `vicinityMisses` times in all, then silenced like a vicinity entry.
        for p in peers.remoteHops.keys.sorted() {
            guard var h = peers.remoteHops[p], let asked = h.askedMs, nowMs >= asked &+ config.membership.vicinityTimeoutMs else {
                continue
            }
            h.askedMs = nil
            h.misses += 1
            peers[hopAsk: p] = h.misses < config.membership.vicinityMisses ? h : nil
            if h.misses >= config.membership.vicinityMisses { silence(p, nowMs: nowMs, into: &out) }
        }
        for fence in membership.farFences {
            guard remoteContacts(inside: fence).isEmpty else { continue }
            // The known peer nearest to the fence: the next hop towards it.
            var best: (Double, PeerAddress)?
            func consider(_ p: PeerAddress, _ cell: String?) {
                // Not through a peer that leaves our exchanges or rounds unanswered, nor one
                // whose answer to our last request is still due.
                guard peers.muted[p] == nil, answers(p), peers.remoteHops[p]?.askedMs == nil, let c = NodeInfo.decode(cell) else { return }
                let d = c.center.distance(to: fence.center)
                if best.map({ d < $0.0 || (d == $0.0 && p < $0.1) }) ?? true { best = (d, p) }
            }
            for (p, st) in peers.active { consider(p, st.info.cell) }
            for (p, e) in peers.vicinity { consider(p, e.info.cell) }
            for (p, c) in peers.passive { consider(p, c) }
            guard let (_, hop) = best else { continue }
            let m = vicinityMessage(
                for: Geohash.decode(cellOf: fence.center), to: hop, reply: false,
                targetCell: Geohash.encode(fence.center, precision: 7))
            peers.noteHopAsked(hop, nowMs: nowMs, capacity: Self.remoteHopCapacity)
            send(m, to: hop, nowMs: nowMs, into: &out)
        }
    }
}

extension Geohash {
    /// The precision-7 cell around a point.
    static func decode(cellOf p: GeoPoint) -> Geohash.Cell? { try? Geohash.decode(Geohash.encode(p, precision: 7)) }
}
