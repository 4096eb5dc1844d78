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
}

extension GossipEngine {
    public var vicinityPeers: [PeerAddress] { vicinity.keys.sorted() }

    /// Active members and vicinity members, each once, sorted: the links ops travel on. A
    /// vicinity entry only heard of (named by others, with a cell they claimed) is not a
    /// link until it has spoken to us: learned addresses are verified before use.
    var links: [PeerAddress] {
        var all = Array(active.keys)
        for (p, e) in vicinity where active[p] == nil && e.lastHeardMs > 0 { all.append(p) }
        for p in remote.keys where active[p] == nil && vicinity[p] == nil { all.append(p) }
        return all.sorted()
    }

    func isLink(_ p: PeerAddress) -> Bool { active[p] != nil || vicinity[p] != nil || remote[p] != nil }
    func peerInfo(_ p: PeerAddress) -> NodeInfo? { active[p]?.info ?? vicinity[p]?.info ?? remote[p]?.info ?? inbound[p]?.info }

    /// A peer spoke to us directly (`heard`, with its own info) or was named by another
    /// (cell only): keep it if it is among the nearest.
    mutating func offerVicinity(_ peer: PeerAddress, info peerInfo: NodeInfo, heard: Bool, nowMs: UInt64) {
        guard peer != selfAddress, peerInfo.place != nil, info.place != nil else { return }
        if var e = vicinity[peer] {
            guard heard else { return }
            e.info = peerInfo
            e.distance = info.distance(to: peerInfo.place)
            e.lastHeardMs = nowMs
            e.askedMs = nil
            e.misses = 0
            vicinity[peer] = e
            return
        }
        let d = info.distance(to: peerInfo.place)
        if vicinity.count >= config.vicinitySize {
            guard let (far, entry) = vicinity.max(by: { a, b in a.value.distance != b.value.distance ? a.value.distance < b.value.distance : a.key < b.key }),
                  d < entry.distance || (d == entry.distance && peer < far) else { return }
            vicinity[far] = nil
        }
        vicinity[peer] = VicinityEntry(info: peerInfo, distance: d, lastHeardMs: heard ? nowMs : 0)
    }

    /// Our own cell changed: distances change with it.
    mutating func remeasureVicinity() {
        for k in vicinity.keys { vicinity[k]!.distance = info.distance(to: vicinity[k]!.info.place) }
    }

    /// Up to `limit` (default `vicinitySample`) peers we know (vicinity and active), nearest to
    /// `target` first, with cells no finer than our own announced cell.
    func vicinitySample(for target: Geohash.Cell?, excluding: PeerAddress, limit: Int? = nil) -> [Skwad_Gossip_V1_Peer] {
        guard let target else { return [] }
        var known: [(Double, PeerAddress, String)] = []
        for (p, e) in vicinity where p != excluding { if let c = e.info.cell, let pl = e.info.place { known.append((pl.center.distance(to: target.center), p, c)) } }
        for (p, st) in active where p != excluding && vicinity[p] == nil {
            if let c = st.info.cell, let pl = st.info.place { known.append((pl.center.distance(to: target.center), p, c)) }
        }
        known.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
        let precision = info.cell?.count ?? 6
        return known.prefix(limit ?? config.vicinitySample).map { peerWire($0.1, cell: String($0.2.prefix(precision))) }
    }

    func vicinityMessage(for target: Geohash.Cell?, excluding: PeerAddress, reply: Bool, limit: Int? = nil) -> WireMessage {
        var m = WireMessage(); var v = Skwad_Gossip_V1_Vicinity()
        v.info = info.wire; v.peers = vicinitySample(for: target, excluding: excluding, limit: limit); v.reply = reply
        m.vicinity = v
        return m
    }

