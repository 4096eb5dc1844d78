import Foundation

/// A point on Earth, in degrees. Wire form: microdegrees (see `Fence`).
public struct GeoPoint: Hashable, Sendable, CustomStringConvertible {
    public let lat: Double
    public let lon: Double

    public init(lat: Double, lon: Double) throws {
        guard lat.isFinite, lon.isFinite, (-90...90).contains(lat), (-180...180).contains(lon) else {
            throw ModelError.invalid("location out of range: \(lat),\(lon) (latitude -90...90, longitude -180...180)")
        }
        self.lat = lat; self.lon = lon
    }
    init(unchecked lat: Double, _ lon: Double) { self.lat = lat; self.lon = lon }

    /// Parses "LAT,LON".
    public init(parsing text: String) throws {
        let parts = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2, let la = Double(parts[0]), let lo = Double(parts[1]) else {
            throw ModelError.invalid("expected LAT,LON such as 40.4433,-79.9436, got '\(text)'")
        }
        try self.init(lat: la, lon: lo)
    }

    public static let earthRadiusMeters = 6_371_008.8

    /// Great-circle distance in metres (haversine).
    public func distance(to other: GeoPoint) -> Double {
        let p1 = lat * .pi / 180, p2 = other.lat * .pi / 180
        let dp = p2 - p1, dl = (other.lon - lon) * .pi / 180
        let a = sin(dp / 2) * sin(dp / 2) + cos(p1) * cos(p2) * sin(dl / 2) * sin(dl / 2)
        return 2 * Self.earthRadiusMeters * atan2(sqrt(a), sqrt(max(0, 1 - a)))
    }

    /// Initial bearing in degrees (0 = north, clockwise).
    public func bearing(to other: GeoPoint) -> Double {
        let p1 = lat * .pi / 180, p2 = other.lat * .pi / 180, dl = (other.lon - lon) * .pi / 180
        let y = sin(dl) * cos(p2)
        let x = cos(p1) * sin(p2) - sin(p1) * cos(p2) * cos(dl)
        let deg = atan2(y, x) * 180 / .pi
        return (deg + 360).truncatingRemainder(dividingBy: 360)
    }

    /// Microdegree form used on the wire.
    public var latE6: Int32 { Int32((lat * 1e6).rounded()) }
    public var lonE6: Int32 { Int32((lon * 1e6).rounded()) }
    public init(latE6: Int32, lonE6: Int32) throws { try self.init(lat: Double(latE6) / 1e6, lon: Double(lonE6) / 1e6) }

    public var description: String { String(format: "%.5f,%.5f", lat, lon) }
}

/// Geohash cells (base32, Niemeyer 2008). Locations travel coarse, as a cell.
public enum Geohash {
    static let alphabet = Array("0123456789bcdefghjkmnpqrstuvwxyz".utf8)
    static let decodeTable: [Int8] = {
        var t = [Int8](repeating: -1, count: 128)
        for (i, c) in alphabet.enumerated() { t[Int(c)] = Int8(i) }
        return t
    }()

    public static func encode(_ p: GeoPoint, precision: Int) -> String {
        precondition(precision >= 1 && precision <= 12)
        var latR = (-90.0, 90.0), lonR = (-180.0, 180.0)
        var out: [UInt8] = [], bit = 0, ch = 0, even = true
        while out.count < precision {
            if even {
                let mid = (lonR.0 + lonR.1) / 2
                if p.lon >= mid { ch |= 1 << (4 - bit); lonR.0 = mid } else { lonR.1 = mid }
            } else {
                let mid = (latR.0 + latR.1) / 2
                if p.lat >= mid { ch |= 1 << (4 - bit); latR.0 = mid } else { latR.1 = mid }
            }
            even.toggle()
            if bit == 4 { out.append(alphabet[ch]); bit = 0; ch = 0 } else { bit += 1 }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A decoded cell: its centre and half-extents in degrees.
    public struct Cell: Sendable, Equatable {
        public let center: GeoPoint
        public let latError: Double
        public let lonError: Double
        /// Distance from the centre to a corner, in metres: the margin a cell adds.
        public var radiusMeters: Double {
            let corner = GeoPoint(unchecked: min(90, center.lat + latError), center.lon + lonError)
            return center.distance(to: corner)
        }
    }

    public static func decode(_ hash: String) throws -> Cell {
        let chars = Array(hash.utf8)
        guard (1...12).contains(chars.count) else { throw ModelError.invalid("geohash must have 1...12 characters") }
        var latR = (-90.0, 90.0), lonR = (-180.0, 180.0), even = true
        for c in chars {
            guard c < 128, decodeTable[Int(c)] >= 0 else { throw ModelError.invalid("bad geohash character in '\(hash)'") }
            let v = Int(decodeTable[Int(c)])
            for b in stride(from: 4, through: 0, by: -1) {
                let on = (v >> b) & 1 == 1
                if even {
                    let mid = (lonR.0 + lonR.1) / 2
                    if on { lonR.0 = mid } else { lonR.1 = mid }
                } else {
                    let mid = (latR.0 + latR.1) / 2
                    if on { latR.0 = mid } else { latR.1 = mid }
                }
                even.toggle()
            }
        }
        return Cell(center: GeoPoint(unchecked: (latR.0 + latR.1) / 2, (lonR.0 + lonR.1) / 2),
                    latError: (latR.1 - latR.0) / 2, lonError: (lonR.1 - lonR.0) / 2)
    }
}

/// A pack's geofence: a centre and a radius in metres.
public struct Geofence: Hashable, Sendable {
    public let center: GeoPoint
    public let radiusMeters: Double

    public init(center: GeoPoint, radiusMeters: Double) {
        self.center = center; self.radiusMeters = radiusMeters
    }

    /// The fence exactly as an op carries it (centre in millionths of a degree, radius in
    /// whole metres): what every receiver decodes and applies.
    public var asEncoded: Geofence {
        let c = (try? GeoPoint(latE6: center.latE6, lonE6: center.lonE6)) ?? center
        return Geofence(center: c, radiusMeters: radiusMeters.rounded())
    }

    public func contains(_ p: GeoPoint, marginMeters: Double = 0) -> Bool {
        center.distance(to: p) <= radiusMeters + marginMeters
    }

    /// A cell is inside when its centre lies within radius + the cell's own radius
    /// (locations are coarse: the cell size is the margin). Normative: PROTOCOL.md §Geofence.
    public func contains(cell: Geohash.Cell) -> Bool {
        contains(cell.center, marginMeters: cell.radiusMeters)
    }

    public func contains(geohash: String) -> Bool {
        guard let cell = try? Geohash.decode(geohash) else { return false }
        return contains(cell: cell)
    }
}
