import Testing
import SkwadModel
import SkwadReplica
import SkwadGossip

/// Issue 10, finding 3, on the wire side: an announced cell too coarse for a locked pack's
/// fence gets nothing of it (eager push, `Want` and `Reconcile` all ask `mayReceive`).
@Suite struct FenceRuleTests {
    @Test func aCoarseAnnouncedCellReceivesNothingOfALockedPack() throws {
        let center = try GeoPoint(lat: 40.443, lon: -79.944)
        let scope = PackScope(id: OpID.of(body: [1]), fence: Geofence(center: center, radiusMeters: 100), locked: true)
        let coarse = NodeInfo(cell: Geohash.encode(center, precision: 1))   // "d", about 2,500 km
        #expect(!mayReceive(coarse, pack: scope, isGenesis: false))
        #expect(!mayReceive(coarse, pack: scope, isGenesis: true))
        #expect(!mayReceive(NodeInfo(cell: Geohash.encode(center, precision: 7)), pack: scope, isGenesis: false))
        #expect(mayReceive(NodeInfo(cell: Geohash.encode(center, precision: 9)), pack: scope, isGenesis: false))
    }
}
