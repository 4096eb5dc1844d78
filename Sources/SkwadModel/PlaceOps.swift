import Foundation
import SkwadCrypto

/// A place (a home to rent), or a whole new record for one (`target` set). PROTOCOL.md §3;
/// who may edit is decided in the views (§5, places).
public struct Place: Hashable, Sendable {
    /// nil: a new place (its op id is the place id); else the place this record replaces.
    public var target: OpID?
    public var address: String
    public var city: String
    public var zip: String
    /// The landlord's name.
    public var landlord: String
    /// Monthly rent in whole currency units (0 = unknown); `rentMax` 0 or ≥ `rentMin`: a range.
    public var rentMin: UInt32
    public var rentMax: UInt32
    public var beds: UInt32
    /// Bathrooms in halves (3 = 1.5).
    public var bathsHalf: UInt32
    /// Lease term in months (0 = unknown).
    public var termMonths: UInt32
    /// Where the place is: a geohash cell.
    public var cell: String?
    /// The landlord's pseudonym in this pack: the one key whose replies count.
    public var landlordKey: PublicKey?

    public init(
        target: OpID? = nil, address: String, city: String = "", zip: String = "", landlord: String = "",
        rentMin: UInt32 = 0, rentMax: UInt32 = 0, beds: UInt32 = 0, bathsHalf: UInt32 = 0, termMonths: UInt32 = 0,
        cell: String? = nil, landlordKey: PublicKey? = nil
    ) {
        self.target = target; self.address = address; self.city = city; self.zip = zip; self.landlord = landlord
        self.rentMin = rentMin; self.rentMax = rentMax; self.beds = beds; self.bathsHalf = bathsHalf
        self.termMonths = termMonths; self.cell = cell; self.landlordKey = landlordKey
    }
}

/// A review of a place: one per pseudonym and place counts (the latest by (hlc, id)).
public struct Review: Hashable, Sendable {
    public var place: OpID
    /// Overall rating in halves, 0...10 (7 = 3.5 of 5).
    public var overallHalf: UInt32
    /// 1...5 each.
    public var location: UInt32
    public var management: UInt32
    public var amenities: UInt32
    /// Would live here again.
    public var again: Bool
    public var text: String
    /// A name shown with the review (the reviewer chose not to be anonymous); empty: none.
    public var name: String

    public init(
        place: OpID, overallHalf: UInt32, location: UInt32, management: UInt32, amenities: UInt32,
        again: Bool, text: String = "", name: String = ""
    ) {
        self.place = place; self.overallHalf = overallHalf; self.location = location; self.management = management
        self.amenities = amenities; self.again = again; self.text = text; self.name = name
    }
}

/// The landlord's reply to a review (counts only by the place's landlord pseudonym).
public struct ReviewReply: Hashable, Sendable {
    public var review: OpID
    public var text: String
    public init(review: OpID, text: String) { self.review = review; self.text = text }
}

// MARK: - Wire translation

extension Place {
    func wire() -> Skwad_V1_Place {
        var x = Skwad_V1_Place()
        if let target { x.target = Data(target.bytes) }
        x.address = address; x.city = city; x.zip = zip; x.landlord = landlord
        x.rentMin = rentMin; x.rentMax = rentMax; x.beds = beds; x.bathsHalf = bathsHalf; x.termMonths = termMonths
        if let cell { x.cell = cell }
        if let landlordKey { x.landlordKey = Data(landlordKey.bytes) }
        return x
    }

    init(wire x: Skwad_V1_Place) throws {
        target = x.target.isEmpty ? nil : try Self.id(x.target, "place target")
        address = x.address; city = x.city; zip = x.zip; landlord = x.landlord
        rentMin = x.rentMin; rentMax = x.rentMax; beds = x.beds; bathsHalf = x.bathsHalf; termMonths = x.termMonths
        if x.cell.isEmpty {
            cell = nil
        } else {
            guard x.cell.utf8.count <= Limits.maxGeohash, (try? Geohash.decode(x.cell)) != nil else {
                throw ModelError.malformed("place cell is not a geohash cell")
            }
            cell = x.cell
        }
        if x.landlordKey.isEmpty {
            landlordKey = nil
        } else {
            guard x.landlordKey.count == PublicKey.byteCount, let k = try? PublicKey(bytes: [UInt8](x.landlordKey)) else {
                throw ModelError.malformed("landlord key must be 32 bytes")
            }
            landlordKey = k
        }
    }

    static func id(_ d: Data, _ what: String) throws -> OpID {
        guard d.count == OpID.byteCount else { throw ModelError.malformed("\(what) must be 32 bytes, got \(d.count)") }
        return OpID(unchecked: [UInt8](d))
    }

    /// Field limits (PROTOCOL.md §3).
    func check() throws {
        guard !address.trimmingWhitespace().isEmpty else { throw ModelError.invalid("place address is empty") }
        try Validation.text(address, Limits.maxAddress, "address")
        try Validation.text(city, Limits.maxCity, "city")
        try Validation.text(zip, Limits.maxZip, "zip")
        try Validation.text(landlord, Limits.maxLandlord, "landlord")
        guard rentMin <= Limits.maxRent, rentMax <= Limits.maxRent else { throw ModelError.invalid("rent above \(Limits.maxRent)") }
        guard rentMax == 0 || rentMax >= rentMin else { throw ModelError.invalid("rent range ends below its start") }
        guard beds <= Limits.maxBeds else { throw ModelError.invalid("beds above \(Limits.maxBeds)") }
        guard bathsHalf <= Limits.maxBathsHalf else { throw ModelError.invalid("baths above \(Limits.maxBathsHalf / 2)") }
        guard termMonths <= Limits.maxTermMonths else { throw ModelError.invalid("term above \(Limits.maxTermMonths) months") }
    }
}

extension Review {
    func wire() -> Skwad_V1_Review {
        var x = Skwad_V1_Review()
        x.place = Data(place.bytes); x.overallHalf = overallHalf; x.location = location; x.management = management
        x.amenities = amenities; x.again = again; x.text = text; x.name = name
        return x
    }

    init(wire x: Skwad_V1_Review) throws {
        place = try Place.id(x.place, "review place")
        overallHalf = x.overallHalf; location = x.location; management = x.management; amenities = x.amenities
        again = x.again; text = x.text; name = x.name
    }

    /// Field limits (PROTOCOL.md §3).
    func check() throws {
        guard overallHalf <= 10 else { throw ModelError.invalid("overall rating must be 0...5 in halves") }
        for (v, what) in [(location, "location"), (management, "management"), (amenities, "amenities")] where !(1...5).contains(v) {
            throw ModelError.invalid("\(what) rating must be 1...5")
        }
        try Validation.text(text, Limits.maxBody, "review")
        try Validation.text(name, Limits.maxReviewName, "name")
    }
}

extension ReviewReply {
    func wire() -> Skwad_V1_ReviewReply {
        var x = Skwad_V1_ReviewReply(); x.review = Data(review.bytes); x.text = text
        return x
    }

    init(wire x: Skwad_V1_ReviewReply) throws {
        review = try Place.id(x.review, "reply review"); text = x.text
    }

    /// Field limits (PROTOCOL.md §3).
    func check() throws {
        guard !text.trimmingWhitespace().isEmpty else { throw ModelError.invalid("reply is empty") }
        try Validation.text(text, Limits.maxBody, "reply")
    }
}
