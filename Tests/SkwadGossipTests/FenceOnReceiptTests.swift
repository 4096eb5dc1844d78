import Testing
import SkwadModel
import SkwadReplica
import SkwadGossip
import SkwadTestKit

/// The fence rule on receipt (PROTOCOL §12): a locked pack's op pushed by a peer that lied
/// its way into the pack is refused by a node whose own cell is outside the fence; a node
/// inside, or an unlocked pack, takes it. Sent through a real session by a `HostilePeer`.
@Suite struct FenceOnReceiptTests {
    static let t0: UInt64 = 1_790_000_000_000

    /// Pushes `envelopes` as one `Ops` message into an engine announcing `cell`.
    func push(_ envelopes: [[UInt8]], toEngineAt cell: String) -> (GossipEngine, Replica) {
        var e = GossipEngine(seed: 5, secrets: .seeded)
        var r = Replica(config: .noFloors)
        _ = e.setInterest(cell: cell, subscriptions: [], nowMs: Self.t0)
        var liar = HostilePeer(address: PeerAddress("10.0.0.9:7000"), seed: 9)
        #expect(liar.handshake(with: &e, nowMs: Self.t0, replica: &r))
        _ = liar.send(WireForge.ops(envelopes), to: &e, nowMs: Self.t0 + 1, replica: &r)
        return (e, r)
    }

    @Test func aLockedPacksOpIsRefusedOutsideItsFenceAndTakenInside() throws {
        var f = OpFactory(seed: 3, nowMs: Self.t0, floors: false)
        let centre = try GeoPoint(lat: 40.4433, lon: -79.9436)
        let fence = Geofence.snapped(center: centre, radiusMeters: 2_000)
        let locked = f.createPack(by: f.user(), name: "locked", fence: fence, locked: true)
        let open = f.createPack(by: f.user(), name: "open", fence: fence, locked: false)
        let inside = Geohash.encode(fence.center, precision: 7)
        let outside = Geohash.encode(try GeoPoint(lat: 40.62, lon: -79.94), precision: 7)  // ≈ 20 km north
        let envelopes = [locked.envelope.serialized(), open.envelope.serialized()]

        let (far, farReplica) = push(envelopes, toEngineAt: outside)
        #expect(!farReplica.contains(locked.id))
        #expect(farReplica.contains(open.id))
        #expect(far.stats.opsRejected["lockedOutsideUs"] == 1)

        let (near, nearReplica) = push(envelopes, toEngineAt: inside)
        #expect(nearReplica.contains(locked.id) && nearReplica.contains(open.id))
        #expect(near.stats.opsRejected["lockedOutsideUs"] == nil)
    }
}
