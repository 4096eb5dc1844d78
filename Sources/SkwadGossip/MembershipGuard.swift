import SkwadModel

/// What keeps a stranger from steering membership cheaply (PROTOCOL §9, "Holding against
/// hostile peers"; after Heilman et al., "Eclipse Attacks on Bitcoin's Peer-to-Peer
/// Network", 2015: test before evicting; bound what a newcomer may displace):
/// - Joins are rate-limited per source and in all;
/// - a full active view admits a newcomer (a `Join`, a high-priority `Neighbor`, the end of a
///   `ForwardJoin` walk) only after the newcomer answered a ping, and evicts at most one
///   member per `evictionIntervalMs` (1 s) for all of them together;
/// - walk lengths from the wire are clamped;
/// - a node introduces itself (a handshake) to addresses it learned from others at a
///   bounded rate, so a message naming many addresses cannot make it a reflector.
struct MembershipGuard: Sendable {
    /// A newcomer waiting to prove it answers before it may displace a member (a fact of its
    /// peer-table record: `PeerTable.candidates`; capacity `candidateCapacity`, the oldest
    /// goes first).
    struct Candidate: Sendable {
        var info: NodeInfo
        var pingSeq: UInt64
        var sinceMs: UInt64
    }

    /// Last `Join` per source address; capacity `joinMemory`, the oldest goes first.
    var lastJoinMs: [PeerAddress: UInt64] = [:]
    var joins: TokenBucket
    var introductions: TokenBucket
    var nextEvictionMs: UInt64 = 0

    init(nowMs: UInt64 = 0) {
        joins = TokenBucket(rate: 20, burst: 100, nowMs: nowMs)
        introductions = TokenBucket(rate: 20, burst: 100, nowMs: nowMs)
    }

    /// May a `Join` from `source` be taken now? (One per source per 2 s; 20/s in all.)
    mutating func admitJoin(from source: PeerAddress, nowMs: UInt64) -> Bool {
        if let last = lastJoinMs[source], nowMs < last &+ Self.joinIntervalPerSourceMs { return false }
        guard joins.take(1, nowMs: nowMs) else { return false }
        lastJoinMs.makeRoom(for: source, capacity: Self.joinMemory) { $0 }
        lastJoinMs[source] = nowMs
        return true
    }
}

extension GossipEngine {
    /// A peer asks to become an active member (`Join`, or a high-priority `Neighbor`). With
    /// room it is added at once (true). With a full view it is pinged and put on trial; it
    /// is admitted when it answers and the eviction budget allows (false for now).
    mutating func admitOrTry(_ peer: PeerAddress, info peerInfo: NodeInfo, nowMs: UInt64, into out: inout [GossipDirective]) -> Bool {
        // A direct link replaces a relayed one to the same peer: its slot is free for it.
        retireRelayedTwins(of: peer, into: &out)
        if peers.active[peer] != nil || peers.hasRoom {
            addActive(peer, info: peerInfo, nowMs: nowMs, into: &out)
            return true
        }
        let (ping, seq) = pingMessage()
        peers.putOnTrial(peer, .init(info: peerInfo, pingSeq: seq, sinceMs: nowMs), capacity: MembershipGuard.candidateCapacity)
        stats.candidates += 1
        send(ping, to: peer, nowMs: nowMs, into: &out)
        return false
    }
}
