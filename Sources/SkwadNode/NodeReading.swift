import SkwadCrypto
import SkwadModel
import SkwadReplica

extension Node {
    /// Posts of the joined packs (or of one pack), newest or top first.
    public func feed(pack ref: String?, sort: FeedSort, limit: Int) throws -> [PostView] {
        purgeIfDue()
        let filter: Set<PackID>
        if let ref { filter = [try resolvePack(ref).id] } else { filter = Set(joined.keys) }
        // Local blocks and mutes (NodeModeration.swift) apply before the limit.
        let shown = Array(
            filterFeed(replica.feed(packs: filter, sort: sort, limit: .max, nowMs: now()), namedPack: ref != nil).prefix(max(0, limit)))
        fetchShownPictures(shown.map(\.id))
        return shown
    }

    /// A post (or the post of a comment) with its comment tree.
    public func show(_ ref: String) throws -> ThreadView {
        purgeIfDue()
        let op = try resolveOp(ref)
        let postID: OpID
        switch op.body.kind {
        case .post: postID = op.id
        case .comment(let c): postID = c.post
        default: throw NodeError("'\(NodeError.quote(ref))' is not a post")
        }
        guard let t = replica.thread(postID, nowMs: now()) else {
            throw NodeError("post \(postID.short()) was deleted or its pack is gone")
        }
        fetchShownPictures([postID])
        return filterThread(t)
    }

    public struct Den: Sendable {
        public let view: DenView
        public let joined: [PackSummary]
        /// The places you added and your reviews (issue 27).
        public var places: [PlaceView] = []
        public var reviews: [ReviewView] = []
    }

    /// The user's home: over all of this node's pseudonyms (and personas that acted), its packs, posts, comments and
    /// upvotes received, and the packs it joined.
    public func den() -> Den {
        purgeIfDue()
        let nowMs = now()
        var authors: Set<PublicKey> = []
        for id in replica.packIDs() {
            if let k = key(for: id) { authors.insert(k.publicKey) }
            // Your named posts and reviews are yours too (shown here only, to you).
            if personaStamp(id) != nil, let k = personaKey(id) { authors.insert(k.publicKey) }
        }
        let joinedPacks = replica.packs(nowMs: nowMs, from: location).filter { joined[$0.id] != nil }
        var den = Den(view: replica.den(authors: authors, nowMs: nowMs), joined: joinedPacks)
        (den.places, den.reviews) = replica.placeDen(authors: authors, nowMs: nowMs)
        return den
    }

    /// Is `author` this node's own pseudonym (or admin key) in `pack`?
    public func isMine(_ author: PublicKey, in pack: PackID) -> Bool {
        key(for: pack)?.publicKey == author || (personaStamp(pack) != nil && personaKey(pack)?.publicKey == author)
    }

    // MARK: ids

    /// Finds a post or comment by id prefix (at least 2 hex digits).
    public func resolveOp(_ ref: String) throws -> SignedOp {
        let hex = ref.lowercased()
        guard hex.allSatisfy(\.isHexDigit), !hex.isEmpty else {
            throw NodeError(
                "'\(NodeError.quote(ref))' is not an id: ids are the hex digits feed and show print first on each line (e.g. f5473a)")
        }
        guard hex.count >= 2 else {
            throw NodeError(
                "'\(ref)' is too short for an id: type at least 2 of the hex digits feed and show print first on each line (e.g. f5473a)")
        }
        var found: SignedOp?
        for op in replica.allOps where op.id.hex.hasPrefix(hex) {
            let named: Bool
            switch op.body.kind {
            case .post, .comment, .review, .reviewReply: named = true
            case .place(let p): named = p.target == nil  // places too (delete, hide, report), not their records
            default: named = false
            }
            guard named else { continue }
            if found != nil { throw NodeError("'\(NodeError.quote(ref))' matches several posts or comments: type more of the id") }
            found = op
        }
        guard let found else { throw NodeError("no post or comment with id '\(NodeError.quote(ref))'") }
        return found
    }

    /// How many hex digits make every id shown unique (at least 6).
    public func displayIDLength() -> Int {
        if upkeep.idLength.count == replica.count { return upkeep.idLength.length }
        let ids = replica.allOps.map(\.id).sorted()
        var longest = 0
        for i in ids.indices.dropFirst() {
            let a = ids[i - 1].bytes, b = ids[i].bytes
            var nibbles = 0
            for j in 0..<32 {
                if a[j] == b[j] { nibbles += 2; continue }
                if a[j] >> 4 == b[j] >> 4 { nibbles += 1 }
                break
            }
            longest = max(longest, nibbles)
        }
        let length = max(6, longest + 1)
        upkeep.idLength = (replica.count, length)
        return length
    }
}
