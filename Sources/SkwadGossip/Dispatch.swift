import SkwadModel
import SkwadReplica

/// One authenticated message from a peer, to its handler. Hearing from a peer at all
/// refreshes its clocks and brings it back from the dead (PeerTable).
extension GossipEngine {
    mutating func handle(_ m: Message, from: PeerAddress, nowMs: UInt64, replica: inout Replica, into out: inout [GossipDirective]) {
        let gone = peers.dead[from], wasLink = peers.isHeardLink(from)
        // A peer that became a link by speaking to us (a vicinity entry heard for the first
        // time, a new member or remote contact) gets a directory pull at the next tick (§11a).
        defer { if !wasLink && peers.isHeardLink(from) { directoryOnNewLink(from) } }
        peers.heard(from, nowMs: nowMs, using: &rng)
        if let cell = gone?.cell { offerVicinity(from, info: NodeInfo(cell: cell), heard: false, nowMs: nowMs) }
        switch m {
        case .join(let theirs): onJoin(theirs, from: from, nowMs: nowMs, into: &out)
        case .forwardJoin(let joiner, let ttl): onForwardJoin(joiner: joiner, ttl: ttl, from: from, nowMs: nowMs, into: &out)
        case .neighbor(let n): onNeighbor(n, from: from, nowMs: nowMs, into: &out)
        case .neighborReply(let accepted, let theirs, let observed):
            onNeighborReply(accepted: accepted, info: theirs, from: from, nowMs: nowMs, into: &out)
            // Accepted: it is our member now; tell it how we see it in turn.
            if accepted && peers.active[from] != nil {
                if let observed { onObserved(observed, from: from, nowMs: nowMs, into: &out) }
                if let o = from.observable { send(.observed(o), to: from, nowMs: nowMs, into: &out) }
            }
        case .disconnect: demote(from, nowMs: nowMs, into: &out)
        case .shuffle(let named): onShuffle(named, from: from, nowMs: nowMs, into: &out)
        case .shuffleReply(let named): integrate(named, nowMs: nowMs)
        case .ping(let seq, let theirs): onPing(seq: seq, info: theirs, from: from, nowMs: nowMs, into: &out)
        case .ack(let seq, let theirs, let notMember):
            onAck(seq: seq, info: theirs, notMember: notMember, from: from, nowMs: nowMs, into: &out)
        case .pingReq(let seq, let target): onPingReq(seq: seq, target: target, from: from, nowMs: nowMs, into: &out)
        case .indirectAck(_, let target): onIndirectAck(target: target, nowMs: nowMs)
        case .interest(let theirs): onInterest(theirs, from: from, nowMs: nowMs, into: &out)
        case .vicinity(let v): onVicinity(v, from: from, nowMs: nowMs, replica: replica, into: &out)
        case .ops(let envelopes, let repair): onOps(envelopes, repair: repair, from: from, nowMs: nowMs, replica: &replica, into: &out)
        case .ihave(let ids): onIHave(ids, from: from, nowMs: nowMs, replica: replica)
        case .want(let ids, let graft): onWant(ids: ids, graft: graft, from: from, nowMs: nowMs, replica: replica, into: &out)
        case .prune: if isLink(from) { setLazy(from, true) }
        case .stem(let envelope): onStem(envelope, from: from, nowMs: nowMs, replica: &replica, into: &out)
        case .reconcile(let r):
            let first = markReconciled(from, nowMs: nowMs)
            onReconcile(r, from: from, nowMs: nowMs, replica: replica, into: &out)
            if first { onProof(from, pulled: r.initiator && r.directory, nowMs: nowMs, replica: replica, into: &out) }
        case .reconciles(let rounds):
            let first = markReconciled(from, nowMs: nowMs)
            // The steps that answer them go back together too (§11).
            let opened = holdReconciles()
            for r in rounds { onReconcile(r, from: from, nowMs: nowMs, replica: replica, into: &out) }
            if opened { flushReconciles(nowMs: nowMs, replica: replica, into: &out) }
            if first { onProof(from, pulled: false, nowMs: nowMs, replica: replica, into: &out) }
        case .findPack(let query): onFindPack(query: query, from: from, nowMs: nowMs, replica: replica, into: &out)
        case .relay(let to, let frame): onRelay(to: to, frame: frame, from: from, nowMs: nowMs, into: &out)
        case .relayed(let source, let frame):
            onRelayed(from: source, frame: frame, relayedBy: from, nowMs: nowMs, replica: &replica, into: &out)
        case .observed(let address): onObserved(address, from: from, nowMs: nowMs, into: &out)
        case .introduce(let target, let padding): onIntroduce(target, padding: padding.count, from: from, nowMs: nowMs, into: &out)
        case .contactProbe(let tag, let padding): onContactProbe(tag: tag, padding: padding.count, from: from, nowMs: nowMs, into: &out)
        case .contactProof(let key, let signature): onContactProof(key: key, signature: signature, from: from, nowMs: nowMs)
        case .blockWant(let root, let indexes, let wait):
            onBlockWant(root: root, indexes: indexes, wait: wait, from: from, nowMs: nowMs, replica: replica, into: &out)
        case .block(let root, let index, let data):
            onBlock(root: root, index: index, data: data, from: from, nowMs: nowMs, replica: replica, into: &out)
        }
    }
}
