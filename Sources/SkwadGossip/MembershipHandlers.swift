import SkwadModel

/// Membership messages (PROTOCOL §9), one handler each. Wire values arrive checked
/// (MessageWire.swift); walk lengths are clamped here, to our own configured walks.
extension GossipEngine {
    mutating func onJoin(_ theirs: NodeInfo, from: PeerAddress, nowMs: UInt64, into out: inout [GossipDirective]) {
        let x = membershipInputs(nowMs)
        let admitted = membership.joined(theirs, from: from, nowMs: nowMs, stats: &stats)
        guard !admitted.isEmpty else { return }
        carry(admitted, nowMs: nowMs, into: &out)
        carry(membership.walkJoin(theirs, from: from, peers: peers, x), nowMs: nowMs, into: &out)
    }

    mutating func onForwardJoin(
        joiner ref: PeerRef, ttl wireTTL: UInt32, from: PeerAddress, nowMs: UInt64, into out: inout [GossipDirective]
    ) {
        let acts = membership.forwardJoin(
            joiner: ref, ttl: wireTTL, from: from, channels: channels, peers: &peers, rng: &rng, stats: &stats, membershipInputs(nowMs))
        carry(acts, nowMs: nowMs, into: &out)
    }

    mutating func onNeighbor(_ n: NeighborRequest, from: PeerAddress, nowMs: UInt64, into out: inout [GossipDirective]) {
        let acts = membership.neighbor(n, from: from, channels: channels, peers: peers, rng: &rng, stats: &stats, membershipInputs(nowMs))
        carry(acts, nowMs: nowMs, into: &out)
    }

    mutating func onNeighborReply(
        accepted: Bool, info theirs: NodeInfo, from: PeerAddress, nowMs: UInt64, into out: inout [GossipDirective]
    ) {
        let acts = membership.neighborReply(accepted: accepted, info: theirs, from: from, peers: &peers, rng: &rng, membershipInputs(nowMs))
        carry(acts, nowMs: nowMs, into: &out)
    }

    /// A shuffle: answered with a sample of our views, then the peers it names taken in.
    mutating func onShuffle(_ named: [PeerRef], from: PeerAddress, nowMs: UInt64, into out: inout [GossipDirective]) {
        let sample = peers.viewSample(excluding: from, count: config.membership.shuffleSample, using: &rng)
        send(.shuffleReply(sample), to: from, nowMs: nowMs, into: &out)
        integrate(named, nowMs: nowMs)
    }

    /// Peers named in a shuffle or its reply, taken in as passive peers.
    mutating func integrate(_ named: [PeerRef], nowMs: UInt64) {
        peers.integrate(named, count: config.membership.shuffleSample, ours: info, nowMs: nowMs, using: &rng)
    }

    /// May we start a handshake with `peer`, learnt from someone else (`HyParView.mayIntroduce`)?
    mutating func mayIntroduce(_ peer: PeerAddress, nowMs: UInt64) -> Bool {
        membership.mayIntroduce(peer, channels: channels, nowMs: nowMs, stats: &stats)
    }

    mutating func onPing(seq: UInt64, info theirs: NodeInfo?, from: PeerAddress, nowMs: UInt64, into out: inout [GossipDirective]) {
        if let theirs {
            let before = peers.active[from]?.info
            peers[active: from]?.info = theirs
            if peers.vicinity[from] != nil { offerVicinity(from, info: theirs, heard: true, nowMs: nowMs) }
            memberInfoChanged(from, before: before, now: theirs, nowMs: nowMs, into: &out)
        }
        // Our cell and subscriptions only to our links (a stranger learns nothing from an Ack),
        // and to an active member only when its ping carried its own (it knows ours).
        let tell = peers.isLink(from) && (theirs != nil || peers.active[from] == nil)
        // Active views are symmetric (HyParView): tell a pinger that holds us as its member
        // while we do not hold it (a Neighbor we never accepted, a Disconnect lost), so it
        // demotes us. Not while a neighbour request or trial between us is under way.
        let notMember = peers.active[from] == nil && membership.pendingNeighbor?.address != from && peers.candidates[from] == nil
        send(.ack(seq: seq, info: tell ? info : nil, notMember: notMember), to: from, nowMs: nowMs, into: &out)
    }

    mutating func onAck(
        seq: UInt64, info theirs: NodeInfo?, notMember: Bool, from: PeerAddress, nowMs: UInt64, into out: inout [GossipDirective]
    ) {
        let onTrial = peers.candidates[from] != nil
        if onTrial {
            let acts = membership.candidateAnswered(from, seq: seq, peers: &peers, rng: &rng, stats: &stats, membershipInputs(nowMs))
            carry(acts, nowMs: nowMs, into: &out)
        }
        if peers.vicinity[from] != nil, let theirs { offerVicinity(from, info: theirs, heard: true, nowMs: nowMs) }
        if notMember && !onTrial && peers.active[from] != nil {
            // A one-sided link (§9): it does not hold us; it goes to the passive view.
            demote(from, nowMs: nowMs, into: &out)
        } else if var st = peers[active: from] {
            let before = st.info
            if let theirs { st.info = theirs }
            if st.pingSeq == seq { st.pingSentMs = nil; st.suspectSinceMs = nil }
            peers[active: from] = st
            if let theirs { memberInfoChanged(from, before: before, now: theirs, nowMs: nowMs, into: &out) }
        }
        relayAck(seq, nowMs: nowMs, into: &out)
    }

    mutating func onInterest(_ theirs: NodeInfo, from: PeerAddress, nowMs: UInt64, into out: inout [GossipDirective]) {
        let before = peers.active[from]?.info
        peers[active: from]?.info = theirs
        if peers.vicinity[from] != nil { offerVicinity(from, info: theirs, heard: true, nowMs: nowMs) }
        memberInfoChanged(from, before: before, now: theirs, nowMs: nowMs, into: &out)
    }

    /// An active member's info changed (an `Interest`, or the info a ping or an ack carries:
    /// a member first learnt through a walk is known by its cell alone until then): a new
    /// cell, subscriptions or `behind_nat` may make it worth introducing (§9 "Introductions").
    mutating func memberInfoChanged(
        _ from: PeerAddress, before: NodeInfo?, now theirs: NodeInfo, nowMs: UInt64, into out: inout [GossipDirective]
    ) {
        guard let before, peers.active[from] != nil else { return }
        if before.subscriptions != theirs.subscriptions || before.behindNat != theirs.behindNat || before.cell != theirs.cell {
            introduceSharers(of: from, nowMs: nowMs, into: &out)
        }
    }
}
