import Foundation
import Testing
import SkwadModel
import SkwadReplica
@testable import SkwadGossip
import SkwadTestKit

/// Hidden authors (PROTOCOL §10a): a node's own op first walks a Dandelion++ stem.
@Suite struct StemTests {
    static func network(_ config: GossipConfig = .init()) -> (Harness, OpFactory, SignedOp) {
        var h = Harness(count: 12, config: config)
        h.start { i in i == 0 ? [] : [0] }
        h.run(ms: 5000)
        var f = OpFactory(seed: 31, nowMs: h.nowMs, floors: false)
        let g = f.createPack(by: f.user(), name: "open")
        for i in h.nodes.indices {
            _ = h.nodes[i].replica.admit(g, nowMs: h.nowMs)
            h.setInterest(i, cell: nil, subscriptions: [g.id])
        }
        h.run(ms: 300)
        return (h, f, g)
    }

    @Test func anOwnOpFirstGoesToOneLinkOnlyThenReachesEveryone() throws {
        var (h, f, g) = Self.network()
        let author = 3
        let post = f.post(by: f.user(), in: g, title: "who wrote this?")
        _ = h.nodes[author].replica.admit(post, nowMs: h.nowMs)
        let ds = h.nodes[author].engine.publish(post, nowMs: h.nowMs, replica: h.nodes[author].replica)
        let sends = ds.compactMap { if case .send(_, let to) = $0 { to } else { nil } }
        #expect(sends.count == 1)  // the stem: one link, not all of them
        #expect(h.nodes[author].engine.activePeers.count > 1)
        #expect(h.nodes[author].engine.stats.stemmed == 1)
        h.apply(author, ds)
        h.run(ms: 3000)
        #expect(h.nodes.allSatisfy { $0.replica.contains(post.id) })
        #expect(h.nodes.reduce(0) { $0 + $1.engine.stats.fluffed } >= 1)
    }

    @Test func anOpUnderEmbargoIsNotShownByReconciliationNorAnsweredToWant() throws {
        var config = GossipConfig(); config.spread.stemFailsafeMs = 60_000
        var (h, f, g) = Self.network(config)
        let author = 2
        let post = f.post(by: f.user(), in: g, title: "quiet")
        _ = h.nodes[author].replica.admit(post, nowMs: h.nowMs)
        // Publish without delivering the stem datagram: the op stays under embargo here.
        _ = h.nodes[author].engine.publish(post, nowMs: h.nowMs, replica: h.nodes[author].replica)
        #expect(h.nodes[author].engine.spread.visibleItems(h.nodes[author].replica, pack: g.id).contains { $0.id == post.id } == false)
        h.run(ms: 5000)  // reconciliation rounds; Wants by full id would be refused too
        #expect(h.nodes.indices.filter { $0 != author }.allSatisfy { !h.nodes[$0].replica.contains(post.id) })
    }

    @Test func withStemFluffOneTheOpIsPushedToAllLinksAtOnce() throws {
        var config = GossipConfig(); config.spread.stemFluff = 1
        var (h, f, g) = Self.network(config)
        let post = f.post(by: f.user(), in: g)
        _ = h.nodes[0].replica.admit(post, nowMs: h.nowMs)
        let ds = h.nodes[0].engine.publish(post, nowMs: h.nowMs, replica: h.nodes[0].replica)
        #expect(ds.filter { if case .send = $0 { true } else { false } }.count > 1)
        #expect(h.nodes[0].engine.stats.stemmed == 0)
    }
}
