import Testing
import SkwadCrypto
import SkwadModel
import SkwadReplica
@testable import SkwadGossip
import SkwadTestKit

@Suite struct DisseminationTests {
    /// Five nodes at one place; ops made anywhere reach all, identically.
    @Test func opsReachEveryInterestedNodeAndViewsAgree() throws {
        let cell = Geohash.encode(try GeoPoint(lat: 40.4433, lon: -79.9436), precision: 7)
        var h = Harness(count: 6, cells: Array(repeating: cell, count: 6))
        h.start { i in i == 0 ? [] : [0] }
        h.run(ms: 3000)
        var f = OpFactory(seed: 3, nowMs: h.nowMs)
        let users = (0..<6).map { _ in f.user() }
        let fence = Geofence(center: try GeoPoint(lat: 40.4433, lon: -79.9436), radiusMeters: 2000)
        let g = f.createPack(by: users[0], name: "quad", fence: fence, locked: true)
        h.publish(g, at: 0)
        h.run(ms: 200)
        var ops: [SignedOp] = []
        for i in 0..<6 {
            let p = f.post(by: users[i], in: g, title: "hi from \(i)", location: cell)
            h.publish(p, at: i); ops.append(p)
            let c = f.comment(by: users[(i + 1) % 6], in: g, on: p, location: cell)
            h.publish(c, at: (i + 1) % 6)
            h.publish(f.vote(by: users[(i + 2) % 6], in: g, on: p, value: 1, location: cell), at: (i + 2) % 6)
        }
        h.run(ms: 500)
        let counts = h.nodes.map(\.replica.count)
        #expect(counts.allSatisfy { $0 == 19 })
        let feeds = h.nodes.map { $0.replica.feed(sort: .top, limit: 100, nowMs: h.nowMs) }
        #expect(feeds.allSatisfy { $0 == feeds[0] } && feeds[0].count == 6)
        // Plumtree pruned some links to lazy: fewer op copies than a flood would send.
        let sent = h.nodes.map(\.engine.stats.opsSent).reduce(0, +)
        #expect(sent < 19 * 6 * 5)
    }

    @Test func antiEntropyRepairsWhatPushLost() throws {
        var h = Harness(
            count: 5,
            config: {
                var c = GossipConfig(); c.spread.reconIntervalMs = 300; return c
            }())
        h.start { i in i == 0 ? [] : [0] }
        h.run(ms: 2000)
        var f = OpFactory(seed: 4, nowMs: h.nowMs)
        let u = f.user()
        let g = f.createPack(by: u, name: "open")
        // Everyone subscribes; then node 4 goes down while 40 ops are made.
        for i in 0..<5 { h.setInterest(i, cell: nil, subscriptions: [g.id]) }
        h.publish(g, at: 0)
        h.run(ms: 300)
        h.nodes[4].up = false
        for k in 0..<40 { h.publish(f.post(by: u, in: g, title: "p\(k)"), at: k % 4) }
        h.run(ms: 500)
        #expect(h.nodes[4].replica.count < 41)
        h.nodes[4].up = true
        h.nodes[4].nextTickMs = h.nowMs
        h.run(ms: 8000)
        #expect(h.nodes.allSatisfy { $0.replica.count == 41 })
        #expect(h.nodes.map(\.engine.stats.reconciliations).reduce(0, +) > 0)
    }
}
