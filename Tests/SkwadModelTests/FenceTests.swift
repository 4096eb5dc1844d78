import Foundation
import Testing
import SkwadModel
import SkwadTestKit

/// Issue 10, findings 3 and 4: a coarse cell never stretches a fence, claims say no more
/// than "inside", and fence centres sit on a grid.
@Suite struct FenceTests {
    static let cmu = try! GeoPoint(lat: 40.443, lon: -79.944)

    @Test func aCoarseCellIsNeverInsideASmallFence() {
        let fence = Geofence(center: Self.cmu, radiusMeters: 100)
        for p in 1...7 { #expect(!fence.contains(geohash: Geohash.encode(Self.cmu, precision: p)), "precision \(p)") }
        #expect(!fence.contains(geohash: "d"))
        // A cell small enough, around the centre, is inside.
        #expect(fence.contains(geohash: Geohash.encode(Self.cmu, precision: 9)))
    }

    /// Property: over random fences and random cells, a cell said to be inside lies wholly
    /// inside: its corners, edge midpoints and random points are all within the radius.
    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func aCellInsideLiesWhollyInside(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        func unit() -> Double { Double(rng.next() >> 11) / Double(1 << 53) }
        var insides = 0
        for _ in 0..<3_000 {
            let center = try GeoPoint(lat: unit() * 160 - 80, lon: unit() * 360 - 180)
            let radius = pow(10, unit() * 6)  // 1 m ... 1,000 km
            let fence = Geofence(center: center, radiusMeters: radius.rounded(.up))
            // A point near the fence (within 2 radii), at a random precision.
            let bearing = unit() * 2 * .pi, d = unit() * 2 * radius / 111_000
            let lat = max(-89.9, min(89.9, center.lat + d * cos(bearing)))
            var lon = center.lon + d * sin(bearing) / max(0.05, cos(center.lat * .pi / 180))
            lon = lon > 180 ? lon - 360 : (lon < -180 ? lon + 360 : lon)
            let point = try GeoPoint(lat: lat, lon: lon)
            let hash = Geohash.encode(point, precision: 1 + Int(rng.next() % 12))
            let cell = try Geohash.decode(hash)
            guard fence.contains(cell: cell) else { continue }
            insides += 1
            for _ in 0..<20 {
                let q = try GeoPoint(
                    lat: max(-90, min(90, cell.center.lat + (unit() * 2 - 1) * cell.latError)),
                    lon: max(-180, min(180, cell.center.lon + (unit() * 2 - 1) * cell.lonError)))
                #expect(fence.center.distance(to: q) <= fence.radiusMeters * (1 + 1e-9))
            }
            for dl in [-1.0, 0, 1] {
                for dn in [-1.0, 0, 1] {
                    let q = try GeoPoint(
                        lat: max(-90, min(90, cell.center.lat + dl * cell.latError)),
                        lon: max(-180, min(180, cell.center.lon + dn * cell.lonError)))
                    #expect(fence.center.distance(to: q) <= fence.radiusMeters * (1 + 1e-9))
                }
            }
        }
        #expect(insides > 100)  // the property was exercised
    }

    /// A claim is the coarsest cell that shows "inside": it is inside and holds the point,
    /// and the cell one level coarser is not inside.
    @Test(arguments: [7, 8] as [UInt64])
    func claimsAreTheCoarsestCellInside(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        func unit() -> Double { Double(rng.next() >> 11) / Double(1 << 53) }
        var claims = 0
        for _ in 0..<500 {
            let center = try GeoPoint(lat: unit() * 120 - 60, lon: unit() * 300 - 150)
            let fence = Geofence(center: center, radiusMeters: pow(10, 1 + unit() * 5).rounded())
            let d = unit() * 0.8 * fence.radiusMeters / 111_000, b = unit() * 2 * .pi
            let point = try GeoPoint(lat: center.lat + d * cos(b), lon: center.lon + d * sin(b) / cos(center.lat * .pi / 180))
            guard let claim = fence.claim(for: point, finestPrecision: fence.finestClaimPrecision) else { continue }
            claims += 1
            #expect(fence.contains(geohash: claim))
            #expect(claim.count <= fence.finestClaimPrecision)
            #expect(Geohash.encode(point, precision: claim.count) == claim)
            if claim.count > 1 { #expect(!fence.contains(geohash: String(claim.dropLast()))) }
        }
        #expect(claims > 250)
        // Far outside, no claim.
        let fence = Geofence(center: Self.cmu, radiusMeters: 500)
        #expect(fence.claim(for: try GeoPoint(lat: 41.0, lon: -79.944)) == nil)
        // A 5 km fence around its centre: a coarse claim (cells of km), not a 150 m cell.
        let big = Geofence(center: Self.cmu, radiusMeters: 5_000)
        #expect((big.claim(for: Self.cmu, finestPrecision: big.finestClaimPrecision)?.count ?? 99) <= 5)
    }

    @Test func fenceCentresAreSnappedToTheGrid() throws {
        var rng = SplitMix64(seed: 99)
        for _ in 0..<1_000 {
            let u1 = Double(rng.next() >> 11) / Double(1 << 53), u2 = Double(rng.next() >> 11) / Double(1 << 53)
            let here = try GeoPoint(lat: u1 * 170 - 85, lon: u2 * 358 - 179)
            let f = Geofence.snapped(center: here, radiusMeters: 250.4)
            #expect(f.center.latE6 % Geofence.centerGridE6 == 0 && f.center.lonE6 % Geofence.centerGridE6 == 0)
            #expect(f.radiusMeters == 250)
            #expect(here.distance(to: f.center) <= 80)  // half the grid's diagonal, about 79 m at most
        }
    }

    /// `distance(to:)` keeps each point's cos(latitude): the same bits as the haversine
    /// computed in full (every distance the geofence rule and the simulator measure).
    @Test func distanceIsTheFullHaversineBitForBit() throws {
        func haversine(_ x: GeoPoint, _ y: GeoPoint) -> Double {
            let p1 = x.lat * .pi / 180, p2 = y.lat * .pi / 180
            let dp = p2 - p1, dl = (y.lon - x.lon) * .pi / 180
            let a = sin(dp / 2) * sin(dp / 2) + cos(p1) * cos(p2) * sin(dl / 2) * sin(dl / 2)
            return 2 * GeoPoint.earthRadiusMeters * atan2(sqrt(a), sqrt(max(0, 1 - a)))
        }
        var r = SplitMix64(seed: 11)
        func unit() -> Double { Double(r.next() >> 11) / Double(1 << 53) }
        for i in 0..<5_000 {
            // Half in one city, half anywhere (poles and the antimeridian included).
            let span = i % 2 == 0 ? (0.2, 0.3) : (180.0, 360.0)
            func point() throws -> GeoPoint {
                let lat = i % 2 == 0 ? 40.4 + unit() * span.0 : -90 + unit() * span.0
                let lon = i % 2 == 0 ? -80.0 + unit() * span.1 : -180 + unit() * span.1
                return try GeoPoint(lat: lat, lon: lon)
            }
            let x = try point(), y = try point()
            #expect(x.distance(to: y).bitPattern == haversine(x, y).bitPattern)
        }
    }
}
