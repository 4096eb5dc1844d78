import SkwadModel

/// A peer the shell found by itself (a LAN beacon, PROTOCOL §9 "Neighbours on the local
/// network"): joined through as a seed is, once. Not a seed for the re-join rounds: a node
/// that left the network is not asked again until its beacon is heard again.
extension GossipEngine {
    /// Sends `peer` a `Join` unless it is already a link of ours or ourselves; within the
    /// introduction budget (20/s, burst 100), since the shell took its address from a datagram
    /// anyone on the link can send. True when a `Join` went out.
    public mutating func introduce(_ peer: PeerAddress, nowMs: UInt64) -> (sent: Bool, directives: [GossipDirective]) {
        guard rounds.started, peer != selfAddress, !isLink(peer), mayIntroduce(peer, nowMs: nowMs) else { return (false, []) }
        var out: [GossipDirective] = []
        send(joinMessage, to: peer, nowMs: nowMs, into: &out)
        return (true, out)
    }
}
