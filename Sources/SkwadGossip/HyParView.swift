import SkwadModel

/// HyParView's membership part (Leitão, Pereira, Rodrigues 2007; PROTOCOL §9): the seeds, a
/// neighbour request under way and the delay of the next, the re-joins through the seeds and
/// the eager shuffles while nobody is known, and the join guard (MembershipGuard.swift). The
/// views themselves are roles in the peer table.
///
/// Its inputs (a `Join`, a `ForwardJoin`, a `Neighbor` and its reply, a shuffle, a trial's
/// answer, the tick's filling of the view) change the peer table they are handed, draw from
/// the engine's generator, and return `MembershipAction`s, which the engine carries out in
/// order. Where a step reads what the actions before it change (the members a `Join` is
/// walked to, after the joiner is admitted; the view filled after an unanswered request's
/// peer is forgotten), the engine carries out the first step's actions before it asks for
/// the next.
struct HyParView: Sendable {
    var seeds: [PeerAddress] = []
    var pendingNeighbor: (address: PeerAddress, sinceMs: UInt64)?
    /// A declined or unanswered neighbour request delays the next low-priority one (§9):
    /// the current delay (doubling from `helloRetryMs` to `quietMaxMs`) and when it ends.
    var neighborRetryMs: UInt64 = 0
    var nextLowNeighborMs: UInt64 = 0
    /// Re-joins through the seeds since the last time a link was up: each waits twice as
    /// long as the one before (from `rejoinIntervalMs` up to `rejoinMaxMs`).
    var rejoinAttempts = 0
    var nextRejoinMs: UInt64 = 0
    /// The wait between eager shuffles while they bring no passive peer (doubling from
    /// `helloRetryMs` up to `quietMaxMs`; back to nothing once the passive view has one).
    var eagerShuffleDelayMs: UInt64 = 0
    var nextEagerShuffleMs: UInt64 = 0
    /// Join limits, the introduction budget, the eviction budget (MembershipGuard.swift).
    var guardState = MembershipGuard()
}

extension HyParView: PeerState {
    /// A neighbour request to it goes. Kept: the seeds (configuration), and when it last
    /// joined (a budget: `MembershipGuard.lastJoinMs`).
    mutating func forget(_ peer: PeerAddress) { if pendingNeighbor?.address == peer { pendingNeighbor = nil } }
}

extension HyParView: TimedPart {
    /// A neighbour request under way. (Its clocks, the trials' and the next ask's, are the
    /// peer table's: `PeerTable.membershipDeadlineMs`, Membership.swift.)
    var busy: Bool { pendingNeighbor != nil }
}

/// What the membership part asks of the engine, in order.
enum MembershipAction {
    /// A message to a peer, sealed and sent by the engine.
    case send(Message, to: PeerAddress)
    /// A peer asking to become a member (`GossipEngine.admitOrTry`): added at once with room,
    /// else put on trial. With `reply`, one added at once is sent an accepting `NeighborReply`.
    case admit(PeerAddress, info: NodeInfo, reply: Bool)
    /// A new active member (`GossipEngine.addActive`).
    case addActive(PeerAddress, info: NodeInfo)
    /// A peer given up on (`GossipEngine.forget`).
    case forget(PeerAddress, PeerTable.Reason)
}

/// What the membership part reads of the engine besides the peer table.
struct MembershipInputs {
    /// Our own info.
    let info: NodeInfo
    let config: GossipConfig
    let nowMs: UInt64
}

extension HyParView {
    /// A `Join`: within the join limits, the joiner asks to become a member (`.admit`); the
    /// walk to the other members follows once it is carried out (`walkJoin`).
    mutating func joined(_ theirs: NodeInfo, from: PeerAddress, nowMs: UInt64, stats: inout GossipStats) -> [MembershipAction] {
        guard guardState.admitJoin(from: from, nowMs: nowMs) else { stats.drop(.joinLimited); return [] }
        return [.admit(from, info: theirs, reply: true)]
    }

    /// An admitted `Join` walks on: a `ForwardJoin` to every other member. A relayed joiner
    /// is reachable through its relay only: not walked on.
    func walkJoin(_ theirs: NodeInfo, from: PeerAddress, peers: PeerTable, _ x: MembershipInputs) -> [MembershipAction] {
        let walk = Message.forwardJoin(joiner: PeerRef(address: from, cell: theirs.cell), ttl: UInt32(x.config.membership.activeWalk))
        return peers.active.keys.sorted().compactMap { p in p != from && !from.isRelayed ? .send(walk, to: p) : nil }
    }

