import Foundation
import SkwadModel
import SkwadNode

/// Places, reviews, swipe, favourites and compare (issue 27): place (show), place add, place
/// edit, places, review, swipe, favs, compare. `reply REVIEW "TEXT"` is `comment`'s alias (the
/// node answers a review with the landlord's reply).
struct PlaceCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "place",
        usage: "place add \"ADDRESS\" [--pack P] [--city C] [--zip Z] [--landlord NAME] [--rent N[-M]] [--beds N] [--baths N]"
            + " [--term MONTHS] [--at LAT,LON] [--landlord-key me] | place edit PLACE … | place PLACE",
        summary: "add a place to rent to a pack, edit one (its creator, moderators), or show one with its ratings and reviews",
        params: [.word("place", "add|edit|PLACE")])
    var place: String
    func run(_ x: Executor) async throws -> any REPLReply { PlaceReply.page(try await x.node.placePage(place)) }
}

struct PlaceAddCommand: REPLCommand, PlaceFields, Equatable {
    static let spec = CommandSpec(
        "place-add", verbs: ["place"], selector: .word("add"), usage: nil,
        params: [.word("address", "\"ADDRESS\"")] + placeFieldParams + [.option("pack", "--pack")])
    var address: String
    var city, zip, landlord, rent: String?
    var beds: Int?
    var baths: Double?
    var term: Int?
    var at, landlordKey: String?
    var pack: String?

    func validate() throws { _ = try input() }

    func run(_ x: Executor) async throws -> any REPLReply {
        var input = try input()
        input.address = address
        let id = try await x.node.addPlace(pack: pack, input)
        return DoneReply("added place \(id.short(await x.node.displayIDLength()))", id: id)
    }
}

struct PlaceEditCommand: REPLCommand, PlaceFields, Equatable {
    static let spec = CommandSpec(
        "place-edit", verbs: ["place"], selector: .word("edit"), usage: nil,
        params: [.word("place", "PLACE")] + placeFieldParams + [.option("address", "--address")])
    var place: String
    var city, zip, landlord, rent: String?
    var beds: Int?
    var baths: Double?
    var term: Int?
    var at, landlordKey: String?
    var address: String?

    func change() throws -> PlaceInput {
        var input = try input()
        input.address = address
        guard input != PlaceInput() else { throw CommandError("nothing to change; usage: place edit PLACE [--address A] [--city C] …") }
        return input
    }

    func validate() throws { _ = try change() }

    func run(_ x: Executor) async throws -> any REPLReply {
        DoneReply("edited place \(place)", id: try await x.node.editPlace(place, try change()))
    }
}

extension PlaceQuery.Sort: Decodable {}

struct PlacesCommand: REPLCommand, PlaceFilters, Equatable {
    static let spec = CommandSpec(
        "places",
        usage: "places [TEXT] [--pack P] [--city C] [--zip Z] [--max-rent N] [--min-rating X] [--min-reviews N] [--beds N]"
            + " [--sort rating|reviews|rent|distance|term|new] [--limit N]",
        summary: "find places by address, city, zip or landlord; rating is the Bayesian average",
        params: placeFilterParams + [.rest("text", joined: true)])
    var pack, city, zip: String?
    var maxRent: Int?
    var minRating: Double?
    var minReviews, beds: Int?
    var sort: PlaceQuery.Sort?
    var limit: Int?
    var text: String?

    func validate() throws { _ = try query() }

    func run(_ x: Executor) async throws -> any REPLReply {
        var q = try query()
        q.text = text
        return PlaceReply.list(try await x.node.places(q))
    }
}

