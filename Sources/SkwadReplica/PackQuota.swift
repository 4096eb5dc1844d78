import SkwadModel

/// Where a genesis came from, for the quota on packs learned from others (PROTOCOL §4, rule
/// 5): the network group of the peer that sent it (IPv4 /24, IPv6 /48; the engine names it),
/// and the node's own cell, inside whose fences packs are kept first.
public struct Arrival: Sendable {
    public var source: String
    public var here: Geohash.Cell?
    public init(source: String, here: Geohash.Cell? = nil) { self.source = source; self.here = here }
}

/// The table of packs learned from others shares its capacity across sources, as Bitcoin
/// Core's addrman shares buckets across networks: when it is full, a genesis from a source
/// may displace a pack only from a source that holds more of the displaceable packs than
/// the newcomer's own would with it; the newest such pack leaves (its ops too, no
/// tombstone: it may come back once there is room). Kept first, never displaced: packs the
/// node joined (not in the table), packs with a participant other than the Alpha (members
/// heard from), and packs whose fence holds the node's cell. A displaced pack is refused
/// while the table stays full (`recentlyDisplaced`, 4,096 ids), so that no two sources can
/// trade places for ever through directory rounds. One party flooding from 8 network groups
/// thus holds the table at most until an honest source brings a pack, which displaces one
/// of the flood's (`PackQuotaTests`). Each genesis has its own pseudonym (its Alpha key
/// derives from its nonce), so the network group, not the pseudonym, is what a quota binds.
extension Replica {
    static let recentlyDisplacedCapacity = 4_096
    /// Source name of packs restored from the store (their sender is not remembered).
    static let restoredSource = "store"

    /// The pack a genesis arriving from `arrival` would displace, or nil when it must be
    /// refused (`tooManyPacks`). Only asked when the table is full.
    func displacementVictim(for genesis: SignedOp, arrival: Arrival?) -> PackID? {
        guard let arrival, !recentlyDisplaced.contains(genesis.id) else { return nil }
        var open: [String: [PackID]] = [:]
        var i = packs.startIndex
        while i != packs.endIndex {
            defer { i = packs.index(after: i) }
            guard let source = packs.values[i].remoteSource, isDisplaceable(packs.keys[i], here: arrival.here) else { continue }
            open[source, default: []].append(packs.keys[i])
        }
        let mine = (open[arrival.source]?.count ?? 0) + 1
        // The source holding the most displaceable packs (ties: the smallest name), if it
        // holds more than the newcomer's source would with the newcomer.
        guard
            let most = open.filter({ $0.key != arrival.source }).max(by: { a, b in
                a.value.count != b.value.count ? a.value.count < b.value.count : a.key > b.key
            }), most.value.count > mine
        else { return nil }
        return most.value.max { a, b in (packs[a]!.genesis.hlc, a) < (packs[b]!.genesis.hlc, b) }
    }

    func isDisplaceable(_ id: PackID, here: Geohash.Cell?) -> Bool {
        guard let p = packs[id] else { return false }
        if !p.participants.isEmpty { return false }
        if let here, let fence = p.fence, fence.contains(cell: here) { return false }
        return true
    }

    /// Takes a displaced pack out: its ops leave the set (the node deletes them from its
    /// store through `takeEvicted`), no tombstone is kept.
    mutating func displace(_ id: PackID) {
        guard let p = packs[id] else { return }
        for entry in p.order where ops.removeValue(forKey: entry.id) != nil {
            evicted.append((id, entry.id))
            letterArrival.removeValue(forKey: entry.id)
        }
        removePackState(id)
        directoryChanged()
        recentlyDisplaced.insert(id)
        recentlyDisplacedOrder.append(id)
        if recentlyDisplacedOrder.count > Self.recentlyDisplacedCapacity { recentlyDisplaced.remove(recentlyDisplacedOrder.removeFirst()) }
        displacedCount &+= 1
    }

    /// Takes a pack's state out of `packs`, keeping `remotePackCount`.
    @discardableResult
    mutating func removePackState(_ id: PackID) -> PackState? {
        guard let p = packs.removeValue(forKey: id) else { return nil }
        if p.remoteSource != nil { remotePackCount -= 1 }
        return p
    }

    /// The node joined this pack: it no longer counts against the table of packs from
    /// others, and is never displaced.
    public mutating func markOwn(_ id: PackID) {
        guard packs[id]?.remoteSource != nil else { return }
        packs[id]!.remoteSource = nil
        remotePackCount -= 1
    }

    /// Packs held per source in the table of packs from others (for `stats`).
    public var remotePacksBySource: [String: Int] {
        var out: [String: Int] = [:]
        for p in packs.values { if let s = p.remoteSource { out[s, default: 0] += 1 } }
        return out
    }
}
