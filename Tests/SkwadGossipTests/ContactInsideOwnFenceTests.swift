import SkwadTestTraits
import Testing
import SkwadModel
import SkwadReplica
@testable import SkwadGossip
import SkwadTestKit

/// Remote contacts (PROTOCOL §9): a member inside a small fence none of whose active and
/// vicinity links stands inside it nearer to its centre looks for a contact inside; one heard
/// link inside and nearer the centre ends the need.
@Suite(.heavy) struct ContactInsideOwnFenceTests {
    static let center = try! GeoPoint(lat: 40.4433, lon: -79.9436)

    /// A replica holding one pack, "lab", fenced 150 m around `center`.
    static func lab(seed: UInt64, locked: Bool) -> (OpFactory, Geofence, SignedOp, Replica) {
        var f = OpFactory(seed: seed, floors: false)
        let alpha = f.user()
        let fence = Geofence(center: center, radiusMeters: 150)
        let lab = f.createPack(by: alpha, name: "lab", fence: fence, locked: locked)
        var replica = Replica(config: .noFloors)
        _ = replica.admit(lab, nowMs: f.nowMs)
        return (f, fence, lab, replica)
    }

    @Test func aMemberWithNoLinkInsideItsFenceLooksForAContactThere() throws {
        let (f, _, lab, replica) = Self.lab(seed: 15, locked: true)
        let center = Self.center
        let centre = Geohash.encode(center, precision: 8)
        // ~80 m north of the centre, and ~120 m: inside the 150 m fence.
        let inside = Geohash.encode(try GeoPoint(lat: 40.4433 + 80 / 111_320, lon: -79.9436), precision: 8)
        let rim = Geohash.encode(try GeoPoint(lat: 40.4433 + 120 / 111_320, lon: -79.9436), precision: 8)
        // ~2 km east: outside the 150 m fence.
        let outside = Geohash.encode(try GeoPoint(lat: 40.4433, lon: -79.9200), precision: 8)
        var e = GossipEngine(seed: 5, secrets: .seeded)
        e.selfAddress = PeerAddress("n0")
        _ = e.setInterest(cell: inside, subscriptions: [lab.id], nowMs: f.nowMs)
        #expect(try Geohash.decode(inside).center.distance(to: center) < 100)
        #expect(try Geofence(center: center, radiusMeters: 150).contains(cell: Geohash.decode(rim)))

        // Links only outside: the fence needs a contact.
        let promoted = e.peers.promote(PeerAddress("n1"), info: NodeInfo(cell: outside), nowMs: f.nowMs)
        #expect(promoted && e.activePeers == [PeerAddress("n1")])
        e.peers.offerVicinity(PeerAddress("n2"), VicinityEntry(info: NodeInfo(cell: outside), distance: 2000, lastHeardMs: f.nowMs))
        #expect(e.fencesNeedingContact(replica, nowMs: f.nowMs).count == 1)

        // A vicinity entry inside that was only heard of does not count; nor does one heard
        // (it pings, it claims the cell) that never took part in reconciliation (hostile
        // seed 6: a liar claiming the fence's centre kept an edge member from searching).
        let n3 = PeerAddress("n3")
        e.peers.offerVicinity(n3, VicinityEntry(info: NodeInfo(cell: centre), distance: 80, lastHeardMs: 0))
        #expect(e.fencesNeedingContact(replica, nowMs: f.nowMs).count == 1)
        e.peers[vicinity: n3]?.lastHeardMs = f.nowMs
        #expect(e.isLink(n3))
        #expect(e.fencesNeedingContact(replica, nowMs: f.nowMs).count == 1)
        // Once it sends us a reconciliation message (here a directory pull), it counts.
        var out: [GossipDirective] = []
        func pull(from p: PeerAddress, cell: String) {
            let round = ReconcileRound(
                pack: nil, directory: true, initiator: true, lower: .zero,
                ranges: Reconciliation.initiate([]), asker: NodeInfo(cell: cell))
            e.onReconcile(round, from: p, nowMs: f.nowMs, replica: replica, into: &out)
        }
        // A contact inside, but farther from the centre than we are, does not end the need:
        // three such members at a rim can be an island.
        let n4 = PeerAddress("n4")
        e.peers.offerVicinity(n4, VicinityEntry(info: NodeInfo(cell: rim), distance: 40, lastHeardMs: f.nowMs))
        pull(from: n4, cell: rim)
        #expect(e.isContact(n4))
        #expect(e.fencesNeedingContact(replica, nowMs: f.nowMs).count == 1)
        // Once the one nearer the centre sends us a reconciliation message (here a directory pull), it counts.
        pull(from: n3, cell: centre)
        #expect(e.fencesNeedingContact(replica, nowMs: f.nowMs).isEmpty)
        // Three of our rounds left unanswered in a row, and it no longer does.
        e.peers[reconMisses: n3] = GossipEngine.contactMisses
        #expect(e.fencesNeedingContact(replica, nowMs: f.nowMs).count == 1)
    }

