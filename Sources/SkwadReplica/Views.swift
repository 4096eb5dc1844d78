import SkwadCrypto
import SkwadModel

public enum PackSort: String, Sendable, CaseIterable { case distance, popular, new }
public enum FeedSort: String, Sendable, CaseIterable { case new, top }

/// The role of an author in a pack, shown next to its tag so nobody can pass for the
/// Alpha or an admin with a look-alike pseudonym.
public enum AuthorRole: String, Sendable, Equatable { case alpha, admin }

/// Why a post or comment is not shown in feeds.
public enum HiddenReason: String, Sendable, Equatable { case moderated, lowScore, banned }

public struct PackSummary: Sendable, Equatable {
    public let id: PackID
    public let name: String
    public let tags: [String]
    public let color: String
    public let fence: Geofence?
    public let locked: Bool
    public let isAdmin: Bool
    public let alpha: PublicKey
    public let createdMs: UInt64
    /// nil: permanent (admin pack).
    public let expiresMs: UInt64?
    /// Distinct pseudonyms other than the Alpha that took part.
    public let popularity: Int
    public let postCount: Int
    /// From the given location to the fence centre (nil without a fence or a location).
    public let distanceMeters: Double?
    public let bearingDegrees: Double?
}

public struct PostView: Sendable, Equatable {
    public let id: OpID
    public let pack: PackID
    public let packName: String
    public let author: PublicKey
    public let role: AuthorRole?
    public let title: String
    public let body: String
    public let tags: [String]
    public let hlc: HLC
    public let location: String?
    public let score: Int
    public let upvotes: Int
    public let downvotes: Int
    public let commentCount: Int
    public let hidden: HiddenReason?
    /// Its author edited its title or body (the text shown is the last edit).
    public var edited: Bool = false
    /// The display name its author published in this pack (`Profile`), if any.
    public var displayName: String? = nil
    /// The about line of that profile (empty when none was given); nil without a profile.
    public var displayAbout: String? = nil
    /// An ask for captions: its comments are captions (PROTOCOL §5, "Captions").
    public var isAsk: Bool = false
    /// The caption its author picked, if that caption is shown.
    public var picked: OpID? = nil
    /// The place its author gave it (`post --here`): its location claim in a pack that is not
    /// locked (a locked pack's claim only proves "inside", at whatever precision does).
    public var place: String? = nil
    /// The picture it carries (PROTOCOL §5 "Pictures"), by content address; `open` shows it.
    public var picture: PictureRef? = nil
}

public struct CommentView: Sendable, Equatable {
    public let id: OpID
    public let post: OpID
    public let parent: OpID?
    public let author: PublicKey
    public let role: AuthorRole?
    /// Empty when `removed`.
    public let body: String
    public let hlc: HLC
    public let score: Int
    public let upvotes: Int
    public let downvotes: Int
    public let depth: Int
    /// Deleted or hidden, kept only as a placeholder because visible replies hang from it.
    public let removed: Bool
    /// Its author edited it (the text shown is the last edit).
    public var edited: Bool = false
    /// The caption the ask's author picked.
    public var picked: Bool = false
}

public struct ThreadView: Sendable, Equatable {
    public let post: PostView
    public let comments: [CommentView]
}

/// The Den: a local view over the user's own pseudonyms (their keys are local knowledge).
public struct DenView: Sendable, Equatable {
    public let packs: [PackSummary]
    public let posts: [PostView]
    public let comments: [CommentView]
    /// +1 votes received on the user's live posts and comments.
    public let totalUpvotes: Int
}

extension Replica {
    // MARK: scores and visibility

    /// Score of a post or comment: votes of its own pack only (same-pack rule), and never
    /// its author's own vote (self-votes do not count).
    public func tally(_ target: OpID) -> (score: Int, up: Int, down: Int) {
        guard let op = ops[target], let pack = packs[op.packID] else { return (0, 0, 0) }
        return tally(op, pack: pack)
    }

