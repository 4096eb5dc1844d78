import Testing
import SkwadModel
import SkwadReplica
@testable import SkwadGossip

/// A seed that never answers is tried again with back-off (issue 24): 3 s after the first
/// join, then twice as long after each unanswered try, up to `rejoinMaxMs`.
@Suite struct SeedBackoffTests {
    @Test func anUnansweringSeedIsRetriedLessAndLessOften() {
        var e = GossipEngine(config: GossipConfig(), seed: 7, secrets: .seeded)
        var r = Replica()
        let seed = PeerAddress("127.0.0.1:1")
        let t0: UInt64 = 1_790_000_000_000
        let first = e.start(seeds: [seed], nowMs: t0)
        #expect(first.contains { if case .send(_, seed) = $0 { true } else { false } })
        #expect(e.seedStatus(nowMs: t0)?.unanswered == 0)
        var rejoins: [UInt64] = []
        for s in 1...200 {
            let now = t0 + UInt64(s) * 1000
            let before = e.seedStatus(nowMs: now)?.unanswered ?? -1
            _ = e.tick(nowMs: now, replica: &r)
            if (e.seedStatus(nowMs: now)?.unanswered ?? -1) > before { rejoins.append(UInt64(s)) }
        }
        // (The dead-peer revive round, §9, also greets the seed every 5 s while it is
        // remembered as dead: that is not a join and is not counted here.)
        let status = e.seedStatus(nowMs: t0 + 200_000)
        #expect(status?.seeds == ["127.0.0.1:1"])
        // Joins at 3, 9, 21, 45, 93, 153 s (then every 60 s): 6 in 200 s, not 66.
        #expect(rejoins == [3, 9, 21, 45, 93, 153], "\(rejoins)")
        #expect(status?.unanswered == 6 && (status?.nextInMs ?? 0) > 0)
    }
}
