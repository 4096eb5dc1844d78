import Testing
@testable import SkwadGossip

/// The engine's periodic rounds as data (EngineState.swift): each `Round` has its timer, the
/// revive round runs from the first tick, the others from `start`, and those that back off
/// double while quiet and come back to their base interval when poked.
@Suite struct RoundsTests {
    @Test func roundsStartAsTheirTimersSay() {
        let config = GossipConfig()
        var r = Rounds(config: config)
        #expect(r[.revive].dueMs == 0, "revive runs from the first tick")
        #expect(r[.remote].dueMs == 0)
        for round in [Round.vicinity, .shuffle, .directory, .reconcile] { #expect(r[round].dueMs == .max, "\(round): not before start") }
        r.start(nowMs: 1_000)
        #expect(r[.revive].dueMs == 0, "start leaves the revive round as it was")
        #expect(r[.remote].dueMs == 1_000 + config.membership.vicinityIntervalMs)
        #expect(r[.shuffle].dueMs == 1_000 + config.membership.shuffleIntervalMs)
        #expect(r[.reconcile].dueMs == 1_000 + config.spread.reconIntervalMs)
        #expect(r.nextDueMs == 0)
    }

    @Test func fixedRoundsKeepTheirPaceAndQuietRoundsBackOff() {
        let config = GossipConfig()
        var r = Rounds(config: config)
        r.start(nowMs: 0)
        var now = r[.remote].dueMs
        var fired = r[.remote].fire(nowMs: now)
        #expect(fired)
        now = r[.remote].dueMs
        #expect(now == 2 * config.membership.vicinityIntervalMs, "a fixed round does not back off")
        fired = r[.remote].fire(nowMs: now)
        #expect(fired && r[.remote].dueMs == now + config.membership.vicinityIntervalMs)
        let base = config.membership.shuffleIntervalMs
        fired = r[.shuffle].fire(nowMs: base)
        #expect(fired && r[.shuffle].dueMs == 2 * base, "the first round after start is at base pace")
        fired = r[.shuffle].fire(nowMs: 2 * base)
        #expect(fired && r[.shuffle].dueMs == 4 * base, "quiet: the interval doubles")
        r[.shuffle].poke(nowMs: 2 * base + 1)
        #expect(r[.shuffle].dueMs == 3 * base + 1, "poked: back within the base interval")
        #expect(
            r.nextDueMs
                == min(
                    r[.revive].dueMs, r[.remote].dueMs, r[.shuffle].dueMs, r[.vicinity].dueMs,
                    r[.directory].dueMs, r[.reconcile].dueMs))
    }
}
