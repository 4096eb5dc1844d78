import Testing
import SkwadCrypto
import SkwadModel
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
