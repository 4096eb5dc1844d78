import SkwadTestTraits
import Testing
import SkwadModel
import SkwadReplica
@testable import SkwadGossip
import SkwadTestKit

/// Remote contacts (PROTOCOL §9): a member inside a small fence whose active and vicinity
/// links all stand outside it looks for a contact inside; one heard link inside ends the need.
@Suite(.heavy) struct ContactInsideOwnFenceTests {
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
        var e = GossipEngine(seed: 5, secrets: .seeded)
        e.selfAddress = PeerAddress("n0")
        _ = e.setInterest(cell: inside, subscriptions: [lab.id], nowMs: f.nowMs)
        #expect(try Geohash.decode(inside).center.distance(to: center) < 150)

        // Links only outside: the fence needs a contact.
        let promoted = e.peers.promote(PeerAddress("n1"), info: NodeInfo(cell: outside), nowMs: f.nowMs)
        #expect(promoted && e.activePeers == [PeerAddress("n1")])
        e.peers.offerVicinity(PeerAddress("n2"), VicinityEntry(info: NodeInfo(cell: outside), distance: 2000, lastHeardMs: f.nowMs))
        #expect(e.fencesNeedingContact(replica, nowMs: f.nowMs).count == 1)

        // A vicinity entry inside that was only heard of does not count; nor does one heard
        // (it pings, it claims the cell) that never took part in reconciliation (hostile
        // seed 6: a liar claiming the fence's centre kept an edge member from searching).
        let n3 = PeerAddress("n3")
        e.peers.offerVicinity(n3, VicinityEntry(info: NodeInfo(cell: inside), distance: 0, lastHeardMs: 0))
        #expect(e.fencesNeedingContact(replica, nowMs: f.nowMs).count == 1)
        e.peers[vicinity: n3]?.lastHeardMs = f.nowMs
        #expect(e.isLink(n3))
        #expect(e.fencesNeedingContact(replica, nowMs: f.nowMs).count == 1)
        // Once it sends us a reconciliation message (here a directory pull), it counts.
        var out: [GossipDirective] = []
        let pull = ReconcileRound(
            pack: nil, directory: true, initiator: true, lower: .zero,
            ranges: Reconciliation.initiate([]), asker: NodeInfo(cell: inside))
        e.onReconcile(pull, from: n3, nowMs: f.nowMs, replica: replica, into: &out)
        #expect(e.fencesNeedingContact(replica, nowMs: f.nowMs).isEmpty)
        // Three of our rounds left unanswered in a row, and it no longer does.
        e.peers[reconMisses: n3] = GossipEngine.contactMisses
        #expect(e.fencesNeedingContact(replica, nowMs: f.nowMs).count == 1)
    }
}
