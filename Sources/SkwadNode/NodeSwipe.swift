import SkwadModel
import SkwadReplica
import SkwadStore

/// Swipe, favourites and compare (issue 27): local state only (the store's `swipe` table,
/// at most one row per place this node holds or held), never replicated.
extension Node {
    /// Places matching `q` not swiped yet, in the order of `q.sort`.
    public func swipeCandidates(_ q: PlaceQuery) throws -> [PlaceView] {
        let marks = try swipeMarks()
        var all = q
        all.limit = Int.max
        return try places(all).filter { marks[$0.id] == nil }
    }

    /// Marks a place favourite (`favourite`) or passed.
    public func swipe(_ place: OpID, favourite: Bool) throws {
        do { try store.swipe(SwipeMark(place: place, favourite: favourite, atMs: now())) } catch {
            stats.storeErrors += 1
            throw NodeError("\(error)")
        }
    }

    /// Takes back the latest swipe; returns it, nil when there was none.
    public func undoSwipe() throws -> SwipeMark? {
        do { return try store.undoSwipe() } catch {
            stats.storeErrors += 1
            throw NodeError("\(error)")
        }
    }

    func swipeMarks() throws -> [OpID: Bool] {
        do { return Dictionary(try store.swipes().map { ($0.place, $0.favourite) }, uniquingKeysWith: { _, b in b }) } catch {
            stats.storeErrors += 1
            throw NodeError("\(error)")
        }
    }

    /// Favourite places still shown (not deleted, hidden or gone), filtered and sorted by `q`.
    public func favourites(_ q: PlaceQuery) throws -> [PlaceView] {
        let marks = try swipeMarks()
        var all = q
        all.limit = Int.max
        return Array(try places(all).filter { marks[$0.id] == true }.prefix(max(0, q.limit)))
    }

    /// 2 to 5 places by id prefix, in the order given.
    public func compare(_ refs: [String]) throws -> [PlaceView] {
        guard (2...5).contains(refs.count) else { throw NodeError("compare takes 2 to 5 places") }
        let list = try refs.map { try resolvePlace($0) }
        guard Set(list.map(\.id)).count == list.count else { throw NodeError("compare needs different places") }
        return list
    }
}
