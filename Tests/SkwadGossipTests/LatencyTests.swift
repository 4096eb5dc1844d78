import SkwadTestTraits
import Foundation
import Testing
import SkwadModel
import SkwadReplica
@testable import SkwadGossip
import SkwadTestKit

/// Push latency in virtual time (a protocol property, not a wall-clock target): after a herd
/// join, ops from random authors reach every node by the eager tree, not by lazy repair
/// (an IHAVE and a graft cost a tick and `graftTimeoutMs`, 150 ms and more), and the tree's
/// eager links stay symmetric and connected (PROTOCOL §10).
@Suite(.heavy) struct LatencyTests {
    /// Nodes reachable from node 0 over links that both ends hold eager.
    static func eagerReach(_ h: Harness) -> Int {
        var seen: Set<Int> = [0], stack = [0]
        while let x = stack.popLast() {
            for p in h.nodes[x].engine.links where !h.nodes[x].engine.isLazy(p) {
                guard let j = Harness.index(p), !h.nodes[j].engine.isLazy(Harness.address(x)),
                    h.nodes[j].engine.links.contains(Harness.address(x)), !seen.contains(j)
                else { continue }
                seen.insert(j); stack.append(j)
            }
        }
        return seen.count
    }

    @Test(arguments: [0.2, 1.0]) func opsFromRandomAuthorsReachAllByTheTree(fluff: Double) throws {
        var config = GossipConfig(); config.spread.stemFluff = fluff
        var h = Harness(count: 50, config: config)
        h.start { i in i == 0 ? [] : [0] }
        h.run(ms: 8000)
        var f = OpFactory(seed: 5, nowMs: h.nowMs, floors: false)
        let g = f.createPack(by: f.user(), name: "open")
        for i in h.nodes.indices {
            _ = h.nodes[i].replica.admit(g, nowMs: h.nowMs)
            h.setInterest(i, cell: nil, subscriptions: [g.id])
        }
        h.run(ms: 1000)
        var rng = SplitMix64(seed: 3)
        var latencies: [UInt64] = []
        for k in 0..<30 {
            let author = Int.random(in: 0..<50, using: &rng)
            f.clock.nowMs = max(f.clock.nowMs, h.nowMs)
            let post = f.post(by: f.user(), in: g, title: "op \(k)")
            h.publish(post, at: author)
            latencies.append(h.msUntilAllHold(post.id, withinMs: 2000))
            h.run(ms: 20)
        }
        // Harness hops take 1–5 ms; 30 ops from random authors, none repaired by a graft.
        #expect(latencies.allSatisfy { $0 <= 120 }, "virtual ms to reach all: \(latencies)")
        #expect(Self.eagerReach(h) == 50)
    }
}

extension Harness {
    /// Runs in 5 ms steps until every node holds `id`: the virtual ms it took, or `.max`
    /// when some node still lacks it after `withinMs`.
    mutating func msUntilAllHold(_ id: OpID, withinMs: UInt64) -> UInt64 {
        let start = nowMs
        while nowMs - start < withinMs {
            run(ms: 5)
            if nodes.allSatisfy({ $0.replica.contains(id) }) { return nowMs - start }
        }
        return .max
    }
}
