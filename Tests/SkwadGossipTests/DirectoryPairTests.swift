import Testing
import SkwadCrypto
import SkwadModel
import SkwadReplica
@testable import SkwadGossip
import SkwadTestKit

/// What two nodes reconcile and how often (PROTOCOL §11, §11a): the puller lists only the
/// packs both should know, so that packs only it may know are no difference, while the
/// answerer still offers every pack it holds that the puller should know; and rounds that
/// keep their base pace only while reconciliation repairs something.
@Suite struct DirectoryPairTests {
    static let here = DirectoryTests.here
    static let cell = DirectoryTests.cell

    static func reconcilesSent(_ h: Harness, _ i: Int) -> Int { h.nodes[i].engine.stats.messagesSent["reconcile"] ?? 0 }

    /// Node 0 stands inside a locked fence and near a fenced unlocked pack; node 1, 40 km
    /// away, may know neither. Both hold the same open packs. Once both hold what they may,
    /// a directory round between them settles on its first message: the responder answers
    /// nothing. (Before, each side reconciled its own directory against the other's
    /// holdings: every round found the two packs and went down to single items.)
    @Test func packsOnlyOneSideMayKnowAreNoDifference() throws {
        var f = OpFactory(seed: 21, floors: false)
        let alpha = f.user()
        let open = (0..<6).map { f.createPack(by: alpha, name: "open\($0)") }
        let locked = f.createPack(by: alpha, name: "locked", fence: Geofence(center: Self.here, radiusMeters: 500), locked: true)
        let quad = f.createPack(by: alpha, name: "quad", fence: Geofence(center: Self.here, radiusMeters: 2000))
        // No periodic pack or directory rounds: only the ones this test starts count.
        var config = GossipConfig()
        config.spread.reconIntervalMs = 3_600_000; config.spread.reconQuietMaxMs = 3_600_000; config.spread.directoryIntervalMs = 3_600_000
        var h = Harness(count: 2, config: config, cells: [Self.cell, DirectoryTests.far])
        h.nowMs = f.nowMs
        DirectoryTests.plant(open + [locked, quad], in: &h, at: 0)
        DirectoryTests.plant(open, in: &h, at: 1)
        h.start { i in i == 0 ? [] : [0] }
        h.run(ms: 3000)
        #expect(Set(h.nodes[1].replica.packIDs()) == Set(open.map(\.id)), "the far node learnt no pack it may not know")
        for (a, b) in [(0, 1), (1, 0)] {
            let before = Self.reconcilesSent(h, b)
            for _ in 0..<5 {
                var out: [GossipDirective] = []
                h.nodes[a].engine.sendDirectory(to: Harness.address(b), nowMs: h.nowMs, replica: h.nodes[a].replica, into: &out)
                h.nodes[a].engine.finish(nowMs: h.nowMs, into: &out)
                h.apply(a, out)
                h.run(ms: 50)
            }
            #expect(Self.reconcilesSent(h, b) == before, "node \(b) answered node \(a)'s settled directory rounds")
        }
        // A real difference still crosses: a new open pack planted at node 0 reaches node 1.
        let late = f.createPack(by: alpha, name: "late")
        DirectoryTests.plant([late], in: &h, at: 0)
        var out: [GossipDirective] = []
        h.nodes[1].engine.sendDirectory(to: Harness.address(0), nowMs: h.nowMs, replica: h.nodes[1].replica, into: &out)
        h.nodes[1].engine.finish(nowMs: h.nowMs, into: &out)
        h.apply(1, out)
        h.run(ms: 200)
        #expect(h.nodes[1].replica.contains(late.id))
        #expect(!h.nodes[1].replica.contains(locked.id) && !h.nodes[1].replica.contains(quad.id))
    }

    /// The answerer still lists every pack it holds in the puller's directory, even one
    /// outside its own (here: a fenced pack 40 km from it, planted as if it stood there
    /// before): the puller learns it. (Had both sides listed only the packs in both
    /// directories, the pack would have been no difference and never crossed.)
    @Test func theAnswererOffersAPackItHoldsOutsideItsOwnDirectory() throws {
        var f = OpFactory(seed: 23, floors: false)
        let alpha = f.user()
        let open = (0..<3).map { f.createPack(by: alpha, name: "open\($0)") }
        let quad = f.createPack(by: alpha, name: "quad", fence: Geofence(center: Self.here, radiusMeters: 2000))
        var config = GossipConfig()
        config.spread.reconIntervalMs = 3_600_000; config.spread.reconQuietMaxMs = 3_600_000; config.spread.directoryIntervalMs = 3_600_000
        var h = Harness(count: 2, config: config, cells: [Self.cell, DirectoryTests.far])
        h.nowMs = f.nowMs
        DirectoryTests.plant(open, in: &h, at: 0)
        DirectoryTests.plant(open + [quad], in: &h, at: 1)
        h.start { i in i == 0 ? [] : [0] }
        h.run(ms: 3000)
        var out: [GossipDirective] = []
        h.nodes[0].engine.sendDirectory(to: Harness.address(1), nowMs: h.nowMs, replica: h.nodes[0].replica, into: &out)
        h.nodes[0].engine.finish(nowMs: h.nowMs, into: &out)
        h.apply(0, out)
        h.run(ms: 200)
        #expect(h.nodes[0].replica.contains(quad.id), "node 0 learnt the pack in its directory that node 1 holds outside its own")
    }
}
