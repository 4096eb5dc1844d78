import Testing
import SkwadCrypto
import SkwadModel
import SkwadReplica
import SkwadTestKit

/// Issue 10, finding 3: a locked 100 m pack does not admit a claim of a coarse cell
/// (the one-character cell `d` holds the fence, but is far from lying inside it).
@Suite struct FenceAdmissionTests {
    var f = OpFactory(seed: 303)

    @Test mutating func aCoarseClaimIsOutsideASmallLockedFence() throws {
        var r = Replica()
        let center = try GeoPoint(lat: 40.443, lon: -79.944)
        let alice = f.user(), mallory = f.user()
        let g = f.createPack(by: alice, fence: Geofence(center: center, radiusMeters: 100), locked: true)
        #expect(r.admit(g, nowMs: f.nowMs).isAdmitted)
        for p in [1, 4, 7] {
            let out = r.admit(f.post(by: mallory, in: g, location: Geohash.encode(center, precision: p)), nowMs: f.nowMs)
            guard case .rejected(.outsideFence, _) = out else { Issue.record("precision \(p): \(out)"); continue }
        }
        let fine = try #require(Geofence(center: center, radiusMeters: 100).claim(for: center))
        #expect(r.admit(f.post(by: alice, in: g, location: fine), nowMs: f.nowMs).isAdmitted)
    }
}
