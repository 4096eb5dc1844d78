import SkwadModel

/// SWIM's failure detection (Das, Gupta, Motivala 2002; PROTOCOL §9): an active member not
/// heard from for `pingIntervalMs` is pinged; one that does not answer within `ackTimeoutMs`
/// is suspect and pinged indirectly through `indirectPings` others (`PingReq`); a suspect
/// silent for `deadAfterMs` in all is dead. Anything heard from a member since our ping clears
/// it. The members' clocks are the peer table's (`PeerTable.Clocks`, `swimDeadlineMs`); this
/// part holds our ping sequence and the pings we relay for others.
///
/// Its inputs change the clocks of the peer table they are handed and return `SwimAction`s,
/// which the engine carries out in order. A tick checks one due member at a time, and the
/// engine carries out that member's actions (a death forgets it in every part) before the
/// next member is checked: the helpers chosen for a suspect are never a member found dead
/// just before.
struct FailureDetector: Sendable {
    /// Our next ping's sequence number.
    var nextPingSeq: UInt64 = 1
    /// SWIM pings we relay for others, by our sequence number (`indirectCapacity`).
    var indirect: [UInt64: (requester: PeerAddress, seq: UInt64, target: PeerAddress)] = [:]
}

extension FailureDetector: PeerState {
    /// Kept: pings relayed for it or toward it (each ends with its ack, or the oldest goes:
    /// `indirectCapacity`).
    mutating func forget(_ peer: PeerAddress) {}
}

/// Its deadline is the peer table's (`PeerTable.swimDeadlineMs`); no prompt work.
extension FailureDetector: TimedPart {}

/// What the failure detector asks of the engine, in order.
enum SwimAction {
    /// A message to a peer, sealed and sent by the engine.
    case send(Message, to: PeerAddress)
    /// A suspect silent for `deadAfterMs`: given up on (`GossipEngine.forget`, `.dead`).
    case dead(PeerAddress)
}

extension FailureDetector {
    /// A ping with the next sequence number; with our info when `withInfo` (a peer that may
    /// not know it), and on every `pingInfoEvery`-th ping anyway (a lost `Interest` heals).
    mutating func ping(_ info: NodeInfo, withInfo: Bool) -> (Message, UInt64) {
        let seq = nextPingSeq
        nextPingSeq += 1
        return (.ping(seq: seq, info: withInfo || seq % GossipEngine.pingInfoEvery == 0 ? info : nil), seq)
    }

    /// The active members with failure work now, in address order. Most ticks find none: only
    /// the members with something to do are sorted (what one member's handling changes never
    /// makes another's due).
    static func due(_ peers: PeerTable, nowMs: UInt64, config: GossipConfig.Swim) -> [PeerAddress] {
        var due: [PeerAddress] = []
        for (peer, st) in peers.activeClocks where hasWork(st, nowMs: nowMs, config: config) { due.append(peer) }
        return due.sorted()
    }

    /// Would `check` act on this member now (clear an answered ping, drop a dead suspect,
    /// suspect a silent one, or ping it)?
    private static func hasWork(_ st: PeerTable.Clocks, nowMs: UInt64, config: GossipConfig.Swim) -> Bool {
        if let sent = st.pingSentMs, st.lastHeardMs > sent { return true }
        if st.suspectSinceMs != nil { return nowMs >= st.lastHeardMs &+ config.deadAfterMs }
        if let sent = st.pingSentMs { return nowMs >= sent &+ config.ackTimeoutMs }
        return nowMs >= st.lastHeardMs &+ config.pingIntervalMs
    }