    /// Once per interval: drop the peer that did not answer our last exchange, then start an
    /// exchange with the entry we heard from least recently.
    mutating func vicinityRound(nowMs: UInt64, into out: inout [GossipDirective]) {
        for p in vicinity.keys.sorted() {
            guard let e = vicinity[p], let asked = e.askedMs, nowMs >= asked + config.vicinityTimeoutMs else { continue }
            if e.misses + 1 < config.vicinityMisses {
                // Ask again before giving up.
                vicinity[p]!.misses += 1
                vicinity[p]!.askedMs = nowMs
                send(vicinityMessage(for: e.info.place, excluding: p, reply: false), to: p, nowMs: nowMs, into: &out)
                continue
            }
            giveUp(p, .silent, cell: e.info.cell, nowMs: nowMs, into: &out)
        }
        guard let (peer, entry) = vicinity.filter({ $0.value.askedMs == nil })
            .min(by: { a, b in a.value.lastHeardMs != b.value.lastHeardMs ? a.value.lastHeardMs < b.value.lastHeardMs : a.key < b.key })
        else { return }
        vicinity[peer]!.askedMs = nowMs
        send(vicinityMessage(for: entry.info.place, excluding: peer, reply: false), to: peer, nowMs: nowMs, into: &out)
    }

    mutating func receiveVicinity(_ v: Skwad_Gossip_V1_Vicinity, from: PeerAddress, nowMs: UInt64, into out: inout [GossipDirective]) {
        let wasLink = isLink(from)
        let theirs = NodeInfo(wire: v.info)
        if active[from] != nil { active[from]!.info = theirs }
        offerVicinity(from, info: theirs, heard: true, nowMs: nowMs)
        if !isLink(from) { rememberInbound(from, info: theirs, nowMs: nowMs) }
        offerRemote(from, info: theirs, nowMs: nowMs)
        for p in v.peers.prefix(config.vicinitySample * 2) where !p.address.isEmpty && !p.cell.isEmpty {
            offerVicinity(PeerAddress(p.address), info: NodeInfo(cell: p.cell), heard: false, nowMs: nowMs)
            offerRemote(PeerAddress(p.address), info: NodeInfo(cell: p.cell), nowMs: nowMs)
        }
        if !v.reply {
            // Need to know: a stranger (not among our links before this exchange) learns at
            // most `strangerVicinitySample` peers, enough to route on, not to map a city.
            let target = v.target.isEmpty ? theirs.place : NodeInfo.decode(v.target)
            let limit = wasLink ? config.vicinitySample : config.strangerVicinitySample
            send(vicinityMessage(for: target, excluding: from, reply: true, limit: limit), to: from, nowMs: nowMs, into: &out)
        }
    }
}

extension GossipEngine {
    /// Remembers a peer we gave up on (the first time only: retries do not renew it).
    mutating func markDead(_ peer: PeerAddress, cell: String?, nowMs: UInt64) {
        guard dead[peer] == nil, peer != selfAddress else { return }
        if dead.count >= config.deadMemory,
           let oldest = dead.min(by: { a, b in a.value.sinceMs != b.value.sinceMs ? a.value.sinceMs < b.value.sinceMs : a.key < b.key }) {
            dead[oldest.key] = nil
        }
        dead[peer] = (cell, nowMs)
    }

    /// Every `reviveIntervalMs`: forget peers dead for longer than `deadForgetMs`, and send a
    /// vicinity request to one random other. A partition's two sides each give up on the
    /// other; whichever of these requests crosses after the heal reconnects them.
    mutating func reviveRound(nowMs: UInt64, into out: inout [GossipDirective]) {
        for (p, d) in dead where nowMs >= d.sinceMs + config.deadForgetMs { dead[p] = nil }
        guard let peer = dead.keys.sorted().randomElement(using: &rng), !isLink(peer) else { return }
        send(vicinityMessage(for: NodeInfo.decode(dead[peer]?.cell), excluding: peer, reply: false), to: peer, nowMs: nowMs, into: &out)
    }

    /// A peer we had given up on spoke: it is back (as a passive peer, and offered to the vicinity).
    mutating func revived(_ peer: PeerAddress, nowMs: UInt64) {
        guard let d = dead.removeValue(forKey: peer) else { return }
        if active[peer] == nil { addPassive(peer, cell: d.cell, nowMs: nowMs) }
    }
}

