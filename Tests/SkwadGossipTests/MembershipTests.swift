import SkwadTestTraits
import Testing
import SkwadCrypto
import SkwadModel
import SkwadReplica
@testable import SkwadGossip
import SkwadTestKit

@Suite(.heavy) struct MembershipTests {
    @Test func aHerdOfAHundredJoiningOneSeedConvergesInSeconds() {
        var h = Harness(count: 100)
        h.start { i in i == 0 ? [] : [0] }
        var convergedAt: UInt64?
        for second in 1...20 {
            h.run(ms: 1000)
            if h.membershipConverged(full: 4) { convergedAt = UInt64(second); break }
        }
        #expect(convergedAt != nil)
        // Virtual seconds. 5 before the eclipse defences (PROTOCOL §9: a full node admits a
        // newcomer only after it answered a ping, and evicts at most one member per second);
        // 7 since: the price of not letting a burst of Joins displace a node's links; 10 since
        // one-sided links are demoted (Ack.not_member): they no longer count as full views.
        #expect((convergedAt ?? 99) <= 12)
        #expect(h.nodes.allSatisfy { $0.engine.activePeers.count <= 5 })
    }

    /// Seven nodes with five links each cannot all be full (7 × 5 link ends is odd): one
    /// stays a link short for good, and every node it asks is full. Its low-priority
    /// requests back off (§9) instead of walking the overlay several times a second.
    @Test func aNodeALinkShortStopsAskingWhileIdle() {
        var h = Harness(count: 7)
        h.start { i in i == 0 ? [] : [0] }
        h.run(ms: 20_000)
        #expect(h.nodes.contains { $0.engine.activePeers.count < 5 })
        let before = h.nodes.map { ($0.engine.stats.messagesSent["neighbor"] ?? 0) + ($0.engine.stats.messagesSent["neighbor_reply"] ?? 0) }
        h.run(ms: 120_000)
        let after = h.nodes.map { ($0.engine.stats.messagesSent["neighbor"] ?? 0) + ($0.engine.stats.messagesSent["neighbor_reply"] ?? 0) }
        let sent = zip(before, after).map { $1 - $0 }.reduce(0, +)
        // Backing off to one try per 30 s: a handful of walks (≤ 5 messages each) in two
        // minutes; without it, one walk per answer (hundreds).
        #expect(sent <= 60, "neighbour messages in 120 idle seconds: \(sent)")
        #expect(h.nodes.allSatisfy { $0.engine.activePeers.count >= 4 })
    }

    @Test func aDeadPeerIsDetectedAndReplaced() {
        var h = Harness(count: 12)
        h.start { i in i == 0 ? [] : [0] }
        h.run(ms: 5000)
        #expect(h.membershipConverged(full: 3))
        h.nodes[5].up = false
        h.run(ms: 10_000)
        let dead = Harness.address(5)
        #expect(h.nodes.indices.filter { $0 != 5 }.allSatisfy { !h.nodes[$0].engine.activePeers.contains(dead) })
        #expect(h.nodes.indices.filter { $0 != 5 }.allSatisfy { h.nodes[$0].engine.activePeers.count >= 3 })
    }
}
