import Foundation
import Testing
import SkwadCrypto
import SkwadModel
@testable import SkwadReplica
@testable import SkwadGossip
import SkwadTestKit

/// Issue 11, part A: one pseudonym floods reports, in opposite orders, at two nodes of a
/// gossiping network. Every node ends with the same 5 (the smallest of the hour, PROTOCOL
/// §4 rule 8a), the rest refused and counted, and reconciliation settles.
@Suite struct ReportFloodTests {
    @Test func aReportFloodLeavesTheSameFiveReportsOnEveryNode() throws {
        var h = Harness(
            count: 3,
            config: {
                var c = GossipConfig(); c.spread.reconIntervalMs = 300; return c
            }())
        h.start { i in i == 0 ? [] : [0] }
        h.run(ms: 2000)
        var f = OpFactory(seed: 1112, nowMs: h.nowMs, floors: false)
        let alpha = f.user(), spammer = f.user()
        let g = f.createPack(by: alpha)
        let p = f.post(by: alpha, in: g)
        for i in 0..<3 { h.setInterest(i, cell: nil, subscriptions: [g.id]) }
        h.publish(g, at: 0)
        h.publish(p, at: 0)
        h.run(ms: 500)
        let base = h.nowMs / Lifetime.hour * Lifetime.hour
        // Rule 8a bounds an op author: one carrier key for the whole flood.
        let carrier = SigningKeyPair.generate()
        let reports = (0..<20).map { i in
            f.report(by: spammer, in: g, on: p.id, reason: "r\(i)", hlc: HLC(physicalMs: base + UInt64(i), counter: 0), carrier: carrier)
        }
        func flood(_ ops: [SignedOp], to j: Int) {
            // One report a message: a report op (one key box and a 360-byte box) is about 540 bytes.
            for op in ops {
                var m = WireMessage(); var o = Skwad_Gossip_V1_Ops()
                o.envelopes = [Data(op.envelope.serialized())]
                m.ops = o
                MembershipAbuseTests.say(m, from: 1, to: j, in: &h)
            }
        }
        flood(reports, to: 0)
        flood(reports.reversed(), to: 2)
        h.run(ms: 3000)
        let kept = Set(reports.prefix(Limits.reportsPerHour).map(\.id))
        for i in 0..<3 { #expect(Set(h.nodes[i].replica.reportIDs(in: g.id)) == kept, "node \(i)") }
        #expect(h.nodes.allSatisfy { $0.replica.count == h.nodes[0].replica.count })
        // Node 0 got the flood in ascending order first: the 6th and later are refused and
        // counted. (How many each node refused rather than admitted and later evicted
        // depends on the order the two floods and their forwards crossed.)
        #expect((h.nodes[0].engine.stats.opsRejected["reportLimited"] ?? 0) > 0)
    }
}
