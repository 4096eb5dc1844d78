import SkwadModel
import SkwadReplica

/// Views of the replica's packs that the engine reads on every round — the live packs, and
/// the directory as seen from a few cells or pairs of cells — kept until a pack is added,
/// deleted, edited or purged (`Replica.directoryStamp`) or one of the live packs may expire
/// (`Replica.liveWindow`). They are what computing them afresh gives, without computing
/// them on every round, every directory message and every op admitted.
/// Other ops only move expiries later, which the views need not follow until `untilMs`,
/// except for a pack that had expired when they were computed: then any change to the packs
/// (`Replica.packsStamp`) counts.
///
/// The directory of a perspective is kept as the set of live packs it selects (a bit per
/// pack), and its items are read from the live packs' geneses and edits, each sorted once: a node pulls
/// from and answers many cells, and keeping whole item lists for only 8 of them missed most
/// of the time. Bounded: at most `directoryPerspectives` cells or pairs, the oldest
/// forgotten first.
struct PackViewCache: Sendable {
    private var stamp: UInt64 = .max
    private var packsStamp: UInt64 = .max
    /// A pack not deleted had expired when the views were computed.
    private var anyExpired = false
    /// The views hold for `fromMs..<untilMs`.
    private var fromMs: UInt64 = .max
    private var untilMs: UInt64 = 0
    private var index: LiveIndex?
    /// For one cell: whether it lies inside the fence of each live pack.
    private var inside: (place: Geohash.Cell?, flags: [Bool])?
    /// The fences of the live packs that are not invite-only, at most `limit` (`publicFences`).
    private var fences: (limit: Int, fences: [Geofence])?
    /// Per perspective, the live packs in its directory (bit i: `index.scopes[i]`), and the
    /// whole directory's fingerprint once asked for (`directoryFingerprint`).
    private var perspectives: [String: Perspective] = [:]
    private var perspectiveOrder: [String] = []

    struct Perspective: Sendable {
        var members: [UInt64]
        /// `Reconciliation.fingerprint` of all its items, 16 bytes kept inline, and whether
        /// they all lie in the whole range [`Bound.zero`, `Bound.infinity`) (`wholeRange`): a
        /// pull that finds the directories equal, as about half do, then builds no item list.
        var fingerprint: (a: UInt64, b: UInt64, wholeRange: Bool)?
    }

    /// Which live packs a perspective holds: those `include` selects (asked once per pack),
    /// or those in both of two perspectives (a pair of cells: the two cells' sets, each
    /// kept under its own key, intersected, so that each pack is asked about each cell once).
    enum Selection {
        case filter((PackScope) -> Bool)
        case both(String, (PackScope) -> Bool, String, (PackScope) -> Bool)
    }

    /// The live packs and their directory entries.
    struct LiveIndex: Sendable {
        /// `replica.liveScopes(nowMs:)`: sorted by id.
        var scopes: [PackScope] = []
        /// The deleted packs with directory entries (`deletedEntries`). The directory's packs
        /// are `scopes`, then these (`directoryScope`): one array of the live packs, not two.
        var deleted: [PackScope] = []
        /// Per directory pack, its genesis (the replica's own op, shared: 8 bytes a pack).
        var geneses: [SignedOp] = []
        /// Indices into the directory's packs, oldest genesis first (by genesis (hlc, id)):
        /// the capacity rule, and the geneses' order among the directory's items.
        var byAge: [Int] = []
        /// The other entries of the directory packs (edits, deletions), sorted by (hlc, id),
        /// with their pack. A directory's items are these merged with the geneses by age.
        var edits: [(item: Reconciliation.Item, pack: Int)] = []

        var directoryCount: Int { scopes.count + deleted.count }
        func directoryScope(_ i: Int) -> PackScope { i < scopes.count ? scopes[i] : deleted[i - scopes.count] }

