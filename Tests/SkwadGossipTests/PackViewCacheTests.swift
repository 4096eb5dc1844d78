import Testing
import SkwadModel
import SkwadReplica
@testable import SkwadGossip
import SkwadTestKit

/// The engine's cache of pack views (PackViews.swift) answers exactly what computing the
/// views afresh answers, directory fingerprints included: through new packs, edits, deletes,
/// expiry, time going backwards, a different replica, and more perspectives than it keeps.
@Suite struct PackViewCacheTests {
    static let here = try! GeoPoint(lat: 40.4433, lon: -79.9436)
    static let cells = [
        Geohash.encode(here, precision: 7),
        Geohash.encode(try! GeoPoint(lat: 40.4433, lon: -79.8730), precision: 7),
        Geohash.encode(try! GeoPoint(lat: 40.4433, lon: -79.4700), precision: 7)
    ]

    static func fresh(_ r: Replica, cell: String?, nowMs: UInt64) -> [Reconciliation.Item] {
        let perspective = NodeInfo(cell: cell)
        return r.directoryItems(nowMs: nowMs, capacity: 64) { GossipEngine.inDirectory($0, of: perspective) }
    }

    static func same(_ a: [Reconciliation.Item], _ b: [Reconciliation.Item]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { $0.hlc == $1.hlc && $0.id == $1.id }
    }

    /// Reads every view through the cache and afresh; true when all agree.
    static func agree(_ cache: inout PackViewCache, _ r: Replica, nowMs: UInt64, cells: [String?]) -> Bool {
        let live = cache.liveScopes(r, nowMs: nowMs)
        guard live.map(\.id) == r.liveScopes(nowMs: nowMs).map(\.id) else { return false }
        for c in cells {
            let perspective = NodeInfo(cell: c)
            let cached = cache.directoryItems(key: c ?? "", r, nowMs: nowMs, capacity: 64) { GossipEngine.inDirectory($0, of: perspective) }
            let afresh = fresh(r, cell: c, nowMs: nowMs)
            guard same(cached, afresh) else { return false }
            // The whole directory's fingerprint, kept with the perspective (asked twice: the
            // second answer is the kept one).
            for _ in 0..<2 {
                let kept = cache.directoryFingerprint(key: c ?? "", r, nowMs: nowMs, capacity: 64) {
                    GossipEngine.inDirectory($0, of: perspective)
                }
                let whole = Reconciliation.lowerIndex(afresh, .infinity) == afresh.count
                guard kept.fingerprint == Reconciliation.fingerprint(afresh[...]), kept.wholeRange == whole else { return false }
            }
            // The capacity rule (the oldest geneses first), under another key.
            for capacity in [0, 1, 2] {
                let few = cache.directoryItems(key: "\(capacity)#" + (c ?? ""), r, nowMs: nowMs, capacity: capacity) {
                    GossipEngine.inDirectory($0, of: perspective)
                }
                guard same(few, r.directoryItems(nowMs: nowMs, capacity: capacity) { GossipEngine.inDirectory($0, of: perspective) }) else {
                    return false
                }
            }
            // The pairs of this cell with the first four: the packs in both directories, as
            // `sendDirectory` lists them (the two cells' sets intersected), against afresh.
            for d in cells.prefix(4) {
                let p = GossipEngine.perspective(c, alsoIn: d)
                let (a, b) = (NodeInfo(cell: c), NodeInfo(cell: d))
                let both = cache.directoryItems(key: p.key, r, nowMs: nowMs, capacity: 64, selection: p.selection)
                let afreshBoth = r.directoryItems(nowMs: nowMs, capacity: 64) {
                    GossipEngine.inDirectory($0, of: a) && GossipEngine.inDirectory($0, of: b)
                }
                guard same(both, afreshBoth) else { return false }
                let kept = cache.directoryFingerprint(key: p.key, r, nowMs: nowMs, capacity: 64, selection: p.selection)
                guard kept.fingerprint == Reconciliation.fingerprint(afreshBoth[...]) else { return false }
            }
            // The fences of the live packs that are not invite-only.
            let fences = cache.publicFences(r, nowMs: nowMs, limit: 2)
            guard fences == Array(r.liveScopes(nowMs: nowMs).filter { !$0.isPrivate }.compactMap(\.fence).prefix(2)) else { return false }
            // Which live fences the cell lies inside.
            let place = NodeInfo.decode(c)
            let (scopes, inside) = cache.liveScopes(r, nowMs: nowMs, inside: place)
            let want = scopes.map { s in s.fence.map { f in place.map { f.contains(cell: $0) } ?? false } ?? false }
            guard scopes.map(\.id) == live.map(\.id), inside == want else { return false }
        }
        return true
    }

