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

/// The vicinity part: exchanges with the nearest peers, and remote contacts inside the fences
/// we need one in (RemoteContacts.swift). Its entries, hops and contacts are roles in the peer
/// table; it holds what is not about one peer: the name failures in a row, the fences needing
/// a contact, and what each network group may still ask of us.
///
/// Its inputs change the peer table they are handed and return `VicinityAction`s, which the
/// engine carries out in order. A round hands it one entry (or contact, or hop) at a time and
/// carries out that one's actions before the next: a peer given up on is forgotten in every
/// part, which counts its name failure here, before the round's ask is chosen.
struct Vicinity: Sendable {
    /// Vicinity entries asked before they had ever exchanged with us and dropped unanswered,
    /// in a row (reset when such an entry answers): from `nameFailuresForTurns` on, vicinity
    /// rounds take turns (`cautiousTurn`) between names and peers that spoke to us.
    var nameFailures = 0
    var cautiousTurn = false
    /// The fences of packs we follow from outside, or stand inside with no link nearer the
    /// centre, as of the last remote round (§9).
    var farFences: [Geofence] = []
    /// What each network group may still ask of our vicinity (NeedToKnow.swift).
    var strangerBudget = StrangerBudget()
}

/// Its exchanges run with the rounds (`Round.vicinity`, `.remote`); no prompt work of its own.
extension Vicinity: TimedPart {}

extension Vicinity: PeerState {
    /// Nothing by address: its budgets are per network group, its fences are places.
    mutating func forget(_ peer: PeerAddress) {}
}

/// What the vicinity part asks of the engine, in order.
enum VicinityAction {
    /// A message to a peer, sealed and sent by the engine.
    case send(Message, to: PeerAddress)
    /// An entry that left our exchanges unanswered: given up on (`GossipEngine.forget`, `.silent`).
    case forget(PeerAddress)
    /// A contact or hop that left our requests unanswered: given up on and muted (`silence`).
    case silence(PeerAddress)
    /// A peer nearer than us to a fence we need a contact in: a passive peer (the next hop).
    case passive(PeerAddress, cell: String?)
    /// A new remote contact: a new link, whose directory is pulled at the next tick (§11a).
    case newLink(PeerAddress)
}

/// What the vicinity part reads of the engine besides the peer table.
struct VicinityInputs {
    /// Our own info (our cell).
    let info: NodeInfo
    let config: GossipConfig.Membership
    let nowMs: UInt64

    /// A `Vicinity` message to `to`: the peers near `target` to a proven peer, nobody to a
    /// stranger (`send` cuts our own info for it, NeedToKnow.swift).
    func message(for target: Geohash.Cell?, to: PeerAddress, reply: Bool, targetCell: String? = nil, peers: PeerTable) -> Message {
        let named = peers.isProven(to) ? sample(for: target, excluding: to, peers: peers) : []
        return .vicinity(VicinityExchange(info: info, peers: named, reply: reply, target: targetCell))
    }

    /// Up to `limit` (default `vicinitySample`) names near `target`, cut to our own cell's precision.
    func sample(for target: Geohash.Cell?, excluding: PeerAddress, limit: Int? = nil, peers: PeerTable) -> [PeerRef] {
        peers.vicinitySample(
            for: target, excluding: excluding, count: limit ?? config.vicinitySample, precision: info.cell?.count ?? 6)
    }
}

extension Vicinity {
    /// One entry whose exchange is past `vicinityTimeoutMs`: asked again, or after
    /// `vicinityMisses` in a row given up on.
    func expire(_ p: PeerAddress, peers: inout PeerTable, _ x: VicinityInputs) -> [VicinityAction] {
        guard var e = peers.vicinity[p], let asked = e.askedMs, x.nowMs >= asked + x.config.vicinityTimeoutMs else { return [] }
        guard e.misses + 1 < x.config.vicinityMisses else { return [.forget(p)] }
        e.misses += 1
        e.askedMs = x.nowMs
        peers[vicinity: p] = e
        return [.send(x.message(for: e.info.place, to: p, reply: false, peers: peers), to: p)]
    }