    /// Inside our own fence a remote contact must stand nearer its centre than we do (or the
    /// members' overlay can fall into two sides, each with its contacts on its own side:
    /// PROTOCOL §9); outside it, any peer inside will do. One that leaves three of our
    /// reconciliations unanswered is dropped and muted, and a name of it is not taken again.
    @Test func aContactInsideOurOwnFenceMustStandNearerItsCentre() throws {
        let (f, fence, lab, replica) = Self.lab(seed: 16, locked: false)
        func cell(north metres: Double) throws -> String {
            Geohash.encode(try GeoPoint(lat: 40.4433 + metres / 111_320, lon: -79.9436), precision: 8)
        }
        var e = GossipEngine(seed: 7, secrets: .seeded)
        e.selfAddress = PeerAddress("n5")
        _ = e.setInterest(cell: try cell(north: 80), subscriptions: [lab.id], nowMs: f.nowMs)
        var out: [GossipDirective] = []
        e.remoteRound(nowMs: f.nowMs, replica: replica, into: &out)
        #expect(e.vicinity.farFences == [fence])

        // Farther out than we are, or as far with a higher address: no contact.
        e.offerRemote(PeerAddress("n6"), info: NodeInfo(cell: try cell(north: 120)), nowMs: f.nowMs)
        e.offerRemote(PeerAddress("n7"), info: NodeInfo(cell: try cell(north: 80)), nowMs: f.nowMs)
        #expect(e.peers.remote.isEmpty)
        #expect(e.remoteContacts(inside: fence).isEmpty)
        // Nearer the centre: a contact, and the need is met.
        let near = PeerAddress("n8")
        e.offerRemote(near, info: NodeInfo(cell: try cell(north: 10)), nowMs: f.nowMs)
        #expect(e.remoteContacts(inside: fence) == [near])

        // From outside the fence, a peer anywhere inside is a contact.
        var o = GossipEngine(seed: 8, secrets: .seeded)
        o.selfAddress = PeerAddress("n9")
        _ = o.setInterest(cell: try cell(north: 2000), subscriptions: [lab.id], nowMs: f.nowMs)
        o.remoteRound(nowMs: f.nowMs, replica: replica, into: &out)
        #expect(o.vicinity.farFences == [fence])
        o.offerRemote(PeerAddress("n6"), info: NodeInfo(cell: try cell(north: 120)), nowMs: f.nowMs)
        #expect(o.remoteContacts(inside: fence) == [PeerAddress("n6")])

        // Three reconciliations left unanswered: dropped, muted, not taken again when named.
        e.peers[reconMisses: near] = GossipEngine.contactMisses
        e.remoteRound(nowMs: f.nowMs + 2000, replica: replica, into: &out)
        #expect(e.peers.remote.isEmpty)
        #expect(e.peers.muted[near] != nil)
        e.offerRemote(near, info: NodeInfo(cell: try cell(north: 10)), nowMs: f.nowMs + 2000)
        #expect(e.remoteContacts(inside: fence).isEmpty)
    }

    /// Exactly one of two members in the same cell counts the other as inward (the lower
    /// address is the nearer): one member of each fence, not two, looks for a contact at its
    /// centre for want of anyone nearer.
    @Test func aTieInDistanceIsBrokenByAddress() throws {
        let center = try GeoPoint(lat: 40.4433, lon: -79.9436)
        let fence = Geofence(center: center, radiusMeters: 500)
        let cell = try Geohash.decode(Geohash.encode(try GeoPoint(lat: 40.4443, lon: -79.9436), precision: 7))
        let a = PeerAddress("n1"), b = PeerAddress("n2")
        #expect(GossipEngine.inward(cell, of: a, than: cell, of: b, in: fence))
        #expect(!GossipEngine.inward(cell, of: b, than: cell, of: a, in: fence))
        let outside = try Geohash.decode(Geohash.encode(try GeoPoint(lat: 40.4533, lon: -79.9436), precision: 7))
        #expect(!GossipEngine.inward(outside, of: a, than: cell, of: b, in: fence))
        #expect(!GossipEngine.inward(cell, of: a, than: nil, of: b, in: fence))
    }

    /// While the need lasts, the pack is reconciled with a contact inside its fence every
    /// round, not only on its turn (PROTOCOL §11): the contact pushes nothing to us.
    @Test func aPackWhoseFenceNeedsAContactIsReconciledWithItEveryRound() throws {
        let center = try GeoPoint(lat: 40.4433, lon: -79.9436)
        let fence = Geofence(center: center, radiusMeters: 150)
        let lab = ReconRoundFixture(seed: 18, fence: fence, locked: true)
        #expect(lab.replica.hasPack(lab.fenced.packID) && lab.open.allSatisfy { lab.replica.hasPack($0.packID) })
        var e = GossipEngine(seed: 6, secrets: .seeded)
        e.selfAddress = PeerAddress("n0")
        let mine = Geohash.encode(try GeoPoint(lat: 40.4433 + 80 / 111_320, lon: -79.9436), precision: 8)
        _ = e.setInterest(cell: mine, subscriptions: Set(lab.open.map(\.id)), nowMs: lab.nowMs)
        let contact = PeerAddress("n9")
        e.peers.addRemote(
            contact, VicinityEntry(info: NodeInfo(cell: Geohash.encode(center, precision: 8)), distance: 0, lastHeardMs: lab.nowMs))
        e.vicinity.farFences = e.fencesNeedingContact(lab.replica, nowMs: lab.nowMs)
        #expect(e.vicinity.farFences == [fence])
        let rounds = lab.rounds(&e, from: lab.nowMs, count: 6) { $0.contains(ReconAsked(pack: lab.fenced.id, peer: contact)) }
        #expect(rounds == 6, "reconciled with the contact in \(rounds) rounds of 6")
    }
}
