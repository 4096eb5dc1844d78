import SkwadModel

/// Membership messages (PROTOCOL §9), one handler each. Wire values arrive checked
/// (MessageWire.swift); walk lengths are clamped here, to our own configured walks.
extension GossipEngine {
    mutating func onJoin(_ theirs: NodeInfo, from: PeerAddress, nowMs: UInt64, into out: inout [GossipDirective]) {
        guard membership.guardState.admitJoin(from: from, nowMs: nowMs) else { stats.drop(.joinLimited); return }
        if admitOrTry(from, info: theirs, nowMs: nowMs, into: &out) {
            send(.neighborReply(accepted: true, info: info, observed: from.observable), to: from, nowMs: nowMs, into: &out)
        }
        // A relayed joiner is reachable through its relay only: not walked on.
        for p in peers.active.keys.sorted() where p != from && !from.isRelayed {
            send(
                .forwardJoin(joiner: PeerRef(address: from, cell: theirs.cell), ttl: UInt32(config.membership.activeWalk)), to: p,
                nowMs: nowMs, into: &out)
        }
    }

    mutating func onForwardJoin(
        joiner ref: PeerRef, ttl wireTTL: UInt32, from: PeerAddress, nowMs: UInt64, into out: inout [GossipDirective]
    ) {
        // Walks come only from members, and no longer than ours (PROTOCOL §9).
        guard peers.active[from] != nil else { stats.drop(.notAMember); return }
        let ttl = min(wireTTL, UInt32(config.membership.activeWalk))
        let joiner = ref.address, cell = ref.cell
        guard joiner != selfAddress else { return }
        if let cell { offerVicinity(joiner, info: NodeInfo(cell: cell), heard: false, nowMs: nowMs) }
        if ttl == 0 || peers.active.count <= 1 {
            if !mayIntroduce(joiner, nowMs: nowMs) {
                addPassive(joiner, cell: cell, nowMs: nowMs)
            } else if peers.isFull {
                // Full here: the joiner displaces a member only after answering a ping,
                // within the eviction budget.
                _ = admitOrTry(joiner, info: NodeInfo(cell: cell), nowMs: nowMs, into: &out)
            } else if peers.active[joiner] == nil {
                send(.neighbor(NeighborRequest(highPriority: true, info: info, origin: nil, ttl: 0)), to: joiner, nowMs: nowMs, into: &out)
                addActive(joiner, info: NodeInfo(cell: cell), nowMs: nowMs, into: &out)
            }
            return
        }
        if ttl == UInt32(config.membership.passiveWalk) { addPassive(joiner, cell: cell, nowMs: nowMs) }
        if let next = randomActive(excluding: [from, joiner]) {
            send(.forwardJoin(joiner: ref, ttl: ttl - 1), to: next, nowMs: nowMs, into: &out)
        } else if peers.active[joiner] == nil {
            if peers.isFull || !mayIntroduce(joiner, nowMs: nowMs) { addPassive(joiner, cell: cell, nowMs: nowMs); return }
            send(.neighbor(NeighborRequest(highPriority: true, info: info, origin: nil, ttl: 0)), to: joiner, nowMs: nowMs, into: &out)
            addActive(joiner, info: NodeInfo(cell: cell), nowMs: nowMs, into: &out)
        }
    }

    mutating func onNeighbor(_ n: NeighborRequest, from: PeerAddress, nowMs: UInt64, into out: inout [GossipDirective]) {
        // A forwarded request (`origin` set) counts only from a member; walks are clamped.
        if n.origin != nil && peers.active[from] == nil { stats.drop(.notAMember); return }
        let asker = n.origin ?? from
        guard asker != selfAddress else { return }
        let ttl = min(n.ttl, Self.neighborWalk)
        let room = peers.hasRoom || peers.active[asker] != nil
        if !room && n.highPriority && asker == from {
            // Must accept, but a full view tests the newcomer first (MembershipGuard).
            _ = admitOrTry(asker, info: n.info, nowMs: nowMs, into: &out)
            return
        }
        if !room && ttl > 0, let next = randomActive(excluding: [from, asker]) {
            // Full here: walk the request on towards a node with room.
            var f = n; f.origin = asker; f.ttl = ttl - 1
            send(.neighbor(f), to: next, nowMs: nowMs, into: &out)
            return
        }
        if room && asker != from && !mayIntroduce(asker, nowMs: nowMs) { return }
        if room { addActive(asker, info: n.info, nowMs: nowMs, into: &out) }
        send(.neighborReply(accepted: room, info: info, observed: room ? asker.observable : nil), to: asker, nowMs: nowMs, into: &out)
    }

    mutating func onNeighborReply(
        accepted: Bool, info theirs: NodeInfo, from: PeerAddress, nowMs: UInt64, into out: inout [GossipDirective]
    ) {
        // Any answer ends our request: a walked one is answered by whoever it reached.
        // Only an answer while we wait for one sets the delay of the next (a stranger's
        // unasked decline does not); an acceptance by a member we already hold (a walk that
        // ended at one of our links) gains nothing and counts as a decline.
        if membership.pendingNeighbor != nil {
            if accepted && peers.active[from] == nil { membership.neighborRetryMs = 0 } else { neighborDeclined(nowMs: nowMs) }
        }
        membership.pendingNeighbor = nil
        if accepted && peers.active[from] == nil && peers.isFull {
            // A walked request found room after we filled up: decline politely.
            send(.disconnect, to: from, nowMs: nowMs, into: &out)
        } else if accepted {
            addActive(from, info: theirs, nowMs: nowMs, into: &out)
        } else if peers.active[from] == nil {
            addPassive(from, cell: theirs.cell, nowMs: nowMs)
        }
    }

    mutating func onShuffle(_ named: [PeerRef], from: PeerAddress, nowMs: UInt64, into out: inout [GossipDirective]) {
        send(.shuffleReply(viewSample(excluding: from)), to: from, nowMs: nowMs, into: &out)
        integrate(named, nowMs: nowMs)
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
        if onTrial { candidateAnswered(from, seq: seq, nowMs: nowMs, into: &out) }
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