    /// The round's exchange, once the entries past their timeout are handled (`expire`): with
    /// the entry that has never exchanged with us (the nearest first), else with the one that
    /// exchanged least recently. Other traffic does not count: a peer that pings or sends
    /// interest but never answers an exchange is asked first, not last (it was never asked:
    /// its traffic kept it "recently heard").
    ///
    /// After `nameFailuresForTurns` names in a row were dropped unanswered, every other round
    /// is a cautious one: it asks a peer that spoke to us (never exchanged first, then least
    /// recently) before any name. Names in a suspect cell (PeerTable) come after names
    /// elsewhere. Liars claiming an eclipse target's own cell, passed on by its honest
    /// neighbours, took every round one after another (each failed, was muted, the next took
    /// its place), and a member inside a locked fence never met another member (hostile seed
    /// 8). Where names answer (an honest network, even a lossy one: two failures in a row are
    /// rare) the order is the first one. (Always taking turns between peers that spoke and
    /// names, or holding back names while one is unanswered, would slow full coverage where
    /// names do answer.)
    mutating func ask(peers: inout PeerTable, _ x: VicinityInputs) -> [VicinityAction] {
        var cautious = false
        if nameFailures >= GossipEngine.nameFailuresForTurns {
            cautiousTurn.toggle()
            cautious = cautiousTurn
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
        else { return [] }
        peers[vicinity: peer]?.askedMs = x.nowMs
        return [.send(x.message(for: entry.info.place, to: peer, reply: false, peers: peers), to: peer)]
    }

    /// A vicinity entry asked before it had ever exchanged with us was dropped unanswered:
    /// one more name failure in a row (reset when such an entry answers), and one more against
    /// the cell it claimed (`PeerTable.suspect`).
    mutating func nameFailed(_ e: VicinityEntry, peers: inout PeerTable, nowMs: UInt64) {
        nameFailures = min(nameFailures + 1, 1000)
        if let c = e.info.cell { peers.suspect(cell: c, nowMs: nowMs) }
    }

    /// A `Vicinity` message from `from`, before the names it carries (`named`): it settles an
    /// exchange we asked it for. Only a proven peer (NeedToKnow.swift) is placed by the cell
    /// it claims (`theirs`, sharpened): offered to our vicinity, remembered as inbound, taken
    /// as a remote contact.
    mutating func exchanged(
        from: PeerAddress, theirs: NodeInfo, proven: Bool, peers: inout PeerTable, _ x: VicinityInputs
    ) -> [VicinityAction] {
        peers[hopAsk: from] = nil
        if let e = peers.vicinity[from], e.askedMs != nil, e.exchangedMs == 0 {
            nameFailures = 0
            if let c = e.info.cell { peers.clearSuspect(cell: c) }
        }
        if proven && !GossipEngine.isCoarse(theirs.cell) {
            peers[active: from]?.info = theirs
            peers.offerVicinity(from, info: theirs, heard: true, answered: true, ours: x.info, nowMs: x.nowMs)
            if !peers.isLink(from) { peers.rememberInbound(from, info: theirs, nowMs: x.nowMs) }
            return offerRemote(from, info: theirs, peers: &peers, x)
        }
        if let known = peers.vicinity[from]?.info {
            peers.offerVicinity(from, info: known, heard: true, answered: true, ours: x.info, nowMs: x.nowMs)
        }
        return []
    }

    /// A peer named in a `Vicinity` message: a candidate entry and remote contact. Names with
    /// cells no finer than a stranger's place nobody.
    func named(_ p: PeerRef, peers: inout PeerTable, _ x: VicinityInputs) -> [VicinityAction] {
        guard let cell = p.cell, !GossipEngine.isCoarse(cell) else { return [] }
        peers.offerVicinity(p.address, info: NodeInfo(cell: cell), heard: false, ours: x.info, nowMs: x.nowMs)
        return offerRemote(p.address, info: NodeInfo(cell: cell), peers: &peers, x)
    }

    /// The `target` a request from `from` may walk: any for an active member; for others,
    /// within their network group's budget, else none (counted, `vicinityLimited`).
    mutating func walkable(_ target: String?, from: PeerAddress, peers: PeerTable, nowMs: UInt64, stats: inout GossipStats) -> String? {
        guard let t = target, peers.active[from] == nil, !strangerBudget.mayWalk(group: from.netgroup, target: t, nowMs: nowMs)
        else { return target }
        stats.drop(.vicinityLimited)
        return nil
    }

    /// The answer to a stranger's `Vicinity` request: nobody, unless it names the centre cell
    /// (`target`) of the fence of a live pack we hold (`fence`, a remote-contact request, §9):
    /// then up to `strangerVicinitySample` peers inside that fence, within the network group's
    /// budget.
    mutating func strangerAnswer(
        target: String?, fence: Geofence?, from: PeerAddress, peers: PeerTable, _ x: VicinityInputs, stats: inout GossipStats
    ) -> VicinityExchange {
        var answer = VicinityExchange(info: x.info, peers: [], reply: true, target: nil)
        guard let target, let fence else { return answer }
        guard strangerBudget.mayName(group: from.netgroup, nowMs: x.nowMs) else { stats.drop(.vicinityLimited); return answer }
        answer.peers = Array(
            x.sample(for: NodeInfo.decode(target), excluding: from, limit: x.config.vicinitySample * 2, peers: peers)
                .filter { p in NodeInfo.decode(p.cell).map { fence.contains(cell: $0) } ?? false }
                .prefix(x.config.strangerVicinitySample))
        return answer
    }
}

extension GossipEngine {
    public var vicinityPeers: [PeerAddress] { peers.vicinity.keys.sorted() }

