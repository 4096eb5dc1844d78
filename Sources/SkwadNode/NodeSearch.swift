import SkwadModel
import SkwadReplica
import SkwadStore

/// A search result: the post, and the comment that matched when it was a comment.
public struct SearchHit: Sendable, Equatable {
    public let post: PostView
    public let comment: CommentView?
    /// bm25 rank (lower is better).
    public let rank: Double
}

/// How a pack is shown: its label (its name, or `NAME·abcd` when several live packs share
/// the name) and its colour name as its genesis or last edit says.
public struct PackStyle: Sendable, Equatable {
    public let label: String
    public let color: String
}

extension Node {
    /// The middle dot between a shared name and its id prefix (`Quad·3f2a`).
    public static let labelSeparator: Character = "·"

    /// Full-text search (FTS5, bm25) over titles, bodies, tags and comments of every live
    /// pack this node holds, or of one pack. What the feed would not show (deleted,
    /// hidden by a moderator or by score, expired) is never returned.
    public func search(_ text: String, pack ref: String? = nil, limit: Int = 20) throws -> [SearchHit] {
        purgeIfDue()
        let symbolic = Self.hasSymbols(text)
        guard symbolic || text.contains(where: { $0.isLetter || $0.isNumber }) else { throw NodeError("search needs a word to look for") }
        let filter = try ref.map { Set([try resolvePack($0).id]) }
        var matches: [(id: OpID, post: OpID, rank: Double)]
        if symbolic {
            // The full-text index splits words at emoji and symbols: such a query is matched as
            // a substring of the texts this node holds, newest first.
            matches = substringMatches(text, packs: filter, limit: 500)
        } else {
            do { matches = try store.search(text, packs: filter, limit: 500).map { ($0.id, $0.post, $0.rank) } } catch {
                stats.storeErrors += 1
                throw NodeError("\(error)")
            }
        }
        let nowMs = now()
        var out: [SearchHit] = []
        var threads: [OpID: ThreadView?] = [:]
        // One hit per post: its best match (the post itself, or its best-ranked comment).
        var listed: Set<OpID> = []
        for m in matches where out.count < limit && !listed.contains(m.post) {
            // Blocked authors and muted packs stay out of search as out of the feed.
            if let op = replica.op(m.id), isSilenced(op) { continue }
            if m.id != m.post, let post = replica.op(m.post), isSilenced(post) { continue }
            if threads[m.post] == nil { threads[m.post] = .some(replica.thread(m.post, nowMs: nowMs)) }
            guard let t = threads[m.post] ?? nil, t.post.hidden == nil else { continue }
            if m.id == m.post {
                out.append(SearchHit(post: t.post, comment: nil, rank: m.rank))
                listed.insert(m.post)
            } else if let c = t.comments.first(where: { $0.id == m.id }), !c.removed {
                out.append(SearchHit(post: t.post, comment: c, rank: m.rank))
                listed.insert(m.post)
            }
        }
        return out
    }

    /// Has `text` an emoji or a symbol the full-text index does not keep as part of a word?
    static func hasSymbols(_ text: String) -> Bool {
        text.unicodeScalars.contains { u in
            let category = u.properties.generalCategory
            return u.value > 0x7F && (u.properties.isEmoji || category == .otherSymbol || category == .mathSymbol)
        }
    }

    /// Posts and comments of live packs whose text contains `text` (case-insensitive), newest
    /// first: at most `limit`, rank 0.
    func substringMatches(_ text: String, packs filter: Set<PackID>?, limit: Int) -> [(id: OpID, post: OpID, rank: Double)] {
        let needle = text.lowercased()
        let nowMs = now()
        var out: [(id: OpID, post: OpID, rank: Double, hlc: HLC)] = []
        for op in replica.allOps where filter?.contains(op.packID) ?? true {
            guard replica.isLive(op.packID, nowMs: nowMs) else { continue }
            switch op.body.kind {
            case .post(let p):
                let hay = ([p.title, p.body] + p.tags).joined(separator: "\n").lowercased()
                if hay.contains(needle) { out.append((op.id, op.id, 0, op.hlc)) }
            case .comment(let c):
                if c.body.lowercased().contains(needle) { out.append((op.id, c.post, 0, op.hlc)) }
            default: continue
            }
        }
        out.sort { ($0.hlc, $0.id) > ($1.hlc, $1.id) }
        return out.prefix(limit).map { ($0.id, $0.post, $0.rank) }
    }