        init(_ replica: Replica, nowMs: UInt64) {
            let live = replica.directoryEntries(nowMs: nowMs)
            scopes = live.map(\.scope)
            let gone = replica.deletedEntries()
            deleted = gone.map(\.scope)
            // Sorted as small (key, index) tuples: a comparison that reads an entry copies it.
            var ages: [(hlc: HLC, id: OpID, pack: Int)] = []
            ages.reserveCapacity(live.count + gone.count)
            geneses.reserveCapacity(live.count + gone.count)
            for (list, first) in [(live, 0), (gone, live.count)] {
                for j in list.indices {
                    let g = list[j].genesis
                    ages.append((g.hlc, g.id, first + j))
                    geneses.append(g)
                    for e in list[j].edits { edits.append((e, first + j)) }
                }
            }
            ages.sort { ($0.hlc, $0.id) < ($1.hlc, $1.id) }
            byAge = ages.map(\.pack)
            edits.sort { ($0.item.hlc, $0.item.id) < ($1.item.hlc, $1.item.id) }
        }
    }

    private mutating func check(_ replica: Replica, nowMs: UInt64) {
        guard
            replica.directoryStamp != stamp || (anyExpired && replica.packsStamp != packsStamp)
                || nowMs < fromMs || nowMs >= untilMs
        else { return }
        stamp = replica.directoryStamp
        packsStamp = replica.packsStamp
        fromMs = nowMs
        (untilMs, anyExpired) = replica.liveWindow(nowMs: nowMs)
        index = nil
        inside = nil
        fences = nil
        perspectives.removeAll(keepingCapacity: true)
        perspectiveOrder.removeAll(keepingCapacity: true)
    }

    private mutating func liveIndex(_ replica: Replica, nowMs: UInt64) -> LiveIndex {
        check(replica, nowMs: nowMs)
        if let index { return index }
        let built = LiveIndex(replica, nowMs: nowMs)
        index = built
        return built
    }

    /// `replica.liveScopes(nowMs:)`.
    mutating func liveScopes(_ replica: Replica, nowMs: UInt64) -> [PackScope] {
        liveIndex(replica, nowMs: nowMs).scopes
    }

    /// `liveScopes`, each with whether the cell `place` lies inside its fence (false: no
    /// fence, or no cell). Our own cell changes seldom, so the reconciliation and remote
    /// rounds need not ask every fence about it every round.
    mutating func liveScopes(_ replica: Replica, nowMs: UInt64, inside place: Geohash.Cell?) -> (scopes: [PackScope], inside: [Bool]) {
        let scopes = liveScopes(replica, nowMs: nowMs)
        if let inside, inside.place == place { return (scopes, inside.flags) }
        let flags = scopes.map { s in s.fence.map { f in place.map { f.contains(cell: $0) } ?? false } ?? false }
        inside = (place, flags)
        return (scopes, flags)
    }

    /// The fences of the live packs that are not invite-only, in `liveScopes`' order, at most
    /// `limit`: computed again only when the live packs change.
    mutating func publicFences(_ replica: Replica, nowMs: UInt64, limit: Int) -> [Geofence] {
        let scopes = liveScopes(replica, nowMs: nowMs)
        if let fences, fences.limit == limit { return fences.fences }
        let found = Array(scopes.lazy.filter { !$0.isPrivate }.compactMap(\.fence).prefix(limit))
        fences = (limit, found)
        return found
    }

    /// The directory seen from the perspective `key` names (a cell, when we answer a pull;
    /// the two cells of a pair, when we pull), whose packs `include` selects: what
    /// `replica.directoryItems(nowMs:capacity:include:)` gives — the genesis and edits of
    /// the live packs selected, at most `capacity` packs (the oldest geneses first), sorted
    /// by (hlc, id). `include` is asked once per live pack and perspective.
    mutating func directoryItems(
        key: String, _ replica: Replica, nowMs: UInt64, capacity: Int,
        include: @escaping (PackScope) -> Bool
    ) -> [Reconciliation.Item] {
        directoryItems(key: key, replica, nowMs: nowMs, capacity: capacity, selection: .filter(include))
    }

