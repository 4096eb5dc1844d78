import Testing
import SkwadModel
import SkwadReplica
@testable import SkwadGossip
import SkwadTestKit

/// The passive view (PROTOCOL §9, "Peer table"): when full, a newcomer displaces a peer of the
/// network group holding the most passive peers, itself counted in its own. Before, the
/// victim was uniform: one /24 naming its addresses over and over (a `Shuffle` carries 6, a
/// walk one, a vicinity answer 8) ended up holding nearly every backup a node refills its
/// active view from.
@Suite struct PassiveBucketTests {
    static func honest(_ i: Int) -> PeerAddress { PeerAddress("203.0.\(i).7:4000") }

    @Test func oneNetworkNamingThousandsOfItsAddressesHoldsOnePassiveSlot() {
        var t = PeerTable(config: GossipConfig())
        var rng = SplitMix(seed: 9)
        for i in 0..<t.capacity.passive { t.addPassive(Self.honest(i), cell: "u4pruyd", using: &rng) }
        #expect(t.passive.count == 30)
        for i in 0..<1_000 { t.addPassive(PeerAddress("198.51.100.\(i % 250):\(5000 + i)"), cell: "u4pruyd", using: &rng) }
        let attackers = t.passive.keys.filter { $0.netgroup == "198.51.100" }.count
        #expect(attackers == 1, "one /24 holds \(attackers) of \(t.passive.count)")
        #expect(t.passive.count == 30)
        // Two /24s: two slots. Honest peers of a new network still get in.
        for i in 0..<1_000 { t.addPassive(PeerAddress("198.51.101.\(i % 250):\(5000 + i)"), cell: nil, using: &rng) }
        #expect(t.passive.keys.filter { $0.netgroup.hasPrefix("198.51.10") }.count == 2)
        t.addPassive(PeerAddress("192.0.2.1:4000"), cell: nil, using: &rng)
        #expect(t.passive[PeerAddress("192.0.2.1:4000")] != nil)
    }

    @Test func whereEveryPeerIsItsOwnGroupTheVictimIsUniform() {
        // The simulator's names: each its own group; every passive peer can go.
        var t = PeerTable(config: GossipConfig())
        var rng = SplitMix(seed: 10)
        for i in 0..<t.capacity.passive { t.addPassive(PeerAddress("n\(i)"), cell: nil, using: &rng) }
        var gone = Set<PeerAddress>()
        for i in 0..<200 {
            let before = Set(t.passive.keys)
            t.addPassive(PeerAddress("m\(i)"), cell: nil, using: &rng)
            gone.formUnion(before.subtracting(t.passive.keys))
        }
        #expect(gone.filter { $0.value.hasPrefix("n") }.count == 30, "every original peer was displaced at some point")
    }
}
