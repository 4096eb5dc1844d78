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

    /// Rounds, of `count` one second apart, in which `pack` was reconciled with anyone.
    static func roundsReconciling(_ pack: PackID, _ e: inout GossipEngine, replica: Replica, from: UInt64, count: Int) -> Int {
        var rounds = 0
        for k in 0..<count {
            var out: [GossipDirective] = []
            e.reconcileRound(nowMs: from + UInt64(k) * 1000, replica: replica, into: &out)
            if e.spread.reconUnanswered.contains(where: { $0.pack == pack }) { rounds += 1 }
        }
        return rounds
    }

    @Test func aPackNoActiveLinkMayHoldIsReconciledEveryRound() throws {
        var f = OpFactory(seed: 21, floors: false)
        let alpha = f.user()
        let fence = Geofence(center: Self.center, radiusMeters: 500)
        // Eight open packs we follow and one unlocked fenced pack we stand in: 4 packs a
        // round, so the fenced pack's turn does not come every round.
        let open = (0..<8).map { f.createPack(by: alpha, name: "open\($0)") }
        let lab = f.createPack(by: alpha, name: "lab", fence: fence, locked: false)
        var replica = Replica(config: .noFloors)
        for p in open + [lab] { #expect(replica.admit(p, nowMs: f.nowMs).isAdmitted) }
        var e = GossipEngine(seed: 9, secrets: .seeded)
        e.selfAddress = PeerAddress("n5")
        _ = e.setInterest(cell: try Self.cell(north: 300), subscriptions: Set(open.map(\.id)), nowMs: f.nowMs)

        // Our one active link stands 2 km out and follows none of it; a vicinity link that
        // reconciles with us stands inside, nearer the centre, so the fence needs no contact.
        let out1 = PeerAddress("n1"), inner = PeerAddress("n2")
        #expect(e.peers.promote(out1, info: NodeInfo(cell: try Self.cell(north: 2000)), nowMs: f.nowMs))
        e.peers.offerVicinity(inner, VicinityEntry(info: NodeInfo(cell: try Self.cell(north: 100)), distance: 200, lastHeardMs: f.nowMs))
        // It proves itself by a reconciliation message (here a directory pull, as `receive`
        // notes it).
        _ = e.markReconciled(inner, nowMs: f.nowMs)
        var pulled: [GossipDirective] = []
        let pull = ReconcileRound(
            pack: nil, directory: true, initiator: true, lower: .zero, ranges: Reconciliation.initiate([]),
            asker: NodeInfo(cell: try Self.cell(north: 100)))
        e.onReconcile(pull, from: inner, nowMs: f.nowMs, replica: replica, into: &pulled)
        #expect(e.isProven(inner) && e.isContact(inner))
        #expect(e.fencesNeedingContact(replica, nowMs: f.nowMs).isEmpty)
        let scope = try #require(replica.scope(lab.id))
        #expect(!e.isOnTree(scope))
        let off = Self.roundsReconciling(lab.id, &e, replica: replica, from: f.nowMs, count: 6)
        #expect(off == 6, "off the tree: reconciled in \(off) rounds of 6")

        // An active link inside the fence puts us on the tree: the pack waits for its turn.
        #expect(e.peers.promote(PeerAddress("n3"), info: NodeInfo(cell: try Self.cell(north: 50)), nowMs: f.nowMs))
        #expect(e.isOnTree(scope))
        let on = Self.roundsReconciling(lab.id, &e, replica: replica, from: f.nowMs + 6000, count: 6)
        #expect(on >= 1 && on < 6, "on the tree: reconciled in \(on) rounds of 6")
    }
}