    /// A `ForwardJoin` from a member, its walk clamped to ours (PROTOCOL §9): at its end the
    /// joiner becomes a member here (tried first when the view is full); on the way, a
    /// passive peer at `passiveWalk`, and the walk goes on to a random other member.
    mutating func forwardJoin(
        joiner ref: PeerRef, ttl wireTTL: UInt32, from: PeerAddress, channels: SecureChannels, peers: inout PeerTable,
        rng: inout SplitMix, stats: inout GossipStats, _ x: MembershipInputs
    ) -> [MembershipAction] {
        guard peers.active[from] != nil else { stats.drop(.notAMember); return [] }
        let ttl = min(wireTTL, UInt32(x.config.membership.activeWalk))
        let joiner = ref.address, cell = ref.cell
        guard joiner != peers.me else { return [] }
        if let cell { peers.offerVicinity(joiner, info: NodeInfo(cell: cell), heard: false, ours: x.info, nowMs: x.nowMs) }
        let ask = NeighborRequest(highPriority: true, info: x.info, origin: nil, ttl: 0)
        if ttl == 0 || peers.active.count <= 1 {
            if !mayIntroduce(joiner, channels: channels, nowMs: x.nowMs, stats: &stats) {
                peers.addPassive(joiner, cell: cell, ours: x.info, nowMs: x.nowMs, using: &rng)
            } else if peers.isFull {
                // Full here: the joiner displaces a member only after answering a ping,
                // within the eviction budget.
                return [.admit(joiner, info: NodeInfo(cell: cell), reply: false)]
            } else if peers.active[joiner] == nil {
                return [.send(.neighbor(ask), to: joiner), .addActive(joiner, info: NodeInfo(cell: cell))]
            }
            return []
        }
        if ttl == UInt32(x.config.membership.passiveWalk) {
            peers.addPassive(joiner, cell: cell, ours: x.info, nowMs: x.nowMs, using: &rng)
        }
        if let next = peers.randomActive(excluding: [from, joiner], using: &rng) {
            return [.send(.forwardJoin(joiner: ref, ttl: ttl - 1), to: next)]
        }
        guard peers.active[joiner] == nil else { return [] }
        if peers.isFull || !mayIntroduce(joiner, channels: channels, nowMs: x.nowMs, stats: &stats) {
            peers.addPassive(joiner, cell: cell, ours: x.info, nowMs: x.nowMs, using: &rng)
            return []
        }
        return [.send(.neighbor(ask), to: joiner), .addActive(joiner, info: NodeInfo(cell: cell))]
    }

    /// A `Neighbor` request: with room, accepted (a forwarded one within the introduction
    /// budget); a full view tests a high-priority asker first (`.admit`), walks a request on
    /// towards a node with room, or declines. A forwarded request counts only from a member.
    mutating func neighbor(
        _ n: NeighborRequest, from: PeerAddress, channels: SecureChannels, peers: PeerTable, rng: inout SplitMix,
        stats: inout GossipStats, _ x: MembershipInputs
    ) -> [MembershipAction] {
        if n.origin != nil && peers.active[from] == nil { stats.drop(.notAMember); return [] }
        let asker = n.origin ?? from
        guard asker != peers.me else { return [] }
        let ttl = min(n.ttl, GossipEngine.neighborWalk)
        let room = peers.hasRoom || peers.active[asker] != nil
        // Must accept, but a full view tests the newcomer first (MembershipGuard).
        if !room && n.highPriority && asker == from { return [.admit(asker, info: n.info, reply: false)] }
        if !room && ttl > 0, let next = peers.randomActive(excluding: [from, asker], using: &rng) {
            var f = n
            f.origin = asker
            f.ttl = ttl - 1
            return [.send(.neighbor(f), to: next)]
        }
        if room && asker != from && !mayIntroduce(asker, channels: channels, nowMs: x.nowMs, stats: &stats) { return [] }
        let reply = MembershipAction.send(.neighborReply(accepted: room, info: x.info, observed: room ? asker.observable : nil), to: asker)
        return room ? [.addActive(asker, info: n.info), reply] : [reply]
    }

    /// A `NeighborReply`. Any answer ends our request: a walked one is answered by whoever it
    /// reached. Only an answer while we wait for one sets the delay of the next (a
    /// stranger's unasked decline does not); an acceptance by a member we already hold (a
    /// walk that ended at one of our links) gains nothing and counts as a decline. A walked
    /// request that found room after we filled up is declined politely (`Disconnect`).
    mutating func neighborReply(
        accepted: Bool, info theirs: NodeInfo, from: PeerAddress, peers: inout PeerTable, rng: inout SplitMix, _ x: MembershipInputs
    ) -> [MembershipAction] {
        if pendingNeighbor != nil {
            if accepted && peers.active[from] == nil { neighborRetryMs = 0 } else { declined(x) }
        }
        pendingNeighbor = nil
        if accepted && peers.active[from] == nil && peers.isFull { return [.send(.disconnect, to: from)] }
        if accepted { return [.addActive(from, info: theirs)] }
        if peers.active[from] == nil { peers.addPassive(from, cell: theirs.cell, ours: x.info, nowMs: x.nowMs, using: &rng) }
        return []
    }