    /// The links ops travel on (`PeerTable.links`).
    var links: [PeerAddress] { peers.links }
    func isLink(_ p: PeerAddress) -> Bool { peers.isLink(p) }
    func peerInfo(_ p: PeerAddress) -> NodeInfo? { peers.info(of: p) }

    /// What the vicinity part reads of us at `nowMs` (a message or a sample reads no time).
    func vicinityInputs(_ nowMs: UInt64 = 0) -> VicinityInputs {
        VicinityInputs(info: info, config: config.membership, nowMs: nowMs)
    }

    /// A peer spoke to us or was named: a candidate vicinity entry (`PeerTable.offerVicinity`).
    mutating func offerVicinity(_ peer: PeerAddress, info peerInfo: NodeInfo, heard: Bool, answered: Bool = false, nowMs: UInt64) {
        peers.offerVicinity(peer, info: peerInfo, heard: heard, answered: answered, ours: info, nowMs: nowMs)
    }

    /// Our own cell changed: distances change with it.
    mutating func remeasureVicinity() {
        let me = info
        peers.remeasureVicinity { me.distance(to: $0.place) }
    }

    /// A `Vicinity` message to `to` (`VicinityInputs.message`).
    func vicinityMessage(for target: Geohash.Cell?, to: PeerAddress, reply: Bool, targetCell: String? = nil) -> Message {
        vicinityInputs().message(for: target, to: to, reply: reply, targetCell: targetCell, peers: peers)
    }

    /// Once per interval: each entry whose exchange went unanswered asked again or dropped,
    /// then one exchange started (`Vicinity.expire`, `ask`).
    mutating func vicinityRound(nowMs: UInt64, into out: inout [GossipDirective]) {
        let x = vicinityInputs(nowMs)
        for p in peers.vicinity.keys.sorted() { carry(vicinity.expire(p, peers: &peers, x), nowMs: nowMs, into: &out) }
        carry(vicinity.ask(peers: &peers, x), nowMs: nowMs, into: &out)
    }

    /// A `Vicinity` message: it settles our exchange, places a proven sender, offers the
    /// names it carries, and a request is answered (to a stranger, `strangerAnswer`).
    mutating func onVicinity(_ v: VicinityExchange, from: PeerAddress, nowMs: UInt64, replica: Replica, into out: inout [GossipDirective]) {
        let proven = isProven(from)
        let theirs = peers.sharpened(v.info, of: from)
        let x = vicinityInputs(nowMs)
        carry(vicinity.exchanged(from: from, theirs: theirs, proven: proven, peers: &peers, x), nowMs: nowMs, into: &out)
        for p in v.peers.prefix(config.membership.vicinitySample * 2) {
            carry(vicinity.named(p, peers: &peers, x), nowMs: nowMs, into: &out)
        }
        guard !v.reply else { return }
        // Walking `target` is bounded per network group, for every peer but an active member.
        let target = vicinity.walkable(v.target, from: from, peers: peers, nowMs: nowMs, stats: &stats)
        if proven {
            let near = target.map { NodeInfo.decode($0) } ?? theirs.place
            send(vicinityMessage(for: near, to: from, reply: true), to: from, nowMs: nowMs, into: &out)
        } else {
            let fence = target.flatMap { fenceCentred(at: $0, replica: replica, nowMs: nowMs) }
            let answer = vicinity.strangerAnswer(target: target, fence: fence, from: from, peers: peers, x, stats: &stats)
            send(.vicinity(answer), to: from, nowMs: nowMs, into: &out)
        }
    }

    /// Carries out the vicinity part's actions, in order.
    mutating func carry(_ actions: [VicinityAction], nowMs: UInt64, into out: inout [GossipDirective]) {
        for a in actions {
            switch a {
            case .send(let m, let to): send(m, to: to, nowMs: nowMs, into: &out)
            case .forget(let p): forget(p, .silent, nowMs: nowMs, into: &out)
            case .silence(let p): silence(p, nowMs: nowMs, into: &out)
            case .passive(let p, let cell): addPassive(p, cell: cell, nowMs: nowMs)
            case .newLink(let p): directoryOnNewLink(p)
            }
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

extension Geohash {
    /// The precision-7 cell around a point.
    static func decode(cellOf p: GeoPoint) -> Geohash.Cell? { try? Geohash.decode(Geohash.encode(p, precision: 7)) }
}
