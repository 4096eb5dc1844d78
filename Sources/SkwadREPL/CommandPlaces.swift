import Foundation
import SkwadModel
import SkwadNode

/// Places, reviews, swipe, favourites and compare (issue 27): their grammar, kept apart from
/// Command.swift. `Command.parse` hands these verbs here; `reply REVIEW "TEXT"` is the
/// `comment`/`reply` verb (the node answers a review with the landlord's reply).
public enum PlaceCommand: Equatable, Sendable {
    case add(pack: String?, PlaceInput)
    case edit(place: String, PlaceInput)
    case show(String)
    case list(PlaceQuery)
    case review(place: String, ReviewInput)
    case swipe(PlaceQuery)
    case favs(PlaceQuery)
    case compare([String])

    static let verbs: Set<String> = ["place", "places", "review", "swipe", "favs", "compare"]

    static func parse(verb: String, args: inout Args) throws -> PlaceCommand? {
        switch verb {
        case "place":
            let first = try args.positional("add|edit|PLACE")
            switch first.lowercased() {
            case "add":
                let address = try args.positional("\"ADDRESS\"")
                var input = try placeInput(&args)
                input.address = address
                return .add(pack: try args.value("--pack"), input)
            case "edit":
                let ref = try args.positional("PLACE")
                var input = try placeInput(&args)
                input.address = try args.value("--address")
                guard input != PlaceInput() else {
                    throw CommandError("nothing to change; usage: place edit PLACE [--address A] [--city C] …")
                }
                return .edit(place: ref, input)
            default: return .show(first)
            }
        case "places":
            var q = try query(&args)
            var words: [String] = []
            while let w = args.optionalPositional() { words.append(w) }
            if !words.isEmpty { q.text = words.joined(separator: " ") }
            return .list(q)
        case "review":
            let place = try args.positional("PLACE")
            guard let overall = try args.double("--overall") else {
                throw CommandError("missing --overall X (0–5 in halves); usage: \(args.usage)")
            }
            guard overall >= 0, overall <= 5, (overall * 2).rounded() == overall * 2 else {
                throw CommandError("--overall must be 0–5 in steps of 0.5, got \(overall)")
            }
            func stars(_ name: String) throws -> UInt32 {
                guard let n = try args.int(name) else { throw CommandError("missing \(name) N (1–5); usage: \(args.usage)") }
                guard (1...5).contains(n) else { throw CommandError("\(name) must be 1–5, got \(n)") }
                return UInt32(n)
            }
            let loc = try stars("--location"), man = try stars("--management"), am = try stars("--amenities")
            guard let againWord = try args.value("--again") else { throw CommandError("missing --again yes|no; usage: \(args.usage)") }
            let again: Bool
            switch againWord.lowercased() {
            case "yes", "y": again = true
            case "no", "n": again = false
            default: throw CommandError("--again must be yes or no, got '\(clip(againWord))'")
            }
            let name = try args.value("--named") ?? ""
            let text = args.optionalPositional() ?? ""
            return .review(
                place: place,
                ReviewInput(
                    overallHalf: UInt32(overall * 2), location: loc, management: man, amenities: am,
                    again: again, text: text, name: name))
        case "swipe":
            return .swipe(try query(&args))
        case "favs":
            return .favs(try query(&args))
        case "compare":
            var refs: [String] = []
            while let w = args.optionalPositional() { refs.append(w) }
            guard (2...5).contains(refs.count) else { throw CommandError("compare takes 2 to 5 places; usage: \(args.usage)") }
            return .compare(refs)
        default: return nil
        }
    }

    static func placeInput(_ args: inout Args) throws -> PlaceInput {
        var p = PlaceInput()
        p.city = try args.value("--city"); p.zip = try args.value("--zip"); p.landlord = try args.value("--landlord")
        if let rent = try args.value("--rent") {
            let parts = rent.split(separator: "-", omittingEmptySubsequences: false)
            guard (1...2).contains(parts.count), let lo = UInt32(parts[0]), parts.count == 1 || UInt32(parts[1]) != nil else {
                throw CommandError("--rent expects N or N-M (whole amounts a month), got '\(clip(rent))'")
            }
            p.rentMin = lo; p.rentMax = parts.count == 2 ? UInt32(parts[1]) : nil
        }
        p.beds = try args.count("--beds")
        if let b = try args.double("--baths") {
            guard b >= 0, b <= 20, (b * 2).rounded() == b * 2 else { throw CommandError("--baths must be 0–20 in steps of 0.5") }
            p.bathsHalf = UInt32(b * 2)
        }
        p.termMonths = try args.count("--term")
        if let at = try args.value("--at") {
            do { p.at = try GeoPoint(parsing: at) } catch { throw CommandError("\(error)") }
        }
        p.landlordKey = try args.value("--landlord-key")
        return p
    }

    static func query(_ args: inout Args) throws -> PlaceQuery {
        var q = PlaceQuery()
        q.pack = try args.value("--pack"); q.city = try args.value("--city"); q.zip = try args.value("--zip")
        q.maxRent = try args.count("--max-rent")
        if let m = try args.double("--min-rating") {
            guard m >= 0, m <= 5 else { throw CommandError("--min-rating must be 0–5") }
            q.minRating = m
        }
        q.minReviews = try args.count("--min-reviews").map(Int.init)
        q.beds = try args.count("--beds")
        if let s = try args.choice("--sort", PlaceQuery.Sort.self) { q.sort = s }
        if let l = try args.int("--limit") {
            guard (1...1000).contains(l) else { throw CommandError("--limit must be 1...1000") }
            q.limit = l
        }
        return q
    }
}

extension Args {
    /// A whole number of 0 or more given with `name` (nil when absent).
    mutating func count(_ name: String) throws -> UInt32? {
        guard let n = try int(name) else { return nil }
        guard n >= 0 else { throw CommandError("\(name) must be 0 or more") }
        return UInt32(clamping: n)
    }
}

/// Help lines of the place verbs (listed by `help` with the others).
let placeHelp: [(name: String, usage: String, summary: String)] = [
    (
        "place",
        "place add \"ADDRESS\" [--pack P] [--city C] [--zip Z] [--landlord NAME] [--rent N[-M]] [--beds N] [--baths N]"
            + " [--term MONTHS] [--at LAT,LON] [--landlord-key me] | place edit PLACE … | place PLACE",
        "add a place to rent to a pack, edit one (its creator, moderators), or show one with its ratings and reviews"
    ),
    (
        "places",
        "places [TEXT] [--pack P] [--city C] [--zip Z] [--max-rent N] [--min-rating X] [--min-reviews N] [--beds N]"
            + " [--sort rating|reviews|rent|distance|term|new] [--limit N]",
        "find places by address, city, zip or landlord; rating is the Bayesian average"
    ),
    (
        "review", "review PLACE --overall X --location N --management N --amenities N --again yes|no \"TEXT\" [--named NAME]",
        "review a place (overall 0–5 in halves, the others 1–5); a second review edits yours; --named NAME: signed by your"
            + " persona in the pack (as post --named), never your anonymous pseudonym"
    ),
    ("swipe", "swipe [filters of places]", "places one at a time: y favourite, n pass, u undo, q quit (here only)"),
    ("favs", "favs [--sort rent|distance|term|rating|new] [filters of places]", "your favourite places (here only)"),
    ("compare", "compare A B [C D E]", "2 to 5 places side by side; * marks the best of each row")
]
