import SkwadModel
import SkwadNode
import SkwadReplica

/// What a place verb produced, before rendering (RenderPlaces.swift).
public enum PlaceReply: Sendable {
    case done(String, id: OpID?)
    case list([PlaceView])
    case page(PlacePage)
    case favs([PlaceView])
    /// `compare`, with where you are (for distances).
    case compare([PlaceView], here: GeoPoint?)
    /// The next place to swipe (nil: none left) and how many are left after it.
    case card(PlaceView?, left: Int, query: PlaceQuery)
    /// A swipe-mode answer: what the key did, then the next card.
    case swiped(String, next: PlaceView?, left: Int)
}

extension Executor {
    func runPlaces(_ cmd: PlaceCommand) async throws -> PlaceReply {
        let len = await node.displayIDLength()
        switch cmd {
        case let .add(pack, input):
            let id = try await node.addPlace(pack: pack, input)
            return .done("added place \(id.short(await node.displayIDLength()))", id: id)
        case let .edit(ref, input):
            let id = try await node.editPlace(ref, input)
            return .done("edited place \(ref)", id: id)
        case .show(let ref): return .page(try await node.placePage(ref))
        case .list(let q): return .list(try await node.places(q))
        case let .review(ref, input):
            let id = try await node.review(ref, input)
            return .done("reviewed \(ref) (\(id.short(len)))", id: id)
        case .swipe(let q):
            let left = try await node.swipeCandidates(q)
            return .card(left.first, left: max(0, left.count - 1), query: q)
        case .favs(let q): return .favs(try await node.favourites(q))
        case .compare(let refs): return .compare(try await node.compare(refs), here: await node.location)
        }
    }

    /// One line typed in swipe mode: y (favourite), n (pass), u (undo), q (quit). Returns the
    /// reply and whether swipe mode goes on.
    func swipeKey(_ line: String, current: OpID?, query: PlaceQuery) async throws -> (PlaceReply, goOn: Bool) {
        let key = line.trimmingCharacters(in: .whitespaces).lowercased()
        var said: String
        switch key {
        case "y", "yes":
            guard let current else { return (.swiped("nothing to swipe", next: nil, left: 0), false) }
            try await node.swipe(current, favourite: true); said = "favourite"
        case "n", "no":
            guard let current else { return (.swiped("nothing to swipe", next: nil, left: 0), false) }
            try await node.swipe(current, favourite: false); said = "passed"
        case "u", "undo":
            if let m = try await node.undoSwipe() {
                said = "undone: \(m.favourite ? "favourite" : "pass") on \(m.place.short(await node.displayIDLength()))"
                let back = try await node.swipeCandidates(query)
                let first = back.first { $0.id == m.place } ?? back.first
                return (.swiped(said, next: first, left: max(0, back.count - 1)), first != nil)
            }
            said = "nothing to undo"
        case "q", "quit", "":
            return (.swiped(key == "" ? "swipe ended" : "swipe ended (favs lists your favourites)", next: nil, left: 0), false)
        default:
            throw CommandError("in swipe mode: y favourite, n pass, u undo, q quit")
        }
        let left = try await node.swipeCandidates(query)
        return (.swiped(said, next: left.first, left: max(0, left.count - 1)), left.first != nil)
    }
}
