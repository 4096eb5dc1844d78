import Foundation

/// A point on Earth, in degrees. Wire form: microdegrees (see `Fence`).
public struct GeoPoint: Hashable, Sendable, CustomStringConvertible {
    public let lat: Double
    public let lon: Double
    /// cos(latitude), computed once: `distance(to:)` needs it for both ends, and the
    /// simulator and the geofence rule measure a distance for every datagram, op and link.
    private let cosLat: Double

    public init(lat: Double, lon: Double) throws {
        guard lat.isFinite, lon.isFinite, (-90...90).contains(lat), (-180...180).contains(lon) else {
            throw ModelError.invalid("location out of range: \(lat),\(lon) (latitude -90...90, longitude -180...180)")
        }
        self.init(unchecked: lat, lon)
    }
    init(unchecked lat: Double, _ lon: Double) { self.lat = lat; self.lon = lon; cosLat = cos(lat * .pi / 180) }

    public static func == (a: GeoPoint, b: GeoPoint) -> Bool { a.lat == b.lat && a.lon == b.lon }
    public func hash(into hasher: inout Hasher) { hasher.combine(lat); hasher.combine(lon) }

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
        // cosLat is cos(p1) and other.cosLat cos(p2), computed by the same expressions.
        let a = sin(dp / 2) * sin(dp / 2) + cosLat * other.cosLat * sin(dl / 2) * sin(dl / 2)
        return 2 * Self.earthRadiusMeters * atan2(sqrt(a), sqrt(max(0, 1 - a)))
    }

    /// True when `other` lies surely farther than `meters` away, known without trigonometry:
    /// the great-circle distance is never less than the arc of the latitude difference
    /// alone (a centimetre and a billionth of slack over the haversine's rounding). False
    /// says nothing. The geofence rule asks about every pack in a directory, most of them
    /// far from the asker in the metro (`Geofence.contains`, `GossipEngine.inDirectory`).
    public func isSurelyFarther(than meters: Double, from other: GeoPoint) -> Bool {
        abs(other.lat - lat) * .pi / 180 * Self.earthRadiusMeters > meters + 0.01 + abs(meters) * 1e-9
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
        /// The farthest a point of the cell lies from its centre, in metres: the largest of
        /// the distances to its corners and edge midpoints (on a lat/lon rectangle the
        /// farthest point is on that outline). What a cell adds as uncertainty. Computed once
        /// when the cell is made (eight great-circle distances): the geofence rule reads it
        /// for every op, link and directory entry it checks.
        public let radiusMeters: Double

        init(center: GeoPoint, latError: Double, lonError: Double) {
            self.center = center; self.latError = latError; self.lonError = lonError
            var r = 0.0
            for dlat in [-latError, 0, latError] {
                for dlon in [-lonError, 0, lonError] where dlat != 0 || dlon != 0 {
                    let q = GeoPoint(unchecked: max(-90, min(90, center.lat + dlat)), center.lon + dlon)
                    r = max(r, center.distance(to: q))
                }
            }
            radiusMeters = r
        }
    }

    /// Decodes a cell. Decoded cells are memoized (`CellCache`: decoding is pure, and a
    /// node sees the same few cells again and again, from every neighbour's announcement).
    public static func decode(_ hash: String) throws -> Cell {
        guard let key = CellCache.key(hash) else { return try decodeUncached(hash) }
        if let hit = CellCache.shared.get(key) { return hit }
        let cell = try decodeUncached(hash)
        CellCache.shared.put(key, cell)
        return cell
    }

    static func decodeUncached(_ hash: String) throws -> Cell {
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
        return Cell(
            center: GeoPoint(unchecked: (latR.0 + latR.1) / 2, (lonR.0 + lonR.1) / 2),
            latError: (latR.1 - latR.0) / 2, lonError: (lonR.1 - lonR.0) / 2)
    }
}

/// Memo of decoded geohash cells, shared by the process (thread-safe). Bounded: at most
/// `capacity` cells; when a stripe is full it is emptied and refills (a peer announcing
/// endless new cells costs decoding, never memory). Keyed by the geohash packed into an
/// integer, in stripes each with its own lock, so that the simulator's threads do not
/// contend on one lock or hash strings.
final class CellCache: @unchecked Sendable {
    static let shared = CellCache()
    static let capacity = 32_768
    static let stripeCount = 16

    private final class Stripe: @unchecked Sendable {
        let lock = NSLock()
        var cells: [UInt64: Geohash.Cell] = [:]
    }
    private let stripes = (0..<CellCache.stripeCount).map { _ in Stripe() }

