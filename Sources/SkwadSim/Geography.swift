import Foundation
import SkwadModel

/// Where the nodes stand, and the cells they announce and claim.
struct Geography: Sendable {
    var locations: [GeoPoint] = []
    /// Geohash of each node's location at the scenario's precision.
    var cells: [String] = []
    /// Decoded cell of each node (centre and margin), as the geofence rule sees it.
    var cellCenters: [GeoPoint] = []
    var cellRadii: [Double] = []
    /// Index of the campus each node was placed around, or -1 (uniform background).
    var campusOf: [Int32] = []

    static let metersPerDegreeLat = 111_320.0

    static func point(_ lat: Double, _ lon: Double) -> GeoPoint {
        // Clamped, so construction cannot fail.
        (try? GeoPoint(lat: min(90, max(-90, lat)), lon: min(180, max(-180, lon)))) ?? (try! GeoPoint(lat: 0, lon: 0))
    }

    /// A point uniformly distributed in the disk of `radius` metres around (lat, lon).
    static func inDisk(lat: Double, lon: Double, radius: Double, rng: inout SimRandom) -> GeoPoint {
        let r = radius * rng.unit().squareRoot()
        let theta = 2 * Double.pi * rng.unit()
        let dLat = r * cos(theta) / metersPerDegreeLat
        let dLon = r * sin(theta) / (metersPerDegreeLat * max(0.01, cos(lat * .pi / 180)))
        return point(lat + dLat, lon + dLon)
    }

    static func place(_ s: Scenario, seed: UInt64) -> Geography {
        var rng = SimRandom.stream(seed, 1)
        var g = Geography()
        let box = s.nodes.box
        let totalWeight = s.campuses.reduce(0) { $0 + $1.weight }
        for _ in 0..<s.nodes.count {
            var campus: Int32 = -1
            let p: GeoPoint
            if s.nodes.placement == .campuses, totalWeight > 0, !rng.chance(s.nodes.background) {
                var pick = rng.unit() * totalWeight
                var idx = s.campuses.count - 1
                for (i, c) in s.campuses.enumerated() {
                    if pick < c.weight { idx = i; break }
                    pick -= c.weight
                }
                let c = s.campuses[idx]
                campus = Int32(idx)
                p = inDisk(lat: c.lat, lon: c.lon, radius: c.radiusMeters, rng: &rng)
            } else {
                p = point(rng.uniform(box.latMin, box.latMax), rng.uniform(box.lonMin, box.lonMax))
            }
            g.locations.append(p)
            g.campusOf.append(campus)
            let cell = Geohash.encode(p, precision: s.geohashPrecision)
            g.cells.append(cell)
            let decoded = (try? Geohash.decode(cell))
            g.cellCenters.append(decoded?.center ?? p)
            g.cellRadii.append(decoded?.radiusMeters ?? 0)
        }
        return g
    }

    /// The geofence rule for a node's announced cell (PROTOCOL.md §12): the cell is inside
    /// when it lies wholly inside, centre distance + the cell's own radius ≤ the radius
    /// (`Geofence.contains(cell:)`, with the decoded cell kept per node).
    func inside(_ node: Int, _ fence: Geofence) -> Bool {
        fence.center.distance(to: cellCenters[node]) + cellRadii[node] <= fence.radiusMeters
    }
}
