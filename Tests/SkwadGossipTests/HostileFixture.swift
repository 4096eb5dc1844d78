import SkwadReplica
@testable import SkwadGossip
import SkwadTestKit

/// The engine the attack tests face: a node's address filter (canonical unicast hosts only), started with no seeds, at
/// `selfAddress`; and one hostile peer per address (seeded 1, 2, …), each having shaken hands
/// with it (members only once they send a `Join`).
enum HostileFixture {
    static let t0: UInt64 = 1_790_000_000_000

    static func engine(
        seed: UInt64 = 5, selfAddress: PeerAddress? = PeerAddress("10.9.9.9:7400"), peers addresses: [String],
        nowMs: UInt64 = t0
    ) -> (GossipEngine, Replica, [HostilePeer]) {
        var e = GossipEngine(seed: seed, secrets: .seeded)
        e.addressFilter = { $0.isDialable }
        if let selfAddress { e.selfAddress = selfAddress }
        var r = Replica()
        _ = e.start(seeds: [], nowMs: nowMs)
        var ps: [HostilePeer] = []
        for (i, a) in addresses.enumerated() {
            var p = HostilePeer(address: PeerAddress(a), seed: UInt64(i + 1))
            let keyed = p.handshake(with: &e, nowMs: nowMs, replica: &r)
            precondition(keyed, "handshake with \(a)")
            ps.append(p)
        }
        return (e, r, ps)
    }

    /// "198.18.(i+1).1:5000" for i in 0..<count.
    static func addresses(_ count: Int) -> [String] { (0..<count).map { "198.18.\($0 + 1).1:5000" } }
}
