import SkwadModel

/// A peer the shell found by itself (a LAN beacon, PROTOCOL §9 "Neighbours on the local
/// network"): joined through as a seed is, once. Not a seed for the re-join rounds: a node
/// that left the network is not asked again until its beacon is heard again.
extension GossipEngine {
    /// Sends `peer` a `Join` unless it is already a link of ours or ourselves; within the
    /// introduction budget (20/s, burst 100), since the shell took its address from a datagram
    /// anyone on the link can send. Each `Join` it lets go counts in `stats.joinsIntroduced`
    /// (a shell that needs to know reads it before and after).
    public mutating func introduce(_ peer: PeerAddress, nowMs: UInt64) -> [GossipDirective] {
        var out: [GossipDirective] = []
        introduce(peer, nowMs: nowMs, into: &out)
        finish(nowMs: nowMs, into: &out)
        return out
    }

    /// As the public `introduce`, into `out`: true when a `Join` went out.
    @discardableResult
    mutating func introduce(_ peer: PeerAddress, nowMs: UInt64, into out: inout [GossipDirective]) -> Bool {
        guard rounds.started, peer != selfAddress, !isLink(peer), mayIntroduce(peer, nowMs: nowMs) else { return false }
        stats.joinsIntroduced += 1
        send(joinMessage, to: peer, nowMs: nowMs, into: &out)
        return true
    }
}