    /// The feed with filters: `tag` keeps posts carrying the tag (or in a pack carrying it);
    /// `withinMeters` keeps posts whose place is that near you, drawn from every live pack
    /// unless one is named (FireUp's range timeline). A post's place is the centre of its
    /// location claim, or of its pack's fence when that is the smaller; a post with neither
    /// has no place and is left out of `--within`.
    public func feed(pack ref: String?, sort: FeedSort, limit: Int, tag: String?, withinMeters: Double?) throws -> [PostView] {
        guard tag != nil || withinMeters != nil else { return try feed(pack: ref, sort: sort, limit: limit) }
        purgeIfDue()
        var here: GeoPoint?
        if let withinMeters {
            guard withinMeters.isFinite, withinMeters > 0 else { throw NodeError("--within needs a distance in metres above 0") }
            guard let location else { throw NodeError("feed --within measures from you: set your location first (locate LAT,LON)") }
            here = location
        }
        let filter: Set<PackID>?
        if let ref { filter = [try resolvePack(ref).id] } else if withinMeters != nil { filter = nil } else { filter = Set(joined.keys) }
        var posts = replica.feed(packs: filter, sort: sort, limit: Int.max, nowMs: now())
        if let tag {
            let key = tag.lowercased()
            posts = posts.filter { p in
                p.tags.contains { $0.lowercased() == key }
                    || (replica.pack(p.pack)?.create.tags.contains { $0.lowercased() == key } ?? false)
            }
        }
        if let here, let withinMeters {
            posts = posts.filter { p in postDistance(p, from: here).map { $0 <= withinMeters } ?? false }
        }
        let shown = Array(posts.prefix(limit))
        fetchShownPictures(shown.map(\.id))
        return shown
    }

    /// Metres from `here` to a post's place (see `feed(…withinMeters:)`), nil without one.
    func postDistance(_ p: PostView, from here: GeoPoint) -> Double? {
        let fence = replica.pack(p.pack)?.fence
        if let claim = p.location, let cell = try? Geohash.decode(claim), cell.radiusMeters < (fence?.radiusMeters ?? .infinity) {
            return here.distance(to: cell.center)
        }
        return fence.map { here.distance(to: $0.center) }
    }

    /// Label and colour of every live pack: a name shared by several live packs is shown
    /// with the shortest id prefix (at least 4 hex digits) that tells them apart.
    public func packStyles() -> [PackID: PackStyle] {
        let live = replica.packs(nowMs: now())
        var byName: [String: [PackSummary]] = [:]
        for p in live { byName[p.name.lowercased(), default: []].append(p) }
        var out: [PackID: PackStyle] = [:]
        for group in byName.values {
            if group.count == 1 { out[group[0].id] = PackStyle(label: group[0].name, color: group[0].color); continue }
            var n = 4
            while n < 64, Set(group.map { $0.id.hex.prefix(n) }).count < group.count { n += 1 }
            for p in group { out[p.id] = PackStyle(label: "\(p.name)\(Self.labelSeparator)\(p.id.hex.prefix(n))", color: p.color) }
        }
        return out
    }

    /// How the user knows a pack: its label among the live packs, else (expired, deleted) its
    /// name while the replica still holds it; nil once it is gone from here.
    public func packLabel(_ id: PackID) -> String? {
        if let style = packStyles()[id] { return style.label }
        return replica.pack(id).map { replica.summary($0, from: nil).name }
    }

    /// A pack named by its label `NAME·abcd` (the name, then an id prefix), among `live`.
    func resolveLabel(_ ref: String, among live: [PackSummary]) -> PackSummary? {
        guard let dot = ref.lastIndex(of: Self.labelSeparator) else { return nil }
        let name = ref[..<dot].lowercased(), hex = ref[ref.index(after: dot)...].lowercased()
        guard !hex.isEmpty, hex.allSatisfy(\.isHexDigit) else { return nil }
        let found = live.filter { $0.name.lowercased() == name && $0.id.hex.hasPrefix(hex) }
        return found.count == 1 ? found[0] : nil
    }
}
