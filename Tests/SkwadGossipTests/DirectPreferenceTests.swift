import SkwadTestTraits
import Testing
import SkwadModel
@testable import SkwadGossip
import SkwadTestKit

/// Two NATs with address-dependent filtering between two nodes (as Linux conntrack): a
/// datagram from `a` reaches `b` only if `b` sent one to `a` within `timeoutMs`, and the other
/// way round; a datagram sent opens its sender's side even when the other side drops it.
final class FilteringNats: @unchecked Sendable {
    let a: Int, b: Int, timeoutMs: UInt64
    private var lastSent: [Int: UInt64] = [:]
    init(_ a: Int, _ b: Int, timeoutMs: UInt64 = 30_000) { (self.a, self.b, self.timeoutMs) = (a, b, timeoutMs) }

    /// Drops (true) a datagram `from` → `to` sent at `nowMs`.
    func drops(from: Int, to: Int, nowMs: UInt64) -> Bool {
        guard (from == a && to == b) || (from == b && to == a) else { return false }
        lastSent[from] = nowMs
        guard let opened = lastSent[to] else { return true }
        return nowMs > opened &+ timeoutMs
    }
}

/// The overlay prefers direct links (PROTOCOL §9 "Direct links first").
@Suite(.heavy) struct DirectPreferenceTests {
    /// Two nodes linked through the relay after a failed punch; then their NATs let a punch
    /// through (filtering only, as endpoint-independent NATs): the relayed link's direct tries,
    /// sent by both ends on one schedule, link them directly, the relayed link is retired at
    /// both ends, and the relay passes nothing more for them.
    @Test func aRelayedLinkMovesToADirectOneWhenAPunchLaterWorks() {
        var h = RelayTests.symmetricPair()
        h.run(ms: 20_000)
        let viaA = PeerAddress.relayed(Harness.address(2), via: Harness.address(0))
        let viaB = PeerAddress.relayed(Harness.address(1), via: Harness.address(0))
        #expect(h.nodes[1].engine.activePeers.contains(viaA) && h.nodes[2].engine.activePeers.contains(viaB))
        #expect(h.nodes[1].engine.stats.directRetries == 0, "nothing tried before the first retry is due")
        // The NATs now filter by address only: a datagram gets in once its receiver sent one out.
        let nats = FilteringNats(1, 2)
        h.filter = nil
        h.timedFilter = { from, to, _, now in nats.drops(from: from, to: to, nowMs: now) }
        var ms: UInt64 = 0
        while ms < 300_000, !(h.nodes[1].engine.activePeers.contains(Harness.address(2))) {
            h.run(ms: 1_000); ms += 1_000
        }
        let a = h.nodes[1].engine, b = h.nodes[2].engine
        #expect(a.activePeers.contains(Harness.address(2)), "\(a.activePeers) \(a.stats.directRetries)")
        #expect(b.activePeers.contains(Harness.address(1)), "\(b.activePeers) \(b.stats.directRetries)")
        #expect(!a.activePeers.contains(viaA) && !b.activePeers.contains(viaB), "\(a.activePeers) \(b.activePeers)")
        #expect(a.stats.relayedToDirect >= 1 && b.stats.relayedToDirect >= 1, "\(a.stats.relayedToDirect) \(b.stats.relayedToDirect)")
        // The relay is not used any more, and the direct link holds.
        h.run(ms: 2_000)
        let relayed = h.nodes[0].engine.stats.relayedBytes
        h.run(ms: 120_000)
        #expect(h.nodes[0].engine.stats.relayedBytes == relayed, "\(h.nodes[0].engine.stats.relayedBytes) > \(relayed)")
        #expect(h.nodes[1].engine.activePeers.contains(Harness.address(2)) && !h.nodes[1].engine.activePeers.contains(viaA))
        #expect(h.nodes[2].engine.activePeers.contains(Harness.address(1)) && !h.nodes[2].engine.activePeers.contains(viaB))
    }

    /// Behind NATs that never let a punch through, the relayed link stays, and its direct
    /// tries back off: 30 s after the link came up, then 60, 120, ... up to 10 minutes apart.
    /// Both ends try together (within 2 s: a HELLO's retries span 1.5 s, a NAT's hole lasts
    /// 30 s or more), each try opening its own NAT toward the other.
    @Test func aRelayedLinkThatCannotGoDirectKeepsTheRelayAndBacksOffAndBothEndsTryTogether() {
        var h = RelayTests.symmetricPair()
        h.recordWire = false
        var tries: [[UInt64]] = [[], []]
        for second in 0..<UInt64(20 * 60) {
            let before = [h.nodes[1].engine.stats.directRetries, h.nodes[2].engine.stats.directRetries]
            h.run(ms: 1_000)
            for k in 0..<2 where h.nodes[k + 1].engine.stats.directRetries > before[k] { tries[k].append(second) }
        }
        let viaA = PeerAddress.relayed(Harness.address(2), via: Harness.address(0))
        let a = h.nodes[1].engine
        #expect(a.activePeers.contains(viaA), "\(a.activePeers)")
        // 20 minutes: tries at ≈ 30 s, 90 s, 210 s, 450 s, 930 s after the link came up.
        #expect((4...6).contains(tries[0].count), "\(tries)")
        #expect(tries[0].count == tries[1].count, "\(tries)")
        for (x, y) in zip(tries[0], tries[1]) { #expect(x <= y + 2 && y <= x + 2, "\(tries)") }
        let gaps = zip(tries[0].dropFirst(), tries[0]).map { $0 - $1 }
        #expect(zip(gaps.dropFirst(), gaps).allSatisfy { $0 >= $1 * 2 - 2 }, "doubling: \(gaps)")
        #expect(a.stats.relayedToDirect == 0)
    }

    @Test func theScheduleDoublesFromTheLastDueTimeUpToTenMinutes() {
        var s = DirectRetries.Schedule(dueMs: 30_000, delayMs: 30_000)
        var dues: [UInt64] = []
        for _ in 0..<7 {
            s = DirectRetries.next(after: s, nowMs: s.dueMs + 700)
            dues.append(s.dueMs)
        }
        #expect(dues == [90_000, 210_000, 450_000, 930_000, 1_530_000, 2_130_000, 2_730_000])
        // Asleep past several tries: the next is a whole delay from now.
        let late = DirectRetries.next(after: .init(dueMs: 30_000, delayMs: 30_000), nowMs: 500_000)
        #expect(late == .init(dueMs: 560_000, delayMs: 60_000))
    }
}
