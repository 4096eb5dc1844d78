import Testing
@testable import SkwadGossip
import SkwadTestKit

/// An engine without prompt work sleeps until its soonest deadline (PROTOCOL §10), instead
/// of waking every 250 ms whatever was due, and still detects a dead member in time.
@Suite struct IdleWakeTests {
    /// Timers the nodes of `h` scheduled while `ms` idle milliseconds ran (each tick
    /// schedules one; an earlier request replaces the pending one under a new generation).
    static func wakes(_ h: inout Harness, ms: UInt64) -> Int {
        let before = h.nodes.map { Int($0.interpreter.timer.generation) }
        h.run(ms: ms)
        return zip(before, h.nodes.map { Int($0.interpreter.timer.generation) }).map { $1 - $0 }.reduce(0, +)
    }

    @Test func anIdleOverlayWakesLessThanEveryQuarterSecondAndStillFindsTheDead() {
        var h = Harness(count: 6)
        h.start { i in i == 0 ? [] : [0] }
        h.run(ms: 60_000)
        #expect(h.membershipConverged(full: 5))
        // Full views, rounds backed off: each node's deadlines are its pings (one per member
        // per 2 s unless it heard from it: about 1.2/s here), the remote round (0.5/s), the
        // revive round (0.2/s), session expiry scans and a round now and then: 3.0/s measured.
        // Waking every 250 ms was 4/s at least.
        let perNodeSecond = Double(Self.wakes(&h, ms: 60_000)) / (6 * 60)
        #expect(perNodeSecond < 3.5, "wakes per node per second: \(perNodeSecond)")
        // A member gone silent is still dropped within 5 s (ping due after 2 s plus the
        // spread, ack timeout 0.5 s, dead 4 s after last heard).
        h.nodes[3].up = false
        h.run(ms: 5_000)
        let dead = Harness.address(3)
        #expect(h.nodes.indices.filter { $0 != 3 }.allSatisfy { !h.nodes[$0].engine.activePeers.contains(dead) })
    }

    @Test func theWaitNeverPassesAPingThatFallsDue() {
        var h = Harness(count: 3)
        h.start { i in i == 0 ? [] : [0] }
        h.run(ms: 30_000)
        let e = h.nodes[0].engine
        let wait = e.idleWait(nowMs: h.nowMs)
        #expect(wait >= e.config.ticks.tickMs && wait <= e.config.ticks.idleTickMs)
        for m in e.peers.active.values where m.pingSentMs == nil && m.suspectSinceMs == nil {
            #expect(h.nowMs + wait <= m.lastHeardMs + e.config.swim.pingIntervalMs + GossipEngine.fillingTickMs)
        }
    }
}
