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
        let coarse = NodeInfo(cell: Geohash.encode(center, precision: 1))   // "d", about 2,500 km
        #expect(!mayReceive(coarse, pack: scope, isGenesis: false))
        #expect(!mayReceive(coarse, pack: scope, isGenesis: true))
        #expect(!mayReceive(NodeInfo(cell: Geohash.encode(center, precision: 7)), pack: scope, isGenesis: false))
        #expect(mayReceive(NodeInfo(cell: Geohash.encode(center, precision: 9)), pack: scope, isGenesis: false))
    }
}

/// Remote contacts (PROTOCOL §9): a member inside a small fence whose active and vicinity
/// links all stand outside it looks for a contact inside; one heard link inside ends the need.
@Suite struct ContactInsideOwnFenceTests {
    @Test func aMemberWithNoLinkInsideItsFenceLooksForAContactThere() throws {
        var f = OpFactory(seed: 15, floors: false)
        let alpha = f.user()
        let center = try GeoPoint(lat: 40.4433, lon: -79.9436)
        let fence = Geofence(center: center, radiusMeters: 150)
        let lab = f.createPack(by: alpha, name: "lab", fence: fence, locked: true)
        var replica = Replica(config: .noFloors)
        _ = replica.admit(lab, nowMs: f.nowMs)
        let inside = Geohash.encode(center, precision: 8)
        // ~2 km east: outside the 150 m fence.
        let outside = Geohash.encode(try GeoPoint(lat: 40.4433, lon: -79.9200), precision: 8)
        var e = GossipEngine(seed: 5)
        e.selfAddress = PeerAddress("n0")
        _ = e.setInterest(cell: inside, subscriptions: [lab.id], nowMs: f.nowMs)
        #expect(try Geohash.decode(inside).center.distance(to: center) < 150)

        // Links only outside: the fence needs a contact.
        let promoted = e.peers.promote(PeerAddress("n1"), info: NodeInfo(cell: outside), nowMs: f.nowMs)
        #expect(promoted && e.activePeers == [PeerAddress("n1")])
        e.peers.offerVicinity(PeerAddress("n2"), VicinityEntry(info: NodeInfo(cell: outside), distance: 2000, lastHeardMs: f.nowMs))
        #expect(e.fencesNeedingContact(replica, nowMs: f.nowMs).count == 1)

        // A vicinity entry inside that was only heard of does not count; once heard, it does.
        e.peers.offerVicinity(PeerAddress("n3"), VicinityEntry(info: NodeInfo(cell: inside), distance: 0, lastHeardMs: 0))
        #expect(e.fencesNeedingContact(replica, nowMs: f.nowMs).count == 1)
        e.peers[vicinity: PeerAddress("n3")]?.lastHeardMs = f.nowMs
        #expect(e.fencesNeedingContact(replica, nowMs: f.nowMs).isEmpty)
    }
}
