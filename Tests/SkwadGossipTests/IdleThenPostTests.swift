import SkwadTestTraits
import Foundation
import Testing
import SkwadModel
import SkwadReplica
@testable import SkwadGossip
import SkwadTestKit

/// The process benchmark's shape in virtual time: nodes at one place (vicinity links as well
/// as the active view), a fenced pack, a long idle window (every round backed off to its
/// quiet interval), then one author posting a second apart. Each post must reach every node
/// by the stem and the tree, not by a stem's fail-safe (a second or more): within 300 ms, the
/// tree with at most one graft (150 ms) on the way. Over three link seeds: in about one of
/// 12, the first post after the idle window needs a graft (220–260 ms).
@Suite(.heavy) struct IdleThenPostTests {
    @Test(arguments: [UInt64(7), 8, 9])
    func postsAfterAnIdleWindowReachAllWithoutAFailsafe(linkSeed: UInt64) throws {
        let here = try GeoPoint(lat: 40.4433, lon: -79.9436)
        let cell = Geohash.encode(here, precision: 7)
        let n = 20
        var h = Harness(count: n, cells: Array(repeating: cell, count: n), model: UniformLatency(seed: linkSeed))
        h.start { i in i == 0 ? [] : [0] }
        h.run(ms: 3000)
        var f = OpFactory(seed: 9, nowMs: h.nowMs, floors: false)
        let author = f.user()
        let g = f.createPack(by: author, name: "quad", fence: Geofence(center: here, radiusMeters: 2000))
        h.publish(g, at: 0)
        h.run(ms: 5_000)
        let expiredBefore = h.nodes.map(\.engine.stats.sessionsSilent).reduce(0, +)
        h.run(ms: 55_000)  // idle: every backoff at its ceiling
        #expect(h.nodes.allSatisfy { $0.replica.contains(g.id) })
        // A healthy idle session is not dropped as silent: only messages that always get an
        // answer start the silence clock (PROTOCOL §8).
        let expiredIdle = h.nodes.map(\.engine.stats.sessionsSilent).reduce(0, +) - expiredBefore
        #expect(expiredIdle == 0, "sessions dropped as silent while idle: \(expiredIdle)")
        var latencies: [UInt64] = []
        for k in 0..<20 {
            f.clock.nowMs = max(f.clock.nowMs, h.nowMs)
            let post = f.post(by: author, in: g, title: "post \(k)", location: cell)
            h.publish(post, at: 0)
            let start = h.nowMs
            latencies.append(h.msUntilAllHold(post.id, withinMs: 1000))
            h.run(ms: 1000 - min(1000, h.nowMs - start))
        }
        let failsafes = h.nodes.map(\.engine.stats.failsafes).reduce(0, +)
        #expect(failsafes == 0, "stem fail-safes fired: \(failsafes); virtual ms to reach all: \(latencies)")
        #expect(latencies.allSatisfy { $0 <= 300 }, "virtual ms to reach all: \(latencies)")
        #expect(latencies.filter { $0 > 150 }.count <= 1, "posts that needed a graft: \(latencies)")
    }
}