    @Test func cachedViewsEqualFreshOnesThroughChangesAndExpiry() {
        var f = OpFactory(seed: 5, floors: false)
        let alpha = f.user(), beta = f.user()
        var r = Replica(config: .noFloors)
        var cache = PackViewCache()
        let t0 = f.nowMs
        let perspectives: [String?] = Self.cells + [nil]
        #expect(Self.agree(&cache, r, nowMs: t0, cells: perspectives))
        #expect(r.packsStamp == 0)

        // Packs appear one by one; each changes the views, and the cache follows.
        let open = f.createPack(by: alpha, name: "open")
        let fenced = f.createPack(by: alpha, name: "quad", fence: Geofence(center: Self.here, radiusMeters: 3000))
        let locked = f.createPack(by: alpha, name: "lab", fence: Geofence(center: Self.here, radiusMeters: 500), locked: true)
        for g in [open, fenced, locked] {
            let before = r.packsStamp
            #expect(r.admit(g, nowMs: f.nowMs).isAdmitted)
            #expect(r.packsStamp != before)
            #expect(Self.agree(&cache, r, nowMs: f.nowMs, cells: perspectives))
        }
        #expect(cache.liveScopes(r, nowMs: f.nowMs).count == 3)

        // An edit and a post by another pseudonym (which moves the pack's expiry later).
        #expect(r.admit(f.op(.editPack(EditPack(name: "open-renamed")), by: alpha, in: open), nowMs: f.nowMs).isAdmitted)
        #expect(Self.agree(&cache, r, nowMs: f.nowMs, cells: perspectives))
        #expect(r.admit(f.post(by: beta, in: fenced), nowMs: f.nowMs).isAdmitted)
        #expect(Self.agree(&cache, r, nowMs: f.nowMs, cells: perspectives))

        // Time alone: just before and after each pack's expiry, then back in time.
        let expiries = [open, fenced, locked].compactMap { r.pack($0.id)?.expiresMs }.sorted()
        #expect(expiries.count == 3 && Set(expiries).count >= 2)
        for e in expiries { for t in [e - 1, e, e + 1] { #expect(Self.agree(&cache, r, nowMs: t, cells: perspectives)) } }
        #expect(cache.liveScopes(r, nowMs: expiries.last! + 1).isEmpty)
        #expect(Self.agree(&cache, r, nowMs: t0 + 10, cells: perspectives))
        #expect(cache.liveScopes(r, nowMs: t0 + 10).count == 3)

        // A delete.
        #expect(r.admit(f.op(.delete(Delete(target: locked.id)), by: alpha, in: locked), nowMs: f.nowMs).isAdmitted)
        #expect(Self.agree(&cache, r, nowMs: f.nowMs, cells: perspectives))

        // Another replica, even one with the same history, never shares a stamp.
        var other = Replica(config: .noFloors)
        _ = other.admit(open, nowMs: f.nowMs)
        #expect(other.packsStamp != r.packsStamp)
        #expect(Self.agree(&cache, other, nowMs: f.nowMs, cells: perspectives))
        #expect(Self.agree(&cache, r, nowMs: f.nowMs, cells: perspectives))

        // More perspectives than the cache keeps.
        let many = (0..<(PackViewCache.directoryPerspectives * 2)).map { i in
            Geohash.encode(try! GeoPoint(lat: 40.40 + Double(i) * 0.01, lon: -79.9436), precision: 7) as String?
        }
        #expect(Self.agree(&cache, r, nowMs: f.nowMs, cells: many + many.reversed()))
    }

    /// Views computed when a pack had expired, then an op admitted at an earlier time (the
    /// clock went back) by a new participant, which moves the expiry past the views' time:
    /// the cache follows, though no pack was added, deleted or edited.
    @Test func aPackRevivedByALaterExpiryAfterTheClockWentBack() {
        var f = OpFactory(seed: 6, floors: false)
        let alpha = f.user(), beta = f.user()
        var r = Replica(config: .noFloors)
        var cache = PackViewCache()
        let g = f.createPack(by: alpha, name: "short")
        #expect(r.admit(g, nowMs: f.nowMs).isAdmitted)
        let expiry = r.pack(g.id)!.expiresMs!
        #expect(Self.agree(&cache, r, nowMs: expiry + 1, cells: Self.cells))
        #expect(cache.liveScopes(r, nowMs: expiry + 1).isEmpty)
        let stamp = r.directoryStamp
        #expect(r.admit(f.post(by: beta, in: g), nowMs: expiry - 10).isAdmitted)
        #expect(r.directoryStamp == stamp && r.pack(g.id)!.expiresMs! > expiry + 1)
        #expect(cache.liveScopes(r, nowMs: expiry + 1).map(\.id) == [g.id])
        #expect(Self.agree(&cache, r, nowMs: expiry + 1, cells: Self.cells))
    }
}
