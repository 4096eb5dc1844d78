import Testing
import SkwadModel
import SkwadReplica
@testable import SkwadGossip
import SkwadTestKit

/// Issue 10, finding 3, on the wire side: an announced cell too coarse for a locked pack's
/// fence gets nothing of it (eager push, `Want` and `Reconcile` all ask `mayReceive`).
@Suite struct FenceRuleTests {
    @Test func aCoarseAnnouncedCellReceivesNothingOfALockedPack() throws {
        let center = try GeoPoint(lat: 40.443, lon: -79.944)
        let scope = PackScope(id: OpID.of(body: [1]), fence: Geofence(center: center, radiusMeters: 100), locked: true)
        let coarse = NodeInfo(cell: Geohash.encode(center, precision: 1))  // "d", about 2,500 km
        #expect(!mayReceive(coarse, pack: scope, isGenesis: false))
        #expect(!mayReceive(coarse, pack: scope, isGenesis: true))
        #expect(!mayReceive(NodeInfo(cell: Geohash.encode(center, precision: 7)), pack: scope, isGenesis: false))
        #expect(mayReceive(NodeInfo(cell: Geohash.encode(center, precision: 9)), pack: scope, isGenesis: false))
    }
}

/// The city's two incomplete members (node 7537 in pack 67, node 6273 in pack 41): a member
/// standing inside a locked fence near its rim, next to a denser crowd outside. Its nearest
/// peers and those of the member inside nearest to it are all in the crowd; the crowd's own
/// nearest are each other, so it holds the two only as inbound peers and, before inbound
/// peers were introduced in vicinity answers (§9), never named one to the other: the edge
/// member never heard of anyone inside and never got the pack (traced: 88 s in the city).
extension ContactInsideOwnFenceTests {
    @Test func anEdgeMemberWhoseNearestPeersAllStandOutsideFindsThePackFromInside() throws {
        var f = OpFactory(seed: 16, floors: false)
        let alpha = f.user()
        let center = try GeoPoint(lat: 40.4433, lon: -79.9436)
        let pack = f.createPack(by: alpha, name: "rim", fence: Geofence(center: center, radiusMeters: 1000), locked: true)
        func cell(north: Double, east: Double) throws -> String {
            Geohash.encode(try GeoPoint(lat: 40.4433 + north / 111_320, lon: -79.9436 + east / 84_740), precision: 7)
        }
        // Node 0: the edge member (800 m north of the centre); node 1: a member inside 200 m
        // from it, holding the pack; nodes 2-18: a crowd in one cell 450 m beyond node 0, outside.
        let edge = try cell(north: 800, east: 0), inner = try cell(north: 800, east: 200), crowd = try cell(north: 1250, east: 0)
        var h = Harness(count: 19, cells: [edge, inner] + Array(repeating: crowd, count: 17))
        h.nowMs = f.nowMs
        _ = h.nodes[1].replica.admit(pack, nowMs: h.nowMs)
        let scope = try #require(h.nodes[1].replica.scope(pack.id))
        #expect(mayReceive(NodeInfo(cell: edge), pack: scope, isGenesis: true))
        #expect(mayReceive(NodeInfo(cell: inner), pack: scope, isGenesis: true))
        #expect(!mayReceive(NodeInfo(cell: crowd), pack: scope, isGenesis: true))
        // The crowd's vicinities are full of each other (distance 0); the two members have
        // only heard of one crowd member (node 2). No joins: no random links across.
        for i in 2..<19 {
            for j in 2..<19 where j != i {
                h.nodes[i].engine.peers.offerVicinity(
                    Harness.address(j), VicinityEntry(info: NodeInfo(cell: crowd), distance: 0, lastHeardMs: h.nowMs))
            }
        }
        for i in 0..<2 {
            let d = h.nodes[i].engine.info.distance(to: NodeInfo(cell: crowd).place)
            h.nodes[i].engine.peers.offerVicinity(
                Harness.address(2), VicinityEntry(info: NodeInfo(cell: crowd), distance: d, lastHeardMs: 0))
        }
        h.start { _ in [] }
        h.run(ms: 30_000)
        #expect(h.nodes[0].replica.contains(pack.id))
        #expect(h.nodes[0].engine.peers.isHeardLink(Harness.address(1)) || h.nodes[1].engine.peers.isHeardLink(Harness.address(0)))
        // The crowd never held the locked pack.
        #expect((2..<19).allSatisfy { !h.nodes[$0].replica.contains(pack.id) })
    }
}