    /// A valid geohash (1...12 characters of the alphabet) as one integer: 5 bits a
    /// character, its length in the top 4 bits. Nil for anything else.
    static func key(_ hash: String) -> UInt64? {
        var key: UInt64 = 0, n: UInt64 = 0
        for c in hash.utf8 {
            guard n < 12, c < 128 else { return nil }
            let v = Geohash.decodeTable[Int(c)]
            guard v >= 0 else { return nil }
            key = key << 5 | UInt64(v)
            n += 1
        }
        return n == 0 ? nil : key | n << 60
    }

    private func stripe(_ key: UInt64) -> Stripe { stripes[Int(key % UInt64(Self.stripeCount))] }

    func get(_ key: UInt64) -> Geohash.Cell? {
        let s = stripe(key)
        s.lock.lock(); defer { s.lock.unlock() }
        return s.cells[key]
    }

    func put(_ key: UInt64, _ cell: Geohash.Cell) {
        let s = stripe(key)
        s.lock.lock(); defer { s.lock.unlock() }
        if s.cells.count >= Self.capacity / Self.stripeCount { s.cells.removeAll(keepingCapacity: true) }
        s.cells[key] = cell
    }

    var count: Int {
        stripes.reduce(0) { sum, s in
            s.lock.lock(); defer { s.lock.unlock() }
            return sum + s.cells.count
        }
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
        if center.isSurelyFarther(than: radiusMeters + marginMeters, from: p) { return false }
        return center.distance(to: p) <= radiusMeters + marginMeters
    }

    /// A cell is inside only when the whole cell lies inside the fence: the distance from the
    /// fence centre to the cell centre plus the cell's radius is at most the fence radius
    /// (a triangle-inequality bound, so a coarse cell never stretches a fence). A cell too
    /// coarse for the fence is therefore never inside. Normative: PROTOCOL.md §4 and §12.
    public func contains(cell: Geohash.Cell) -> Bool {
        if center.isSurelyFarther(than: radiusMeters - cell.radiusMeters, from: cell.center) { return false }
        return center.distance(to: cell.center) + cell.radiusMeters <= radiusMeters
    }

    public func contains(geohash: String) -> Bool {
        guard let cell = try? Geohash.decode(geohash) else { return false }
        return contains(cell: cell)
    }

    /// The grid fence centres are snapped to when a node creates a pack: multiples of
    /// 0.001° (1,000 microdegrees) in latitude and longitude, about 111 m north–south.
    public static let centerGridE6: Int32 = 1_000

    /// A fence centred on the grid point nearest to `center` (PROTOCOL.md §3, CreatePack).
    public static func snapped(center: GeoPoint, radiusMeters: Double) -> Geofence {
        func snap(_ x: Int32) -> Int32 {
            let g = Int64(centerGridE6), v = Int64(x)
            let q = (v >= 0 ? v + g / 2 : v - g / 2) / g
            return Int32(clamping: q * g)
        }
        let c = (try? GeoPoint(latE6: snap(center.latE6), lonE6: snap(center.lonE6))) ?? center
        return Geofence(center: c, radiusMeters: radiusMeters.rounded())
    }

    /// The location claim a node makes for an op in a locked pack: the coarsest geohash cell
    /// around `point` that lies wholly inside this fence (it decides "inside" and says no
    /// more), never finer than `finestPrecision`. nil when no such cell exists: the point is
    /// outside, or too near the edge to prove it is inside at that precision.
    public func claim(for point: GeoPoint, finestPrecision: Int = 12) -> String? {
        let finest = max(1, min(12, finestPrecision))
        for p in 1...finest {
            let hash = Geohash.encode(point, precision: p)
            if contains(geohash: hash) { return hash }
        }
        return nil
    }

    /// The finest precision a claim may use for this fence: cells no smaller (in radius)
    /// than a sixteenth of the fence radius, and never coarser than needed to fit at all.
    public var finestClaimPrecision: Int {
        var p = 1
        while p < 12 {
            let r = Geohash.cellRadiusMeters(precision: p + 1, at: center)
            if r < radiusMeters / 16 { break }
            p += 1
        }
        return p
    }
}

extension Geohash {
    /// Radius (centre to farthest outline point) of the cell of `precision` containing `p`.
    public static func cellRadiusMeters(precision: Int, at p: GeoPoint) -> Double {
        (try? decode(encode(p, precision: precision)))?.radiusMeters ?? 0
    }
}