    /// A neighbour request was declined or went unanswered: the next low-priority one waits
    /// twice as long as the last (from `helloRetryMs` up to `quietMaxMs`). With every
    /// reachable view full, a node one link short would otherwise walk requests around the
    /// overlay several times a second while idle.
    mutating func declined(_ x: MembershipInputs) {
        neighborRetryMs = min(x.config.ticks.quietMaxMs, max(x.config.sessions.helloRetryMs, neighborRetryMs &* 2))
        nextLowNeighborMs = x.nowMs &+ neighborRetryMs
    }

    /// A shuffle with a random member: a sample of our views.
    func shuffle(peers: PeerTable, rng: inout SplitMix, _ x: MembershipInputs) -> [MembershipAction] {
        guard let peer = peers.randomActive(excluding: [], using: &rng) else { return [] }
        return [.send(.shuffle(peers.viewSample(excluding: peer, count: x.config.membership.shuffleSample, using: &rng)), to: peer)]
    }

    /// A candidate answered our ping: admitted if a member may be evicted now, else kept as a
    /// passive peer (it answered: it is real); either way it hears the verdict.
    mutating func candidateAnswered(
        _ peer: PeerAddress, seq: UInt64, peers: inout PeerTable, rng: inout SplitMix, stats: inout GossipStats, _ x: MembershipInputs
    ) -> [MembershipAction] {
        guard let c = peers.candidates[peer], c.pingSeq == seq else { return [] }
        peers.endTrial(peer)
        let room = peers.hasRoom
        let accept = room || x.nowMs >= guardState.nextEvictionMs
        var acts: [MembershipAction] = []
        if accept {
            if !room { stats.evictions += 1; guardState.nextEvictionMs = x.nowMs + x.config.membership.evictionIntervalMs }
            acts.append(.addActive(peer, info: c.info))
        } else {
            peers.addPassive(peer, cell: c.info.cell, ours: x.info, nowMs: x.nowMs, using: &rng)
        }
        acts.append(.send(.neighborReply(accepted: accept, info: x.info, observed: accept ? peer.observable : nil), to: peer))
        return acts
    }

    /// May we start a handshake with `peer`, an address we learned from someone else? Peers
    /// that spoke to us, and seeds, always; others at most 20/s (burst 100).
    mutating func mayIntroduce(_ peer: PeerAddress, channels: SecureChannels, nowMs: UInt64, stats: inout GossipStats) -> Bool {
        if channels.hasSession(peer) || seeds.contains(peer) { return true }
        guard guardState.introductions.take(1, nowMs: nowMs) else { stats.drop(.introductionLimited); return false }
        return true
    }

    /// The tick's first step: trials ended, and a neighbour request unanswered for too long
    /// ended. A peer that took our handshake is alive: the request may have walked on and
    /// ended unanswered (§9); it only stops being a candidate, its session stays. One that
    /// never answered the handshake is given up on.
    mutating func expire(peers: inout PeerTable, channels: SecureChannels, _ x: MembershipInputs) -> [MembershipAction] {
        peers.expireCandidates(nowMs: x.nowMs)
        if !peers.active.isEmpty { rejoinAttempts = 0 }
        let hello = x.config.sessions
        guard let p = pendingNeighbor, x.nowMs >= p.sinceMs + hello.helloRetryMs * UInt64(hello.helloAttempts + 1) else { return [] }
        pendingNeighbor = nil
        declined(x)
        guard channels.isEstablished(p.address) else { return [.forget(p.address, .unreachable)] }
        peers.dropPassive(p.address)
        return []
    }

