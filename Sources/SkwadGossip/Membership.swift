import SkwadModel

/// HyParView (Leitão, Pereira, Rodrigues 2007) views with SWIM-style failure detection
/// (Das, Gupta, Motivala 2002). Peers are identified by their address; their roles live in
/// the `PeerTable`. The message handlers are in MembershipHandlers.swift.
extension GossipEngine {
    var joinMessage: Message { .join(info) }

    /// Adds a peer to the active view, evicting a random one (to the passive view) if full.
    mutating func addActive(_ peer: PeerAddress, info peerInfo: NodeInfo?, nowMs: UInt64, into out: inout [GossipDirective]) {
        guard peer != selfAddress, !hasDirectTwin(peer) else { return }
        retireRelayedTwins(of: peer, into: &out)
        if let peerInfo { offerVicinity(peer, info: peerInfo, heard: true, nowMs: nowMs) }
        if var st = peers[active: peer] {
            let before = st.info
            if let peerInfo { st.info = peerInfo }
            st.lastHeardMs = nowMs
            peers[active: peer] = st
            if let peerInfo { memberInfoChanged(peer, before: before, now: peerInfo, nowMs: nowMs, into: &out) }
            return
        }
        if let victim = peers.evictionVictim(using: &rng) {
            send(.disconnect, to: victim, nowMs: nowMs, into: &out)
            demote(victim, nowMs: nowMs, into: &out)
        }
        peers.promote(peer, info: peerInfo ?? NodeInfo(), nowMs: nowMs)
        if membership.pendingNeighbor?.address == peer { membership.pendingNeighbor = nil }
        directoryOnNewLink(peer)
        out.append(.peerUp(peer))
        // Behind a NAT: a new member may hold our info from before we knew it (a `Join` sent
        // before our first `Observed`), and only members that know it get us introduced.
        if info.behindNat { send(.interest(info), to: peer, nowMs: nowMs, into: &out) }
        introduceSharers(of: peer, nowMs: nowMs, into: &out)
    }

    /// The one way to give up on a peer (`PeerTable.forget` says what each reason takes): a
    /// dead active member (SWIM), an address whose handshake or neighbour request was never
    /// answered, a vicinity entry that stopped answering. Besides its roles, every part drops
    /// what it holds about the peer (`forgetInParts`: its session, its Plumtree mark, ...) —
    /// unless it stays an active member (`.silent`).
    mutating func forget(_ peer: PeerAddress, _ why: PeerTable.Reason, nowMs: UInt64, into out: inout [GossipDirective]) {
        let wasActive = peers.active[peer] != nil
        if let e = peers.vicinity[peer], e.askedMs != nil, e.exchangedMs == 0 { vicinity.nameFailed(e, peers: &peers, nowMs: nowMs) }
        if peers.forget(peer, reason: why, nowMs: nowMs) != nil { out.append(.peerDown(peer)) }
        if why == .silent && wasActive { return }
        if why == .unreachable { stats.drop(.unreachable) }
        forgetInParts(peer)
    }

    /// A peer that left requests routed through it unanswered: given up on as `.silent`, and
    /// muted even if it held no vicinity entry (it is then no hop, and names of it do not
    /// bring it back into the vicinity view).
    mutating func silence(_ peer: PeerAddress, nowMs: UInt64, into out: inout [GossipDirective]) {
        forget(peer, .silent, nowMs: nowMs, into: &out)
        peers.mute(peer, nowMs: nowMs)
    }

    mutating func demote(_ peer: PeerAddress, nowMs: UInt64, into out: inout [GossipDirective]) {
        guard peers.demote(peer, using: &rng) != nil else { return }
        out.append(.peerDown(peer))
    }

    mutating func addPassive(_ peer: PeerAddress, cell: String?, nowMs: UInt64) {
        if let cell { offerVicinity(peer, info: NodeInfo(cell: cell), heard: false, nowMs: nowMs) }
        peers.addPassive(peer, cell: cell, using: &rng)
    }