    /// The same, the perspective's packs given by `selection`.
    mutating func directoryItems(
        key: String, _ replica: Replica, nowMs: UInt64, capacity: Int, selection: Selection
    ) -> [Reconciliation.Item] {
        let live = liveIndex(replica, nowMs: nowMs)
        let words = (live.directoryCount + 63) / 64
        let members = self.members(key, live, selection)
        func has(_ set: [UInt64], _ i: Int) -> Bool { set[i >> 6] & (1 << UInt64(i & 63)) != 0 }
        var chosen = members
        if members.reduce(0, { $0 + $1.nonzeroBitCount }) > capacity {
            chosen = [UInt64](repeating: 0, count: words)
            var n = 0
            for i in live.byAge where has(members, i) {
                guard n < capacity else { break }
                chosen[i >> 6] |= 1 << UInt64(i & 63)
                n += 1
            }
        }
        // The chosen geneses (by age: ascending (hlc, id)) merged with their edits.
        var items: [Reconciliation.Item] = []
        var e = 0
        for i in live.byAge where has(chosen, i) {
            let g = (hlc: live.geneses[i].hlc, id: live.geneses[i].id)
            while e < live.edits.count, (live.edits[e].item.hlc, live.edits[e].item.id) < (g.hlc, g.id) {
                if has(chosen, live.edits[e].pack) { items.append(live.edits[e].item) }
                e += 1
            }
            items.append(g)
        }
        for rest in live.edits[e...] where has(chosen, rest.pack) { items.append(rest.item) }
        return items
    }

    /// `Reconciliation.fingerprint` of all of `directoryItems(key:…)` (the same arguments),
    /// and whether those items all lie in the whole range, kept with the perspective until
    /// the views change.
    mutating func directoryFingerprint(
        key: String, _ replica: Replica, nowMs: UInt64, capacity: Int, include: @escaping (PackScope) -> Bool
    ) -> (fingerprint: [UInt8], wholeRange: Bool) {
        directoryFingerprint(key: key, replica, nowMs: nowMs, capacity: capacity, selection: .filter(include))
    }

    /// The same, the perspective's packs given by `selection`.
    mutating func directoryFingerprint(
        key: String, _ replica: Replica, nowMs: UInt64, capacity: Int, selection: Selection
    ) -> (fingerprint: [UInt8], wholeRange: Bool) {
        check(replica, nowMs: nowMs)
        if let f = perspectives[key]?.fingerprint { return (Self.bytes(f.a, f.b), f.wholeRange) }
        let items = directoryItems(key: key, replica, nowMs: nowMs, capacity: capacity, selection: selection)
        let fp = Reconciliation.fingerprint(items[...])
        let whole = Reconciliation.lowerIndex(items, .zero) == 0 && Reconciliation.lowerIndex(items, .infinity) == items.count
        let (a, b) = fp.withUnsafeBytes {
            ($0.loadUnaligned(fromByteOffset: 0, as: UInt64.self), $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        }
        perspectives[key]?.fingerprint = (a, b, whole)
        return (fp, whole)
    }

    /// The live packs in the perspective `key` (bit i: `live.directoryScope(i)`), kept until
    /// the views change; at most `directoryPerspectives` kept, the oldest forgotten first.
    private mutating func members(_ key: String, _ live: LiveIndex, _ selection: Selection) -> [UInt64] {
        if let known = perspectives[key] { return known.members }
        var m: [UInt64]
        switch selection {
        case .filter(let include):
            m = [UInt64](repeating: 0, count: (live.directoryCount + 63) / 64)
            // Each scope read in place (a copy of a scope retains its fence and id).
            for (list, first) in [(live.scopes, 0), (live.deleted, live.scopes.count)] {
                list.withUnsafeBufferPointer { scopes in
                    for j in scopes.indices where include(scopes[j]) { m[(first + j) >> 6] |= 1 << UInt64((first + j) & 63) }
                }
            }
        case .both(let a, let includeA, let b, let includeB):
            m = members(a, live, .filter(includeA))
            let other = members(b, live, .filter(includeB))
            for w in m.indices { m[w] &= other[w] }
        }
        if perspectiveOrder.count >= Self.directoryPerspectives { perspectives[perspectiveOrder.removeFirst()] = nil }
        perspectives[key] = Perspective(members: m)
        perspectiveOrder.append(key)
        return m
    }

    private static func bytes(_ a: UInt64, _ b: UInt64) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 16)
        out.withUnsafeMutableBytes {
            $0.storeBytes(of: a, toByteOffset: 0, as: UInt64.self); $0.storeBytes(of: b, toByteOffset: 8, as: UInt64.self)
        }
        return out
    }
}