    /// The tick's second step, keeping the active view full: asks a passive peer (preferring
    /// nearby cells) to become a neighbour; with nobody to ask, a shuffle with a member (less
    /// often while that brings nobody: behind a NAT, every peer named may be unreachable);
    /// with nobody known, a re-join through the seeds.
    mutating func fill(peers: PeerTable, rng: inout SplitMix, _ x: MembershipInputs) -> [MembershipAction] {
        guard peers.hasRoom, pendingNeighbor == nil else { return [] }
        let c = x.config
        if !peers.passive.isEmpty { eagerShuffleDelayMs = 0 }
        if peers.passive.isEmpty, !peers.active.isEmpty, x.nowMs >= nextEagerShuffleMs {
            eagerShuffleDelayMs = min(c.ticks.quietMaxMs, max(c.sessions.helloRetryMs, eagerShuffleDelayMs &* 2))
            nextEagerShuffleMs = x.nowMs + eagerShuffleDelayMs
            return shuffle(peers: peers, rng: &rng, x)
        }
        // High priority (the receiver must accept, evicting if full) while we hold fewer than
        // activeSize - 1 links: every such exchange brings one more view to that level. A
        // low-priority one (for the last slot) waits out the delay of the last decline.
        let highPriority = peers.active.count < c.membership.activeSize - 1
        if !highPriority && x.nowMs < nextLowNeighborMs { return [] }
        if let candidate = peers.nearestPassive(to: x.info.cell, using: &rng) {
            pendingNeighbor = (candidate, x.nowMs)
            return [.send(.neighbor(NeighborRequest(highPriority: highPriority, info: x.info, origin: nil, ttl: 3)), to: candidate)]
        }
        guard peers.active.isEmpty, !seeds.isEmpty, x.nowMs >= nextRejoinMs else { return [] }
        rejoinAttempts = min(rejoinAttempts + 1, 32)
        nextRejoinMs = x.nowMs &+ rejoinDelayMs(c.membership)
        return seeds.map { .send(.join(x.info), to: $0) }
    }

    /// The wait before the next re-join through the seeds: doubling with each unanswered one.
    func rejoinDelayMs(_ c: GossipConfig.Membership) -> UInt64 {
        min(c.rejoinMaxMs, c.rejoinIntervalMs &<< UInt64(min(rejoinAttempts, 16)))
    }
}

/// What the membership part reads and changes of the views.
extension PeerTable {
    /// A peer heard of: a passive peer, and with a cell a candidate vicinity entry.
    mutating func addPassive(_ peer: PeerAddress, cell: String?, ours: NodeInfo, nowMs: UInt64, using rng: inout SplitMix) {
        if let cell { offerVicinity(peer, info: NodeInfo(cell: cell), heard: false, ours: ours, nowMs: nowMs) }
        addPassive(peer, cell: cell, using: &rng)
    }

    /// Peers named in a shuffle or its reply (at most twice `shuffleSample` of them), those
    /// not active passive.
    mutating func integrate(_ named: [PeerRef], count: Int, ours: NodeInfo, nowMs: UInt64, using rng: inout SplitMix) {
        for p in named.prefix(count * 2) where active[p.address] == nil {
            addPassive(p.address, cell: p.cell, ours: ours, nowMs: nowMs, using: &rng)
        }
    }

    func randomActive(excluding: Set<PeerAddress>, using rng: inout SplitMix) -> PeerAddress? {
        active.keys.filter { !excluding.contains($0) }.sorted().randomElement(using: &rng)
    }

    /// Up to `count` peers of both views (not `excluding`), at random, with their cells.
    func viewSample(excluding: PeerAddress, count: Int, using rng: inout SplitMix) -> [PeerRef] {
        let known =
            active.keys.sorted().filter { $0 != excluding }.map { PeerRef(address: $0, cell: active[$0]!.info.cell) }
            + passive.keys.sorted().map { PeerRef(address: $0, cell: passive[$0]!.isEmpty ? nil : passive[$0]) }
        return Array(known.shuffled(using: &rng).prefix(count))
    }

    /// Best of three random passive peers by distance from our cell (`mine`; locality keeps
    /// geofenced packs connected), or a random one when cells are unknown.
    func nearestPassive(to mine: String?, using rng: inout SplitMix) -> PeerAddress? {
        let keys = passive.keys.sorted()
        guard !keys.isEmpty else { return nil }
        let picks = (0..<min(3, keys.count)).map { _ in keys.randomElement(using: &rng)! }
        guard let mine, let here = try? Geohash.decode(mine) else { return picks[0] }
        func distance(_ p: PeerAddress) -> Double {
            (try? Geohash.decode(passive[p] ?? "")).map { here.center.distance(to: $0.center) } ?? .infinity
        }
        return picks.min { a, b in
            let da = distance(a), db = distance(b)
            return da != db ? da < db : a < b
        }
    }

    /// Candidates that did not answer in time are forgotten.
    mutating func expireCandidates(nowMs: UInt64) {
        let late = candidates.filter { nowMs >= $0.value.sinceMs &+ MembershipGuard.candidateTimeoutMs }.map(\.key)
        for p in late { endTrial(p) }
    }
}