    mutating func randomActive(excluding: Set<PeerAddress>) -> PeerAddress? {
        peers.active.keys.filter { !excluding.contains($0) }.sorted().randomElement(using: &rng)
    }

    mutating func integrate(_ named: [PeerRef], nowMs: UInt64) {
        for p in named.prefix(config.membership.shuffleSample * 2) where peers.active[p.address] == nil {
            addPassive(p.address, cell: p.cell, nowMs: nowMs)
        }
    }

    /// Up to `shuffleSample` peers of both views (not `excluding`), at random, with their cells.
    mutating func viewSample(excluding: PeerAddress) -> [PeerRef] {
        let known =
            peers.active.keys.sorted().filter { $0 != excluding }.map { PeerRef(address: $0, cell: peers.active[$0]!.info.cell) }
            + peers.passive.keys.sorted().map { PeerRef(address: $0, cell: peers.passive[$0]!.isEmpty ? nil : peers.passive[$0]) }
        return Array(known.shuffled(using: &rng).prefix(config.membership.shuffleSample))
    }

    /// HyParView's due work at a tick (`EnginePart.membership`): trials ended, a neighbour
    /// request unanswered for too long ended; then keeps the active view full: asks a passive
    /// peer (preferring nearby cells) to become a neighbour; with nobody known, joins through
    /// the seeds again.
    mutating func fillActiveView(nowMs: UInt64, into out: inout [GossipDirective]) {
        expireCandidates(nowMs: nowMs)
        if !peers.active.isEmpty { rounds.rejoinAttempts = 0 }
        let hello = config.sessions
        if let p = membership.pendingNeighbor, nowMs >= p.sinceMs + hello.helloRetryMs * UInt64(hello.helloAttempts + 1) {
            membership.pendingNeighbor = nil
            // A peer that took our handshake is alive: the request may have walked on and
            // ended unanswered (§9). It only stops being a candidate; its session stays.
            if channels.isEstablished(p.address) {
                peers.dropPassive(p.address)
            } else {
                forget(p.address, .unreachable, nowMs: nowMs, into: &out)
            }
            neighborDeclined(nowMs: nowMs)
        }
        guard peers.hasRoom, membership.pendingNeighbor == nil else { return }
        if !peers.passive.isEmpty { rounds.eagerShuffleDelayMs = 0 }
        if peers.passive.isEmpty, !peers.active.isEmpty, nowMs >= rounds.nextEagerShuffleMs {
            // Nobody to promote: ask a neighbour for samples of its views now, less often
            // while that brings nobody (behind a NAT, every peer named may be unreachable).
            rounds.eagerShuffleDelayMs = min(config.ticks.quietMaxMs, max(config.sessions.helloRetryMs, rounds.eagerShuffleDelayMs &* 2))
            rounds.nextEagerShuffleMs = nowMs + rounds.eagerShuffleDelayMs
            shuffle(nowMs: nowMs, into: &out)
            return
        }
        let highPriority = peers.active.count < config.membership.activeSize - 1
        if !highPriority && nowMs < membership.nextLowNeighborMs { return }
        if let candidate = nearestPassive() {
            // High priority (the receiver must accept, evicting if full) while we hold fewer
            // than activeSize - 1 links: every such exchange brings one more view to that level.
            // A low-priority one (for the last slot) waits out the delay of the last decline.
            let n = NeighborRequest(highPriority: highPriority, info: info, origin: nil, ttl: 3)
            membership.pendingNeighbor = (candidate, nowMs)
            send(.neighbor(n), to: candidate, nowMs: nowMs, into: &out)
        } else if peers.active.isEmpty, !membership.seeds.isEmpty, nowMs >= rounds.nextRejoinMs {
            rounds.rejoinAttempts = min(rounds.rejoinAttempts + 1, 32)
            rounds.nextRejoinMs = nowMs &+ rejoinDelayMs
            for s in membership.seeds { send(joinMessage, to: s, nowMs: nowMs, into: &out) }
        }
    }