    /// One active member's failure work (`due`): an answered ping cleared; a suspect silent
    /// for `deadAfterMs` dead; an unanswered ping past `ackTimeoutMs` makes it suspect and
    /// asks `indirectPings` other members (drawn with `rng`) to ping it; a member silent for
    /// `pingIntervalMs` pinged.
    mutating func check(
        _ peer: PeerAddress, nowMs: UInt64, peers: inout PeerTable, rng: inout SplitMix, info: NodeInfo, config: GossipConfig.Swim
    ) -> [SwimAction] {
        guard var st = peers[active: peer] else { return [] }
        if let sent = st.pingSentMs, st.lastHeardMs > sent {
            st.pingSentMs = nil
            st.suspectSinceMs = nil
            peers[active: peer] = st
        }
        if st.suspectSinceMs != nil {
            return nowMs >= st.lastHeardMs &+ config.deadAfterMs ? [.dead(peer)] : []
        }
        if let sent = st.pingSentMs {
            guard nowMs >= sent &+ config.ackTimeoutMs else { return [] }
            st.suspectSinceMs = nowMs
            peers[active: peer] = st
            let helpers = peers.active.keys.filter { $0 != peer }.sorted().shuffled(using: &rng).prefix(config.indirectPings)
            return helpers.map { .send(.pingReq(seq: st.pingSeq, target: peer), to: $0) }
        }
        guard nowMs >= st.lastHeardMs &+ config.pingIntervalMs else { return [] }
        let (m, seq) = ping(info, withInfo: false)
        st.pingSeq = seq
        st.pingSentMs = nowMs
        peers[active: peer] = st
        return [.send(m, to: peer)]
    }

    /// A member asks us to ping another member for it: only a member may ask, and only about
    /// a member (no pinging arbitrary addresses). Past `indirectCapacity` relayed pings, the
    /// oldest goes.
    mutating func pingRequest(
        seq: UInt64, target: PeerAddress, from: PeerAddress, peers: PeerTable, info: NodeInfo, stats: inout GossipStats
    ) -> [SwimAction] {
        guard peers.active[from] != nil, peers.active[target] != nil, target != from else { stats.drop(.notAMember); return [] }
        let (m, ourSeq) = ping(info, withInfo: true)
        indirect[ourSeq] = (from, seq, target)
        if indirect.count > GossipEngine.indirectCapacity, let oldest = indirect.keys.min() { indirect[oldest] = nil }
        return [.send(m, to: target)]
    }

    /// An ack of our ping `seq`: the indirect ack owed to the member that asked us to ping,
    /// if it was a relayed ping.
    mutating func acked(_ seq: UInt64) -> SwimAction? {
        guard let req = indirect.removeValue(forKey: seq) else { return nil }
        return .send(.indirectAck(seq: req.seq, target: req.target), to: req.requester)
    }

    /// Another member pinged `target` for us and it answered: it is alive.
    static func indirectAck(target: PeerAddress, nowMs: UInt64, peers: inout PeerTable) {
        guard var st = peers[active: target] else { return }
        st.suspectSinceMs = nil; st.pingSentMs = nil; st.lastHeardMs = nowMs
        peers[active: target] = st
    }
}

extension GossipEngine {
    /// A ping with the next sequence number (`FailureDetector.ping`).
    mutating func pingMessage(withInfo: Bool = true) -> (Message, UInt64) { swim.ping(info, withInfo: withInfo) }

    /// SWIM's due work at a tick (`EnginePart.swim`): each due member checked, and its
    /// actions carried out before the next is checked.
    mutating func detectFailures(nowMs: UInt64, into out: inout [GossipDirective]) {
        for peer in FailureDetector.due(peers, nowMs: nowMs, config: config.swim) {
            let acts = swim.check(peer, nowMs: nowMs, peers: &peers, rng: &rng, info: info, config: config.swim)
            carry(acts, nowMs: nowMs, into: &out)
        }
    }

    mutating func onPingReq(seq: UInt64, target: PeerAddress, from: PeerAddress, nowMs: UInt64, into out: inout [GossipDirective]) {
        carry(swim.pingRequest(seq: seq, target: target, from: from, peers: peers, info: info, stats: &stats), nowMs: nowMs, into: &out)
    }

    mutating func onIndirectAck(target: PeerAddress, nowMs: UInt64) {
        FailureDetector.indirectAck(target: target, nowMs: nowMs, peers: &peers)
    }

    /// The indirect ack owed for our ping `seq`, if it was one we relayed.
    mutating func relayAck(_ seq: UInt64, nowMs: UInt64, into out: inout [GossipDirective]) {
        if let a = swim.acked(seq) { carry([a], nowMs: nowMs, into: &out) }
    }

    /// Carries out what the failure detector asked, in its order.
    private mutating func carry(_ acts: [SwimAction], nowMs: UInt64, into out: inout [GossipDirective]) {
        for a in acts {
            switch a {
            case .send(let m, let to): send(m, to: to, nowMs: nowMs, into: &out)
            case .dead(let peer): forget(peer, .dead, nowMs: nowMs, into: &out)
            }
        }
    }
}