    func tally(_ op: SignedOp, pack: PackState) -> (score: Int, up: Int, down: Int) {
        guard let vs = pack.votes[op.id] else { return (0, 0, 0) }
        var up = 0, down = 0
        for (voter, v) in vs where voter != op.author && !isBanned(voter, in: pack) {
            if v.value > 0 { up += 1 } else if v.value < 0 { down += 1 }
        }
        return (up - down, up, down)
    }

    public func score(_ target: OpID) -> Int { tally(target).score }

    /// Deleted by its author, by a `Delete` of its own pack: gone for good (2P-set semantics).
    public func isDeleted(_ id: OpID) -> Bool {
        guard let op = ops[id], let who = packs[op.packID]?.deleteRequests[id] else { return false }
        return who.contains(op.author)
    }

    func hiddenReason(_ id: OpID, score: Int, pack: PackState) -> HiddenReason? {
        if pack.moderation[id]?.value == true { return .moderated }
        if let author = ops[id]?.author, isBanned(author, in: pack) { return .banned }
        let threshold = Int(pack.genesisCreate.hideScore == 0 ? 5 : pack.genesisCreate.hideScore)
        if score <= -threshold { return .lowScore }
        return nil
    }

    /// Alpha or admin of `pack`, or nil for anyone else.
    public func role(of key: PublicKey, in pack: PackState) -> AuthorRole? {
        if key == pack.alpha { return .alpha }
        return config.adminKeys.contains(key) ? .admin : nil
    }

    // MARK: packs

    public func summary(_ p: PackState, from here: GeoPoint?) -> PackSummary {
        var dist: Double?, bearing: Double?
        if let here, let f = p.fence { dist = here.distance(to: f.center); bearing = here.bearing(to: f.center) }
        let c = p.create
        return PackSummary(
            id: p.id, name: c.name, tags: c.tags, color: c.color, fence: p.fence, locked: p.locked,
            isAdmin: p.isAdmin, alpha: p.alpha, createdMs: p.createdMs, expiresMs: p.expiresMs,
            popularity: p.popularity, postCount: p.postCount, distanceMeters: dist, bearingDegrees: bearing)
    }

    /// Live packs, filtered by tag, sorted (ties broken by id so every node agrees).
    public func packs(nowMs: UInt64, from here: GeoPoint? = nil, sort: PackSort = .new, tag: String? = nil) -> [PackSummary] {
        let tagKey = tag?.lowercased()
        let list = packs.values.filter { p in
            !p.deleted && !p.isExpired(nowMs: nowMs) && canRead(p)
                && (tagKey == nil || p.create.tags.contains { $0.lowercased() == tagKey })
        }.map { summary($0, from: here) }
        switch sort {
        case .new:
            return list.sorted { $0.createdMs != $1.createdMs ? $0.createdMs > $1.createdMs : $0.id < $1.id }
        case .popular:
            return list.sorted {
                $0.popularity != $1.popularity
                    ? $0.popularity > $1.popularity
                    : ($0.postCount != $1.postCount ? $0.postCount > $1.postCount : $0.id < $1.id)
            }
        case .distance:
            return list.sorted {
                switch ($0.distanceMeters, $1.distanceMeters) {
                case let (a?, b?): return a != b ? a < b : $0.id < $1.id
                case (.some, nil): return true
                case (nil, .some): return false
                case (nil, nil): return $0.id < $1.id
                }
            }
        }
    }

    // MARK: posts and feed

    func postView(_ op: SignedOp, _ p: Post, pack: PackState) -> PostView {
        let t = tally(op, pack: pack)
        let e = pack.edits_[op.id]?[op.author]
        return PostView(
            id: op.id, pack: pack.id, packName: pack.create.name, author: op.author,
            role: role(of: op.author, in: pack), title: e?.title?.value ?? p.title,
            body: e?.body?.value ?? p.body, tags: p.tags, hlc: op.hlc, location: op.body.location, score: t.score,
            upvotes: t.up, downvotes: t.down, commentCount: visibleCommentCount(op.id, pack: pack),
            hidden: hiddenReason(op.id, score: t.score, pack: pack), edited: e != nil,
            displayName: pack.profiles[op.author]?.value.name, displayAbout: pack.profiles[op.author]?.value.about,
            isAsk: p.ask, picked: p.ask ? pick(of: op, pack: pack) : nil,
            place: pack.locked ? nil : op.body.location, picture: p.picture)
    }

