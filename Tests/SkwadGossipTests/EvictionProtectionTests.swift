import SkwadTestTraits
import Testing
import SkwadModel
import SkwadReplica
@testable import SkwadGossip
import SkwadTestKit

/// Eviction protection (PROTOCOL §9): the member a newcomer displaces is never one of the
/// longest-standing; among the rest it comes from the most crowded network group.
@Suite(.heavy) struct EvictionProtectionTests {
    /// A full view of five members promoted at times 10, 20, … 50.
    static func fullTable(_ addresses: [String]) -> PeerTable {
        var t = PeerTable(config: GossipConfig())
        for (i, a) in addresses.enumerated() { t.promote(PeerAddress(a), info: NodeInfo(), nowMs: UInt64(10 * (i + 1))) }
        return t
    }

    static func victims(_ t: PeerTable, draws: Int = 500) -> Set<PeerAddress> {
        var rng = SplitMix(seed: 42)
        return Set((0..<draws).compactMap { _ in t.evictionVictim(using: &rng) })
    }

    @Test func theThreeLongestStandingMembersAreNeverDisplaced() {
        var t = Self.fullTable(["n5", "n4", "n3", "n2", "n1"])
        #expect(t.protectedMembers == [PeerAddress("n5"), PeerAddress("n4"), PeerAddress("n3")], "by age, not by address")
        #expect(Self.victims(t) == [PeerAddress("n2"), PeerAddress("n1")])
        // A member that leaves hands its shield to the next oldest.
        var rng = SplitMix(seed: 1)
        t.demote(PeerAddress("n4"), using: &rng)
        t.promote(PeerAddress("n9"), info: NodeInfo(), nowMs: 99)
        #expect(Self.victims(t) == [PeerAddress("n1"), PeerAddress("n9")])
    }

    @Test func theMostCrowdedNetworkGroupLosesAMemberFirst() {
        // An attacker host got in first (protected by age); its second port is one of the
        // two open slots, beside an honest member of a /24 of its own: the host's port goes.
        let t = Self.fullTable(["192.0.2.77:4001", "10.0.1.5:7000", "10.0.2.9:7000", "192.0.2.77:4002", "10.0.3.4:7000"])
        #expect(Self.victims(t) == [PeerAddress("192.0.2.77:4002")])
        // The same /24, other hosts: one group too.
        let v = Self.fullTable(["192.0.2.1:7000", "10.0.1.5:7000", "10.0.2.9:7000", "10.0.3.4:7000", "192.0.2.200:7000"])
        #expect(Self.victims(v) == [PeerAddress("192.0.2.200:7000")])
        // Without shared groups the choice is random among the unprotected.
        let u = Self.fullTable(["10.0.1.5:7000", "10.0.2.9:7000", "10.0.3.4:7000", "10.0.4.4:7000", "10.0.5.4:7000"])
        #expect(Self.victims(u) == [PeerAddress("10.0.4.4:7000"), PeerAddress("10.0.5.4:7000")])
    }

    @Test func networkGroupsIgnorePortsAndHostBits() {
        #expect(PeerAddress("192.0.2.77:4001").netgroup == "192.0.2")
        #expect(PeerAddress("192.0.2.1:9").netgroup == PeerAddress("192.0.2.254:65535").netgroup)
        #expect(PeerAddress("192.0.3.1:9").netgroup != PeerAddress("192.0.2.1:9").netgroup)
        #expect(PeerAddress("[2001:db8:1:2::5]:7000").netgroup == PeerAddress("[2001:db8:1:ffff::9]:1").netgroup)
        #expect(PeerAddress("[2001:db8:1:2::5]:7000").netgroup != PeerAddress("[2001:db8:2::5]:7000").netgroup)
        // One /48 written with the elision in different places is still one group.
        #expect(PeerAddress("[2001:db8::5]:7000").netgroup == PeerAddress("[2001:db8:0:1::5]:7000").netgroup)
        #expect(PeerAddress("[::1]:7000").netgroup == PeerAddress("[::2]:7000").netgroup)
        #expect(PeerAddress("n17").netgroup == "n17")
    }

    /// The attack the hostile simulation makes: a stream of newcomers, one a second for a
    /// minute, each answering pings. Without protection every honest link goes (60 random
    /// displacements of 5); with it the three that were there first stay.
    @Test func aMinuteOfNewcomersLeavesTheFirstLinksInPlace() throws {
        var h = MembershipAbuseTests.overlay(5)
        let target = 0
        let honest = Set(h.nodes[target].engine.activePeers)
        #expect(honest.count == GossipConfig().membership.activeSize)
        let first = h.nodes.count
        for k in 0..<60 {
            var e = GossipEngine(seed: UInt64(700 + k), secrets: .seeded)
            e.selfAddress = Harness.address(first + k)
            h.nodes.append(Harness.Node(engine: e, replica: Replica(config: .noFloors)))
            h.apply(first + k, h.nodes[first + k].engine.start(seeds: [Harness.address(target)], nowMs: h.nowMs))
            h.run(ms: 1000)
        }
        let evictions = h.nodes[target].engine.stats.evictions
        #expect(evictions >= 20, "the newcomers did displace members (\(evictions))")
        let kept = honest.intersection(h.nodes[target].engine.activePeers)
        #expect(kept.count >= 3, "honest links kept: \(kept.count)")
    }
}
