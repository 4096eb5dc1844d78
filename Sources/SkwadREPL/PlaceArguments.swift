import SkwadModel
import SkwadNode

/// The fields of a place, as `place add` and `place edit` take them.
protocol PlaceFields {
    var city: String? { get }
    var zip: String? { get }
    var landlord: String? { get }
    /// `N` or `N-M`: whole amounts a month.
    var rent: String? { get }
    var beds: Int? { get }
    var baths: Double? { get }
    var term: Int? { get }
    /// `LAT,LON`.
    var at: String? { get }
    var landlordKey: String? { get }
}

let placeFieldParams: [Param] = [
    .option("city", "--city"), .option("zip", "--zip"), .option("landlord", "--landlord"), .option("rent", "--rent"),
    .option("beds", "--beds", .whole), .option("baths", "--baths", .number), .option("term", "--term", .whole),
    .option("at", "--at"), .option("landlordKey", "--landlord-key")
]

extension PlaceFields {
    /// The place's fields, checked (the address is the command's).
    func input() throws -> PlaceInput {
        var p = PlaceInput()
        p.city = city; p.zip = zip; p.landlord = landlord
        if let rent {
            let parts = rent.split(separator: "-", omittingEmptySubsequences: false)
            guard (1...2).contains(parts.count), let lo = UInt32(parts[0]), parts.count == 1 || UInt32(parts[1]) != nil else {
                throw CommandError("--rent expects N or N-M (whole amounts a month), got '\(clip(rent))'")
            }
            p.rentMin = lo; p.rentMax = parts.count == 2 ? UInt32(parts[1]) : nil
        }
        p.beds = try placeCount(beds, "--beds")
        if let b = baths {
            guard b >= 0, b <= 20, (b * 2).rounded() == b * 2 else { throw CommandError("--baths must be 0–20 in steps of 0.5") }
            p.bathsHalf = UInt32(b * 2)
        }
        p.termMonths = try placeCount(term, "--term")
        if let at {
            do { p.at = try GeoPoint(parsing: at) } catch { throw CommandError("\(error)") }
        }
        p.landlordKey = landlordKey
        return p
    }
}

/// The filters of `places`, `swipe` and `favs`.
protocol PlaceFilters {
    var pack: String? { get }
    var city: String? { get }
    var zip: String? { get }
    var maxRent: Int? { get }
    var minRating: Double? { get }
    var minReviews: Int? { get }
    var beds: Int? { get }
    var sort: PlaceQuery.Sort? { get }
    var limit: Int? { get }
}

let placeFilterParams: [Param] = [
    .option("pack", "--pack"), .option("city", "--city"), .option("zip", "--zip"), .option("maxRent", "--max-rent", .whole),
    .option("minRating", "--min-rating", .number), .option("minReviews", "--min-reviews", .whole), .option("beds", "--beds", .whole),
    .option("sort", "--sort", .choice(PlaceQuery.Sort.allCases.map(\.rawValue))), .option("limit", "--limit", .whole)
]

extension PlaceFilters {
    /// The query, checked (the text is `places`').
    func query() throws -> PlaceQuery {
        var q = PlaceQuery()
        q.pack = pack; q.city = city; q.zip = zip
        q.maxRent = try placeCount(maxRent, "--max-rent")
        if let m = minRating {
            guard m >= 0, m <= 5 else { throw CommandError("--min-rating must be 0–5") }
            q.minRating = m
        }
        q.minReviews = try placeCount(minReviews, "--min-reviews").map(Int.init)
        q.beds = try placeCount(beds, "--beds")
        if let sort { q.sort = sort }
        if let limit {
            guard (1...1000).contains(limit) else { throw CommandError("--limit must be 1...1000") }
            q.limit = limit
        }
        return q
    }
}

/// A whole number of 0 or more given with `name` (nil when absent).
private func placeCount(_ n: Int?, _ name: String) throws -> UInt32? {
    guard let n else { return nil }
    guard n >= 0 else { throw CommandError("\(name) must be 0 or more") }
    return UInt32(clamping: n)
}