    /// The caption the author of `ask` picked (PROTOCOL §5, "Captions"): its own last `Pick`
    /// of this ask, when that names a top-level comment on the ask in the same pack that is
    /// neither deleted nor hidden. Picks by anyone else count for nothing.
    func pick(of ask: SignedOp, pack: PackState) -> OpID? {
        guard let chosen = pack.picks[ask.id]?[ask.author]?.value, let c = ops[chosen], c.packID == ask.packID,
            case .comment(let cm) = c.body.kind, cm.post == ask.id, cm.parent == nil, !isDeleted(chosen),
            hiddenReason(chosen, score: tally(c, pack: pack).score, pack: pack) == nil
        else { return nil }
        return chosen
    }

    /// A comment's text after its author's edits (PROTOCOL.md §5): the last non-empty body
    /// edit by the comment's author in its own pack; a title edit means nothing for a comment.
    func commentText(_ op: SignedOp, _ c: Comment, pack: PackState) -> (text: String, edited: Bool) {
        guard let b = pack.edits_[op.id]?[op.author]?.body?.value, b.contains(where: { !$0.isWhitespace }) else {
            return (c.body, false)
        }
        return (b, true)
    }

    func visibleCommentCount(_ post: OpID, pack: PackState) -> Int {
        (pack.commentsByPost[post] ?? []).reduce(0) { n, id in
            guard let op = ops[id], !isDeleted(id), hiddenReason(id, score: score(id), pack: pack) == nil,
                parentPresent(op, post: post)
            else { return n }
            return n + 1
        }
    }

    /// The comment's post and parent are present, in the comment's own pack.
    func parentPresent(_ op: SignedOp, post: OpID) -> Bool {
        guard case .comment(let c) = op.body.kind, c.post == post,
            let pop = ops[post], pop.packID == op.packID
        else { return false }
        guard let parent = c.parent else { return true }
        guard let par = ops[parent], par.packID == op.packID, case .comment(let pc) = par.body.kind else { return false }
        return pc.post == post
    }

    /// Visible posts of live packs (all packs when `packs` is nil), newest or top first.
    public func feed(packs filter: Set<PackID>? = nil, sort: FeedSort = .new, limit: Int = 50, nowMs: UInt64) -> [PostView] {
        var out: [PostView] = []
        for (pid, pack) in packs where filter?.contains(pid) ?? true {
            guard !pack.deleted, !pack.isExpired(nowMs: nowMs) else { continue }
            for id in pack.posts {
                guard let op = ops[id], case .post(let p) = op.body.kind, !isDeleted(id) else { continue }
                let v = postView(op, p, pack: pack)
                if v.hidden == nil { out.append(v) }
            }
        }
        switch sort {
        case .new: out.sort { $0.hlc != $1.hlc ? $0.hlc > $1.hlc : $0.id < $1.id }
        case .top: out.sort { $0.score != $1.score ? $0.score > $1.score : ($0.hlc != $1.hlc ? $0.hlc > $1.hlc : $0.id < $1.id) }
        }
        return Array(out.prefix(max(0, limit)))
    }

