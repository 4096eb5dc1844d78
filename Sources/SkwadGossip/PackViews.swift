import SkwadModel
import SkwadReplica

/// Views of the replica's packs that the engine reads on every round — the live packs, and
/// the directory as seen from a few cells or pairs of cells — kept until a pack is added,
/// deleted, edited or purged (`Replica.directoryStamp`) or one of the live packs may expire
/// (`Replica.liveUntilMs`). They are what computing them afresh gives: computing them on
/// every round and every directory message was about a tenth of the city simulation's time
/// (perf), and so was computing them again after every op admitted (2,000-node city).
/// Other ops only move expiries later, which the views need not follow until `untilMs`,
/// except for a pack that had expired when they were computed: then any change to the packs
/// (`Replica.packsStamp`) counts. Bounded: the directory of at most `directoryPerspectives`
/// cells or pairs, the oldest forgotten first.
struct PackViewCache: Sendable {
    static let directoryPerspectives = 8

    private var stamp: UInt64 = .max
    private var packsStamp: UInt64 = .max
    /// A pack not deleted had expired when the views were computed.
    private var anyExpired = false
    /// The views hold for `fromMs..<untilMs`.
    private var fromMs: UInt64 = .max
    private var untilMs: UInt64 = 0
    private var live: [PackScope]?
    /// For one cell: whether it lies inside the fence of each of `live`.
    private var inside: (place: Geohash.Cell?, flags: [Bool])?
    private var directory: [(key: String, items: [Reconciliation.Item])] = []

    private mutating func check(_ replica: Replica, nowMs: UInt64) {
        guard replica.directoryStamp != stamp || (anyExpired && replica.packsStamp != packsStamp)
                || nowMs < fromMs || nowMs >= untilMs else { return }
        stamp = replica.directoryStamp
        packsStamp = replica.packsStamp
        fromMs = nowMs
        (untilMs, anyExpired) = replica.liveWindow(nowMs: nowMs)
        live = nil
        inside = nil
        directory.removeAll(keepingCapacity: true)
    }

    /// `replica.liveScopes(nowMs:)`.
    mutating func liveScopes(_ replica: Replica, nowMs: UInt64) -> [PackScope] {
        check(replica, nowMs: nowMs)
        if let live { return live }
        let scopes = replica.liveScopes(nowMs: nowMs)
        live = scopes
        return scopes
    }

    /// `liveScopes`, each with whether the cell `place` lies inside its fence (false: no
    /// fence, or no cell). Our own cell changes seldom: the reconciliation and remote rounds
    /// asked every fence about it every round (≈ 1 % of the city simulation's time).
    mutating func liveScopes(_ replica: Replica, nowMs: UInt64, inside place: Geohash.Cell?) -> (scopes: [PackScope], inside: [Bool]) {
        let scopes = liveScopes(replica, nowMs: nowMs)
        if let inside, inside.place == place { return (scopes, inside.flags) }
        let flags = scopes.map { s in s.fence.map { f in place.map { f.contains(cell: $0) } ?? false } ?? false }
        inside = (place, flags)
        return (scopes, flags)
    }

    /// The directory seen from the perspective `key` names (a cell, when we answer a pull;
    /// the two cells of a pair, when we pull), as `compute` gives it.
    mutating func directoryItems(key: String, _ replica: Replica, nowMs: UInt64,
                                 compute: () -> [Reconciliation.Item]) -> [Reconciliation.Item] {
        check(replica, nowMs: nowMs)
        if let hit = directory.first(where: { $0.key == key }) { return hit.items }
        let items = compute()
        if directory.count >= Self.directoryPerspectives { directory.removeFirst() }
        directory.append((key, items))
        return items
    }
}
