import SkwadModel
import SkwadNode
import SkwadReplica

/// What a place verb produced, before rendering (RenderPlaces.swift).
public enum PlaceReply: REPLReply {
    case list([PlaceView])
    case page(PlacePage)
    case favs([PlaceView])
    /// `compare`, with where you are (for distances).
    case compare([PlaceView], here: GeoPoint?)
    /// The next place to swipe (nil: none left) and how many are left after it.
    case card(PlaceView?, left: Int, query: PlaceQuery)
    /// A swipe-mode answer: what the key did, then the next card.
    case swiped(String, next: PlaceView?, left: Int)

    public func text(_ r: Renderer) -> String { r.placesText(self) }
    public func json(_ r: Renderer) -> [(String, JSON)] { r.placesJSON(self) }
}

extension Executor {
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