    /// A post with its comment tree (depth-first, replies oldest first). nil when the post
    /// is unknown, deleted, or its pack is not live. Hidden posts come with `hidden` set.
    public func thread(_ postID: OpID, nowMs: UInt64) -> ThreadView? {
        guard let op = ops[postID], case .post(let p) = op.body.kind, let pack = packs[op.packID],
            isLive(pack.id, nowMs: nowMs), !isDeleted(postID)
        else { return nil }
        var children: [OpID?: [SignedOp]] = [:]
        for id in pack.commentsByPost[postID] ?? [] {
            guard let c = ops[id], case .comment(let cm) = c.body.kind, parentPresent(c, post: postID) else { continue }
            children[cm.parent, default: []].append(c)
        }
        for k in children.keys { children[k]!.sort { $0.hlc != $1.hlc ? $0.hlc < $1.hlc : $0.id < $1.id } }
        // An ask's captions (its top-level comments): the pick first, then by score, then oldest.
        let picked = p.ask ? pick(of: op, pack: pack) : nil
        if p.ask, let top = children[nil] {
            let scored = top.map { ($0, $0.id == picked, tally($0, pack: pack).score) }
            children[nil] = scored.sorted { a, b in
                if a.1 != b.1 { return a.1 }
                if a.2 != b.2 { return a.2 > b.2 }
                return a.0.hlc != b.0.hlc ? a.0.hlc < b.0.hlc : a.0.id < b.0.id
            }.map(\.0)
        }
        func walk(_ parent: OpID?, depth: Int) -> [CommentView] {
            var out: [CommentView] = []
            for c in children[parent] ?? [] {
                guard case .comment(let cm) = c.body.kind else { continue }
                let sub = walk(c.id, depth: depth + 1)
                let t = tally(c, pack: pack)
                let removed = isDeleted(c.id) || hiddenReason(c.id, score: t.score, pack: pack) != nil
                if removed && sub.isEmpty { continue }
                let text = commentText(c, cm, pack: pack)
                out.append(
                    CommentView(
                        id: c.id, post: postID, parent: cm.parent, author: c.author, role: role(of: c.author, in: pack),
                        body: removed ? "" : text.text, hlc: c.hlc, score: t.score, upvotes: t.up,
                        downvotes: t.down, depth: depth, removed: removed, edited: !removed && text.edited,
                        picked: c.id == picked))
                out += sub
            }
            return out
        }
        return ThreadView(post: postView(op, p, pack: pack), comments: walk(nil, depth: 0))
    }

    // MARK: Den

    /// The user's packs (as Alpha), posts and comments, and upvotes received, over all
    /// live packs, for the given set of the user's own pseudonyms.
    public func den(authors: Set<PublicKey>, nowMs: UInt64) -> DenView {
        var packsOut: [PackSummary] = [], posts: [PostView] = [], comments: [CommentView] = []
        var upvotes = 0
        for (pid, pack) in packs where isLive(pid, nowMs: nowMs) {
            if authors.contains(pack.alpha) { packsOut.append(summary(pack, from: nil)) }
            for id in pack.posts {
                guard let op = ops[id], authors.contains(op.author), case .post(let p) = op.body.kind, !isDeleted(id) else { continue }
                let v = postView(op, p, pack: pack)
                posts.append(v); upvotes += v.upvotes
            }
            for (post, ids) in pack.commentsByPost {
                for id in ids {
                    guard let op = ops[id], authors.contains(op.author), case .comment(let c) = op.body.kind, !isDeleted(id) else {
                        continue
                    }
                    let t = tally(op, pack: pack)
                    let text = commentText(op, c, pack: pack)
                    comments.append(
                        CommentView(
                            id: id, post: post, parent: c.parent, author: op.author,
                            role: role(of: op.author, in: pack), body: text.text, hlc: op.hlc,
                            score: t.score, upvotes: t.up, downvotes: t.down, depth: 0, removed: false,
                            edited: text.edited))
                    upvotes += t.up
                }
            }
        }
        packsOut.sort { $0.createdMs != $1.createdMs ? $0.createdMs > $1.createdMs : $0.id < $1.id }
        posts.sort { $0.hlc != $1.hlc ? $0.hlc > $1.hlc : $0.id < $1.id }
        comments.sort { $0.hlc != $1.hlc ? $0.hlc > $1.hlc : $0.id < $1.id }
        return DenView(packs: packsOut, posts: posts, comments: comments, totalUpvotes: upvotes)
    }
}
