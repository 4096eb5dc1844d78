import Testing
import SkwadCrypto
@testable import SkwadModel
import SkwadTestKit

@Suite struct ClockAndGeoTests {
    @Test func hybridClockIsMonotoneAndFollowsRemoteTime() {
        var c = HybridClock()
        let a = c.tick(physicalMs: 1000), b = c.tick(physicalMs: 1000), d = c.tick(physicalMs: 999)
        #expect(a < b && b < d && d.physicalMs == 1000 && d.counter == 2)
        c.observe(HLC(physicalMs: 5000, counter: 7), physicalMs: 1001)
        let e = c.tick(physicalMs: 1002)
        #expect(e == HLC(physicalMs: 5000, counter: 8))
        #expect(c.tick(physicalMs: 6000) == HLC(physicalMs: 6000, counter: 0))
    }

    @Test func geohashKnownValuesAndRoundTrip() throws {
        // Niemeyer's example: 57.64911,10.40744 -> u4pruydqqvj
        #expect(Geohash.encode(try GeoPoint(lat: 57.64911, lon: 10.40744), precision: 11) == "u4pruydqqvj")
        let cell = try Geohash.decode("u4pruydqqvj")
        #expect(abs(cell.center.lat - 57.64911) < 1e-5 && abs(cell.center.lon - 10.40744) < 1e-5)
        #expect(throws: ModelError.self) { try Geohash.decode("u4a") }  // 'a' is not in the alphabet
        #expect(throws: ModelError.self) { try Geohash.decode("") }
        let coarse = try Geohash.decode("dpph")
        #expect(coarse.radiusMeters > 10_000 && coarse.radiusMeters < 30_000)
    }

    /// The cell memo's integer key: one per valid geohash (a prefix is another key), none for
    /// anything that is not one; a memoized cell is the one decoding gives.
    @Test func cellCacheKeysAreOnePerGeohashAndCellsAreTheDecodedOnes() throws {
        let hashes = ["0", "00", "000000000000", "zzzzzzzzzzzz", "dppn59", "dppn59u", "dppn59v", "s", "u"]
        let keys = hashes.map(CellCache.key)
        #expect(keys.allSatisfy { $0 != nil } && Set(keys).count == hashes.count)
        for bad in ["", "0000000000000", "dppn5a", "DPPN59", "dppn 59", "dppé"] { #expect(CellCache.key(bad) == nil) }
        for h in hashes {
            let first = try Geohash.decode(h), again = try Geohash.decode(h)
            let uncached = try Geohash.decodeUncached(h)
            #expect(first == again && first == uncached)
        }
        #expect(throws: ModelError.self) { try Geohash.decode("dppn5a") }
        // Ever new cells (more than the memo holds) leave it within its capacity.
        let alphabet = Array("0123456789bcdefghjkmnpqrstuvwxyz")
        for i in 0..<40_000 {
            let tail = (0..<4).map { alphabet[(i >> (5 * $0)) & 31] }
            _ = try Geohash.decode("dpp" + String(tail))
        }
        #expect(CellCache.shared.count <= CellCache.capacity)
    }

    /// The cheap test before the haversine: whenever it says "surely farther", the distance is
    /// farther (at bounds just under, at and over the latitude arc and the distance itself),
    /// and it does say so for points far apart north-south.
    @Test func surelyFartherNeverContradictsTheDistance() throws {
        var rng = SplitMix64(seed: 25)
        func unit() -> Double { Double(rng.next() >> 11) / Double(1 << 53) }
        var said = 0
        for _ in 0..<20_000 {
            let a = try GeoPoint(lat: 40 + unit(), lon: -80 + unit())
            let b = try GeoPoint(lat: a.lat + (unit() - 0.5) * 0.2 * unit(), lon: a.lon + (unit() - 0.5) * 0.2)
            let d = a.distance(to: b)
            let arc = abs(b.lat - a.lat) * .pi / 180 * GeoPoint.earthRadiusMeters
            for m in [arc - 0.02, arc - 0.011, arc - 1e-9, arc, d - 1e-6, d, d.nextDown, -1, 0] {
                if a.isSurelyFarther(than: m, from: b) {
                    said += 1
                    #expect(d > m, "\(a) \(b) \(m)")
                }
            }
        }
        #expect(said > 10_000)
        let north = try GeoPoint(lat: 40.7, lon: -80), south = try GeoPoint(lat: 40.25, lon: -80)
        #expect(north.isSurelyFarther(than: 10_000, from: south) && !north.isSurelyFarther(than: 60_000, from: south))
        let fence = Geofence(center: north, radiusMeters: 2_000)
        let cell = try Geohash.decode(Geohash.encode(south, precision: 7))
        #expect(!fence.contains(south) && !fence.contains(cell: cell))
    }

    @Test func haversineAndFences() throws {
        let cmu = try GeoPoint(lat: 40.4433, lon: -79.9436), pitt = try GeoPoint(lat: 40.4444, lon: -79.9608)
        #expect(abs(cmu.distance(to: pitt) - 1460) < 30)
        #expect(abs(try GeoPoint(lat: 0, lon: 0).distance(to: try GeoPoint(lat: 0, lon: 1)) - 111_195) < 10)
        let fence = Geofence(center: cmu, radiusMeters: 1000)
        #expect(!fence.contains(pitt) && fence.contains(pitt, marginMeters: 500))
        #expect(fence.contains(geohash: Geohash.encode(cmu, precision: 7)))
        #expect(!fence.contains(geohash: Geohash.encode(try GeoPoint(lat: 40.6, lon: -79.9436), precision: 7)))
        #expect(throws: ModelError.self) { try GeoPoint(lat: 91, lon: 0) }
        #expect(throws: ModelError.self) { try GeoPoint(parsing: "40.1;-79") }
        #expect(try GeoPoint(parsing: " 40.5 , -79.25 ") == GeoPoint(lat: 40.5, lon: -79.25))
    }
}
