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
        peers.addPassive(peer, cell: cell, ours: info, nowMs: nowMs, using: &rng)
    }

    /// The tick's membership work (`EnginePart.membership`): trials and an unanswered
    /// neighbour request ended, then the active view kept full (`HyParView.expire`, `fill`).
    mutating func fillActiveView(nowMs: UInt64, into out: inout [GossipDirective]) {
        let x = membershipInputs(nowMs)
        carry(membership.expire(peers: &peers, channels: channels, x), nowMs: nowMs, into: &out)
        carry(membership.fill(peers: peers, rng: &rng, x), nowMs: nowMs, into: &out)
    }

    /// A shuffle round (`Round.shuffle`): a sample of our views to a random member.
    mutating func shuffle(nowMs: UInt64, into out: inout [GossipDirective]) {
        carry(membership.shuffle(peers: peers, rng: &rng, membershipInputs(nowMs)), nowMs: nowMs, into: &out)
    }

    /// With no link up and seeds configured: the seeds, how many re-joins went unanswered
    /// since the last link, and when the next one goes out (for the REPL's `peers`).
    public func seedStatus(nowMs: UInt64) -> (seeds: [String], unanswered: Int, nextInMs: UInt64)? {
        guard peers.active.isEmpty, !membership.seeds.isEmpty else { return nil }
        let m = membership
        return (m.seeds.map(\.value), m.rejoinAttempts, m.nextRejoinMs > nowMs ? m.nextRejoinMs - nowMs : 0)
    }

    /// What the membership part reads of us at `nowMs`.
    func membershipInputs(_ nowMs: UInt64) -> MembershipInputs { MembershipInputs(info: info, config: config, nowMs: nowMs) }

    /// Carries out the membership part's actions, in order.
    mutating func carry(_ actions: [MembershipAction], nowMs: UInt64, into out: inout [GossipDirective]) {
        for a in actions {
            switch a {
            case .send(let m, let to): send(m, to: to, nowMs: nowMs, into: &out)
            case .admit(let p, let theirs, let reply):
                if admitOrTry(p, info: theirs, nowMs: nowMs, into: &out) && reply {
                    send(.neighborReply(accepted: true, info: info, observed: p.observable), to: p, nowMs: nowMs, into: &out)
                }
            case .addActive(let p, let theirs): addActive(p, info: theirs, nowMs: nowMs, into: &out)
            case .forget(let p, let why): forget(p, why, nowMs: nowMs, into: &out)
            }
        }
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