struct ReviewCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "review", usage: "review PLACE --overall X --location N --management N --amenities N --again yes|no \"TEXT\" [--named NAME]",
        summary: "review a place (overall 0–5 in halves, the others 1–5); a second review edits yours; --named NAME: signed by your"
            + " persona in the pack (as post --named), never your anonymous pseudonym",
        params: [
            .word("place", "PLACE"), .option("overall", "--overall", .number), .option("location", "--location", .whole),
            .option("management", "--management", .whole), .option("amenities", "--amenities", .whole), .option("again", "--again"),
            .option("named", "--named", absent: .string("")), .optionalWord("text", absent: .string(""))
        ])
    var place: String
    var overall: Double?
    var location, management, amenities: Int?
    var again: String?
    var named: String
    var text: String

    func input() throws -> ReviewInput {
        let usage = Registry.usage(of: "review")
        guard let overall else { throw CommandError("missing --overall X (0–5 in halves); usage: \(usage)") }
        guard overall >= 0, overall <= 5, (overall * 2).rounded() == overall * 2 else {
            throw CommandError("--overall must be 0–5 in steps of 0.5, got \(overall)")
        }
        func stars(_ n: Int?, _ name: String) throws -> UInt32 {
            guard let n else { throw CommandError("missing \(name) N (1–5); usage: \(usage)") }
            guard (1...5).contains(n) else { throw CommandError("\(name) must be 1–5, got \(n)") }
            return UInt32(n)
        }
        let loc = try stars(location, "--location"), man = try stars(management, "--management")
        let am = try stars(amenities, "--amenities")
        guard let again else { throw CommandError("missing --again yes|no; usage: \(usage)") }
        let yes: Bool
        switch again.lowercased() {
        case "yes", "y": yes = true
        case "no", "n": yes = false
        default: throw CommandError("--again must be yes or no, got '\(clip(again))'")
        }
        return ReviewInput(
            overallHalf: UInt32(overall * 2), location: loc, management: man, amenities: am, again: yes, text: text, name: named)
    }

    func validate() throws { _ = try input() }

    func run(_ x: Executor) async throws -> any REPLReply {
        let id = try await x.node.review(place, try input())
        return DoneReply("reviewed \(place) (\(id.short(await x.node.displayIDLength())))", id: id)
    }
}

struct SwipeCommand: REPLCommand, PlaceFilters, Equatable {
    static let spec = CommandSpec(
        "swipe", usage: "swipe [filters of places]", summary: "places one at a time: y favourite, n pass, u undo, q quit (here only)",
        params: placeFilterParams)
    var pack, city, zip: String?
    var maxRent: Int?
    var minRating: Double?
    var minReviews, beds: Int?
    var sort: PlaceQuery.Sort?
    var limit: Int?

    func validate() throws { _ = try query() }

    func run(_ x: Executor) async throws -> any REPLReply {
        let q = try query()
        let left = try await x.node.swipeCandidates(q)
        return PlaceReply.card(left.first, left: max(0, left.count - 1), query: q)
    }
}

struct FavsCommand: REPLCommand, PlaceFilters, Equatable {
    static let spec = CommandSpec(
        "favs", usage: "favs [--sort rent|distance|term|rating|new] [filters of places]", summary: "your favourite places (here only)",
        params: placeFilterParams)
    var pack, city, zip: String?
    var maxRent: Int?
    var minRating: Double?
    var minReviews, beds: Int?
    var sort: PlaceQuery.Sort?
    var limit: Int?

    func validate() throws { _ = try query() }
    func run(_ x: Executor) async throws -> any REPLReply { PlaceReply.favs(try await x.node.favourites(try query())) }
}

struct CompareCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "compare", usage: "compare A B [C D E]", summary: "2 to 5 places side by side; * marks the best of each row",
        params: [.rest("places", joined: false)])
    var places: [String]

    func validate() throws {
        guard (2...5).contains(places.count) else {
            throw CommandError("compare takes 2 to 5 places; usage: \(Registry.usage(of: "compare"))")
        }
    }

    func run(_ x: Executor) async throws -> any REPLReply {
        PlaceReply.compare(try await x.node.compare(places), here: await x.node.location)
    }
}