extension GossipEngine {
    /// Keeps the info of a peer that counts us among its nearest but is not among ours
    /// (bounded: the least recently heard goes first).
    mutating func rememberInbound(_ peer: PeerAddress, info peerInfo: NodeInfo, nowMs: UInt64) {
        if inbound[peer] == nil && inbound.count >= config.inboundMemory,
           let oldest = inbound.min(by: { a, b in a.value.heardMs != b.value.heardMs ? a.value.heardMs < b.value.heardMs : a.key < b.key }) {
            inbound[oldest.key] = nil
        }
        inbound[peer] = (peerInfo, nowMs)
    }
}

/// Remote contacts: a node that follows an unlocked pack from outside its fence needs a peer
/// inside it. Each round it routes a `Vicinity` request with the fence's centre as `target`
/// greedily towards the fence (to the known peer nearest to it); answers name peers nearer
/// still, and those inside the fence become links of ours (PROTOCOL §9).
extension GossipEngine {
    /// The fences of live, unlocked packs we subscribed to and stand outside of.
    func fencesFollowedFromAfar(_ replica: Replica, nowMs: UInt64) -> [Geofence] {
        replica.liveScopes(nowMs: nowMs).compactMap { s in
            guard let f = s.fence, !s.locked, info.subscribed(s.id), !(info.place.map { f.contains(cell: $0) } ?? false) else { return nil }
            return f
        }
    }

    /// A peer we heard of: keep it if it is inside a fence we follow from afar; else, if it
    /// is nearer to such a fence than we are, keep it as a passive peer (the next hop).
    mutating func offerRemote(_ peer: PeerAddress, info peerInfo: NodeInfo, nowMs: UInt64) {
        guard !farFences.isEmpty, peer != selfAddress, let place = peerInfo.place else { return }
        let containing = farFences.filter { $0.contains(cell: place) }
        if !containing.isEmpty {
            // Up to `remotePerFence` contacts inside each such fence.
            let wanted = containing.contains { f in
                remote.values.filter { e in e.info.place.map { f.contains(cell: $0) } ?? false }.count < config.remotePerFence
            }
            if remote[peer] == nil && wanted {
                remote[peer] = VicinityEntry(info: peerInfo, distance: 0, lastHeardMs: nowMs)
            }
        } else if active[peer] == nil, vicinity[peer] == nil,
                  farFences.contains(where: { f in place.center.distance(to: f.center) < info.distance(to: Geohash.decode(cellOf: f.center)) }) {
            addPassive(peer, cell: peerInfo.cell, nowMs: nowMs)
        }
    }

    mutating func remoteRound(nowMs: UInt64, replica: Replica, into out: inout [GossipDirective]) {
        farFences = fencesFollowedFromAfar(replica, nowMs: nowMs)
        for p in remote.keys.sorted() {
            guard let place = remote[p]!.info.place, farFences.contains(where: { $0.contains(cell: place) }) else { remote[p] = nil; continue }
        }
        for fence in farFences {
            guard !remote.values.contains(where: { e in e.info.place.map { fence.contains(cell: $0) } ?? false }) else { continue }
            // The known peer nearest to the fence: the next hop towards it.
            var best: (Double, PeerAddress)?
            func consider(_ p: PeerAddress, _ cell: String?) {
                guard let c = NodeInfo.decode(cell) else { return }
                let d = c.center.distance(to: fence.center)
                if best.map({ d < $0.0 || (d == $0.0 && p < $0.1) }) ?? true { best = (d, p) }
            }
            for (p, st) in active { consider(p, st.info.cell) }
            for (p, e) in vicinity { consider(p, e.info.cell) }
            for (p, c) in passive { consider(p, c) }
            guard let (_, hop) = best else { continue }
            var m = vicinityMessage(for: Geohash.decode(cellOf: fence.center), excluding: hop, reply: false)
            m.vicinity.target = Geohash.encode(fence.center, precision: 7)
            send(m, to: hop, nowMs: nowMs, into: &out)
        }
    }
}

extension Geohash {
    /// The precision-7 cell around a point.
    static func decode(cellOf p: GeoPoint) -> Geohash.Cell? { try? Geohash.decode(Geohash.encode(p, precision: 7)) }
}