    /// The wait before the next re-join through the seeds: doubling with each unanswered one.
    var rejoinDelayMs: UInt64 {
        min(config.membership.rejoinMaxMs, config.membership.rejoinIntervalMs &<< UInt64(min(rounds.rejoinAttempts, 16)))
    }

    /// With no link up and seeds configured: the seeds, how many re-joins went unanswered
    /// since the last link, and when the next one goes out (for the REPL's `peers`).
    public func seedStatus(nowMs: UInt64) -> (seeds: [String], unanswered: Int, nextInMs: UInt64)? {
        guard peers.active.isEmpty, !membership.seeds.isEmpty else { return nil }
        return (membership.seeds.map(\.value), rounds.rejoinAttempts, rounds.nextRejoinMs > nowMs ? rounds.nextRejoinMs - nowMs : 0)
    }

    /// A neighbour request was declined or went unanswered: the next low-priority one waits
    /// twice as long as the last (from `helloRetryMs` up to `quietMaxMs`). With every
    /// reachable view full, a node one link short would otherwise walk requests around the
    /// overlay several times a second while idle.
    mutating func neighborDeclined(nowMs: UInt64) {
        membership.neighborRetryMs = min(config.ticks.quietMaxMs, max(config.sessions.helloRetryMs, membership.neighborRetryMs &* 2))
        membership.nextLowNeighborMs = nowMs &+ membership.neighborRetryMs
    }

    /// Best of three random passive peers by distance from our cell (locality keeps
    /// geofenced packs connected), or a random one when cells are unknown.
    mutating func nearestPassive() -> PeerAddress? {
        let keys = peers.passive.keys.sorted()
        guard !keys.isEmpty else { return nil }
        let picks = (0..<min(3, keys.count)).map { _ in keys.randomElement(using: &rng)! }
        guard let mine = info.cell, let here = try? Geohash.decode(mine) else { return picks[0] }
        func distance(_ p: PeerAddress) -> Double {
            (try? Geohash.decode(peers.passive[p] ?? "")).map { here.center.distance(to: $0.center) } ?? .infinity
        }
        return picks.min { a, b in
            let da = distance(a), db = distance(b)
            return da != db ? da < db : a < b
        }
    }

    mutating func shuffle(nowMs: UInt64, into out: inout [GossipDirective]) {
        guard let peer = randomActive(excluding: []) else { return }
        send(.shuffle(viewSample(excluding: peer)), to: peer, nowMs: nowMs, into: &out)
    }
}

/// Membership's clocks, kept in the peer table: SWIM's (`EnginePart.swim`) and HyParView's
/// (`EnginePart.membership`).
extension PeerTable {
    /// Per active member its ack or death timeout, or its next ping.
    var swimDeadlineMs: UInt64 {
        var due = UInt64.max
        func at(_ t: UInt64) { if t < due { due = t } }
        for (_, m) in activeClocks {
            if m.suspectSinceMs != nil {
                at(m.lastHeardMs &+ swim.deadAfterMs)
            } else if let sent = m.pingSentMs, m.lastHeardMs <= sent {
                at(sent &+ swim.ackTimeoutMs)
            }
            // Up to `fillingTickMs` after the ping falls due, spread by when we last heard it:
            // woken exactly when due, two members that ping each other wake together, each
            // one's ping crosses the other's, and twice as many pings go.
            else {
                at(m.lastHeardMs &+ swim.pingIntervalMs &+ GossipEngine.spread(m.lastHeardMs))
            }
        }
        return due
    }

    /// A trial's end; while the view has room, the next ask of a passive peer (`fillingTickMs`,
    /// the pace of its own retry clocks).
    func membershipDeadlineMs(nowMs: UInt64) -> UInt64 {
        var due = UInt64.max
        for c in candidates.values where c.sinceMs &+ MembershipGuard.candidateTimeoutMs < due {
            due = c.sinceMs &+ MembershipGuard.candidateTimeoutMs
        }
        if hasRoom { due = min(due, nowMs &+ GossipEngine.fillingTickMs) }
        return due
    }
}
