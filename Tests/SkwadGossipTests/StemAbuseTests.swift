import Foundation
import Testing
import SkwadModel
import SkwadReplica
@testable import SkwadGossip
import SkwadTestKit

/// `Stem` from a peer that plays with it (PROTOCOL §10a).
@Suite struct StemAbuseTests {
    @Test func aForgedStemIsRejectedAndAReplayedOneSpreadsNothing() throws {
        var (h, f, g) = StemTests.network()
        let post = f.post(by: f.user(), in: g, title: "already here")
        for i in h.nodes.indices { _ = h.nodes[i].replica.admit(post, nowMs: h.nowMs) }
        let victim = 0, bad = try #require(h.nodes[0].engine.activePeers.first.flatMap(Harness.index))
        // A Stem whose signature does not verify: rejected, counted, nothing admitted or sent on.
        var forged = f.post(by: f.user(), in: g, title: "forged").envelope.serialized()
        forged[forged.count - 1] ^= 1
        var m = WireMessage(); var s = Skwad_Gossip_V1_Stem(); s.envelope = Data(forged); m.stem = s
        let sentBefore = h.nodes[victim].engine.stats.datagramsOut
        MembershipAbuseTests.say(m, from: bad, to: victim, in: &h)
        // A Stem of an op the victim already holds (and never stemmed): no fluff, no stem on.
        var again = WireMessage(); var s2 = Skwad_Gossip_V1_Stem(); s2.envelope = Data(post.envelope.serialized()); again.stem = s2
        for _ in 0..<20 { MembershipAbuseTests.say(again, from: bad, to: victim, in: &h) }
        h.run(ms: 20)
        #expect((h.nodes[victim].engine.stats.opsRejected["badSignature"] ?? 0) == 1)
        #expect(h.nodes[victim].engine.stats.fluffed == 0 && h.nodes[victim].engine.stats.stemmed == 0)
        #expect(h.nodes[victim].engine.stats.datagramsOut - sentBefore < 5)
    }
}
