import SkwadTestTraits
import Testing
import SkwadModel
import SkwadReplica
@testable import SkwadGossip
import SkwadTestKit

/// A pack none of a node's active links may hold is off its tree: pushes reach it only by
/// chance (vicinity links carry an op only from a sender short of active members), so it is
/// reconciled every round, not only on its turn (PROTOCOL §11).
@Suite(.heavy) struct OffTreePackTests {
    static let center = try! GeoPoint(lat: 40.4433, lon: -79.9436)

    static func cell(north metres: Double) throws -> String {
        Geohash.encode(try GeoPoint(lat: 40.4433 + metres / 111_320, lon: -79.9436), precision: 8)
    }

    @Test func aPackNoActiveLinkMayHoldIsReconciledEveryRound() throws {
        let fence = Geofence(center: Self.center, radiusMeters: 500)
        let lab = ReconRoundFixture(seed: 21, fence: fence, locked: false)
        let replica = lab.replica
        #expect(replica.hasPack(lab.fenced.packID) && lab.open.allSatisfy { replica.hasPack($0.packID) })
        var e = GossipEngine(seed: 9, secrets: .seeded)
        e.selfAddress = PeerAddress("n5")
        _ = e.setInterest(cell: try Self.cell(north: 300), subscriptions: Set(lab.open.map(\.id)), nowMs: lab.nowMs)

        // Our one active link stands 2 km out and follows none of it; a vicinity link that
        // reconciles with us stands inside, nearer the centre, so the fence needs no contact.
        let out1 = PeerAddress("n1"), inner = PeerAddress("n2")
        #expect(e.peers.promote(out1, info: NodeInfo(cell: try Self.cell(north: 2000)), nowMs: lab.nowMs))
        e.peers.offerVicinity(inner, VicinityEntry(info: NodeInfo(cell: try Self.cell(north: 100)), distance: 200, lastHeardMs: lab.nowMs))
        // It proves itself by a reconciliation message (here a directory pull, as `receive`
        // notes it).
        _ = e.markReconciled(inner, nowMs: lab.nowMs)
        var pulled: [GossipDirective] = []
        let pull = ReconcileRound(
            pack: nil, directory: true, initiator: true, lower: .zero, ranges: Reconciliation.initiate([]),
            asker: NodeInfo(cell: try Self.cell(north: 100)))
        e.onReconcile(pull, from: inner, nowMs: lab.nowMs, replica: replica, into: &pulled)
        #expect(e.isProven(inner) && e.isContact(inner))
        #expect(e.fencesNeedingContact(replica, nowMs: lab.nowMs).isEmpty)
        let scope = try #require(replica.scope(lab.fenced.id))
        #expect(!e.peers.isOnTree(scope))
        let off = lab.rounds(&e, from: lab.nowMs, count: 6) { $0.contains { $0.pack == lab.fenced.id } }
        #expect(off == 6, "off the tree: reconciled in \(off) rounds of 6")

        // An active link inside the fence puts us on the tree: the pack waits for its turn.
        #expect(e.peers.promote(PeerAddress("n3"), info: NodeInfo(cell: try Self.cell(north: 50)), nowMs: lab.nowMs))
        #expect(e.peers.isOnTree(scope))
        let on = lab.rounds(&e, from: lab.nowMs + 6000, count: 6) { $0.contains { $0.pack == lab.fenced.id } }
        #expect(on >= 1 && on < 6, "on the tree: reconciled in \(on) rounds of 6")
    }
}
