import SkwadCrypto
import SkwadModel
import SkwadReplica
import SkwadStore

/// One thing the user would want to hear about, in `inbox`.
public struct InboxItem: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// A comment on your post (`parent` nil) or a reply to your comment.
        case reply(CommentView, parent: OpID?)
        /// New votes on your post or comment, summed: distinct voters' latest votes since
        /// you last looked, and the score now.
        case votes(target: OpID, up: Int, down: Int, score: Int)
        /// A moderator hid (`hidden`) or restored your post or comment.
        case moderated(target: OpID, hidden: Bool, reason: String)
        /// Votes since you last looked took your post or comment to the pack's hiding score
        /// (−5 unless its genesis says otherwise): it is hidden from every feed.
        case autoHidden(target: OpID, score: Int, threshold: Int)
        /// A pack you are in expires soon, expired, or was deleted.
        case pack(InboxNotice)
        /// A review of a place you added, or the landlord's reply to your review (NodePlaces.swift).
        case place(PlaceNews)
        /// A direct message to you (NodeConversations.swift).
        case letter(ConversationEntry)
        /// A post by a pseudonym you follow (NodeFollows.swift).
        case followedPost(PostView)
        /// The asker picked your caption (NodeCaptions.swift).
        case picked(ask: OpID, caption: OpID)
    }
    public let kind: Kind
    /// The pack's label, for posts, comments and votes.
    public let packName: String
    /// What it is about: your post's title or your comment's first words ("" for packs).
    public let about: String
    /// When it happened (the op's time; a pack's expiry).
    public let atMs: UInt64
    /// The item is about your post (not your comment).
    public var targetIsPost = false
}

public struct Inbox: Sendable, Equatable {
    public let items: [InboxItem]
    /// Ops since the mark left unread beyond `Node.inboxScanLimit` (the oldest ones).
    public let skipped: Int
}

extension Node {
    /// At most this many of the ops stored since the last look are read by `inbox`.
    public static let inboxScanLimit = 20_000
    /// How long before its expiry a pack you are in is announced.
    public static let expiringNoticeMs: UInt64 = 3_600_000

    /// What happened to you since you last looked (replies, votes, moderation of your posts
    /// and comments; packs you are in expiring within the hour, expired or deleted),
    /// including what arrived while the REPL was not running: the mark is the op log's
    /// position, kept in the store. Moves the mark unless `peek`.
    public func inbox(peek: Bool = false) throws -> Inbox {
        purgeIfDue()
        let nowMs = now()
        do {
            try store.addNotices(packNotices(nowMs: nowMs))
            let mark = try store.inboxMark()
            let last = try store.lastSeq()
            let (ops, skipped) = try store.ops(after: mark, limit: Self.inboxScanLimit)
            var items = opItems(ops, nowMs: nowMs)
            for f in features.all { items += f.inboxItems(ops, nowMs: nowMs, node: self) }
            items += try store.unshownNotices().map { InboxItem(kind: .pack($0), packName: $0.name, about: "", atMs: $0.atMs) }
            items.sort { $0.atMs < $1.atMs }
            if !peek { try store.markInboxSeen(seq: last, forgetBeforeMs: nowMs &- 7 * 86_400_000) }
            return Inbox(items: items, skipped: skipped)
        } catch let e as NodeError { throw e } catch {
            stats.storeErrors += 1
            throw NodeError("\(error)")
        }
    }

    /// Notices about the live state of the packs you are in.
    func packNotices(nowMs: UInt64) -> [InboxNotice] {
        var out: [InboxNotice] = []
        for id in joined.keys.sorted() {
            guard let p = replica.pack(id) else { continue }
            let name = p.create.name
            // Known, not expired and not live: deleted.
            if !p.isExpired(nowMs: nowMs) && !replica.isLive(id, nowMs: nowMs) {
                // You deleted it yourself (as its Alpha): nothing to tell you.
                if !isMine(p.alpha, in: id) { out.append(InboxNotice(kind: .deleted, pack: id, name: name, atMs: nowMs)) }
            } else if p.isExpired(nowMs: nowMs) {
                out.append(InboxNotice(kind: .expired, pack: id, name: name, atMs: p.expiresMs ?? nowMs))
            } else if let e = p.expiresMs, e > nowMs, e - nowMs <= Self.expiringNoticeMs {
                out.append(InboxNotice(kind: .expiring, pack: id, name: name, atMs: e))
            }
        }
        return out
    }

    /// Name of each pack you are in, and whether you are its Alpha.
    func joinedPackNames() -> [PackID: (name: String, alpha: Bool)] {
        var out: [PackID: (name: String, alpha: Bool)] = [:]
        for id in joined.keys { if let p = replica.pack(id) { out[id] = (p.create.name, isMine(p.alpha, in: id)) } }
        return out
    }

    /// Packs you were in that a purge just dropped: kept for the inbox.
    func recordGone(_ stones: [Tombstone], names: [PackID: (name: String, alpha: Bool)], nowMs: UInt64) {
        let notices = stones.compactMap { t -> InboxNotice? in
            guard let n = names[t.pack], !(t.reason == .deleted && n.alpha) else { return nil }
            return InboxNotice(kind: t.reason == .deleted ? .deleted : .expired, pack: t.pack, name: n.name, atMs: nowMs)
        }
        do { try store.addNotices(notices) } catch { stats.storeErrors += 1 }
    }

    /// Replies, votes and moderation on your posts and comments among `ops`, and what the
    /// features say answers them (`NodeFeature.inboxItem`).
    func opItems(_ ops: [SignedOp], nowMs: UInt64) -> [InboxItem] {
        let styles = packStyles()
        var items: [InboxItem] = []
        // Per target and voter, the voter's latest vote by (hlc, id), as the replica's LWW
        // counts it: `ops` come in arrival order, and gossip may deliver a changed vote
        // before the one it replaces (InboxTests saw "up 2, down 1" beside a score of -1).
        var votes: [OpID: [PublicKey: (hlc: HLC, id: OpID, value: Int32)]] = [:], voteOrder: [OpID] = [], voteMs: [OpID: UInt64] = [:]
        var moderation: [OpID: (hidden: Bool, reason: String, ms: UInt64)] = [:]
        for op in ops where replica.isLive(op.packID, nowMs: nowMs) && replica.contains(op.id) && !isMine(op.author, in: op.packID) {
            // Replies and votes from a blocked pseudonym are not news (a moderator's hide is).
            if case .moderate = op.body.kind {} else if localModeration().blocked[op.author] != nil { continue }
            let label = styles[op.packID]?.label ?? ""
            switch op.body.kind {
            case .comment(let c):
                let target = c.parent ?? c.post
                guard let t = replica.op(target), isMine(t.author, in: t.packID),
                    let thread = replica.thread(c.post, nowMs: nowMs),
                    let view = thread.comments.first(where: { $0.id == op.id }), !view.removed
                else { continue }
                items.append(
                    InboxItem(
                        kind: .reply(view, parent: c.parent), packName: label, about: about(target), atMs: op.hlc.physicalMs,
                        targetIsPost: c.parent == nil))
            case .vote(let v):
                guard let t = replica.op(v.target), t.packID == op.packID, isMine(t.author, in: t.packID) else { continue }
                if votes[v.target] == nil { voteOrder.append(v.target) }
                if let seen = votes[v.target]?[op.author], (seen.hlc, seen.id) > (op.hlc, op.id) {
                } else {
                    votes[v.target, default: [:]][op.author] = (op.hlc, op.id, v.value)
                }
                voteMs[v.target] = max(voteMs[v.target] ?? 0, op.hlc.physicalMs)
            case .moderate(let m):
                guard let t = replica.op(m.target), t.packID == op.packID, isMine(t.author, in: t.packID),
                    let pack = replica.pack(op.packID), replica.isModerator(op.author, of: pack)
                else { continue }
                moderation[m.target] = (m.hidden, m.reason, op.hlc.physicalMs)
            default:
                // Answers to what the user wrote through a feature (a review of a place).
                for f in features.all {
                    if let item = f.inboxItem(answering: op, label: label, nowMs: nowMs, node: self) { items.append(item) }
                }
            }
        }
        let before = previousVotes(votes, batch: Set(ops.map(\.id)))
        for target in voteOrder {
            guard let t = replica.op(target) else { continue }
            // A voter counts when their vote now differs from what it was before these ops:
            // the same vote cast again, or a change undone, is no news.
            var up = 0, down = 0, delta = 0
            for (voter, v) in votes[target]! {
                let prev = before[target]?[voter]
                if let prev, (prev.hlc, prev.id) > (v.hlc, v.id) || prev.value == v.value { continue }
                if v.value > 0 { up += 1 } else if v.value < 0 { down += 1 }
                delta += Int(v.value) - Int(prev?.value ?? 0)
            }
            let score = replica.score(target)
            if up + down > 0 {
                items.append(
                    InboxItem(
                        kind: .votes(target: target, up: up, down: down, score: score),
                        packName: styles[t.packID]?.label ?? "", about: about(target), atMs: voteMs[target] ?? nowMs,
                        targetIsPost: isPost(t)))
            }
            if let threshold = hideThreshold(t.packID), score <= -threshold, score - delta > -threshold {
                items.append(
                    InboxItem(
                        kind: .autoHidden(target: target, score: score, threshold: threshold),
                        packName: styles[t.packID]?.label ?? "", about: about(target), atMs: voteMs[target] ?? nowMs,
                        targetIsPost: isPost(t)))
            }
        }
        for (target, m) in moderation.sorted(by: { $0.value.ms < $1.value.ms }) {
            guard let t = replica.op(target) else { continue }
            items.append(
                InboxItem(
                    kind: .moderated(target: target, hidden: m.hidden, reason: m.reason),
                    packName: styles[t.packID]?.label ?? "", about: about(target), atMs: m.ms, targetIsPost: isPost(t)))
        }
        return items
    }

    /// Per target and voter among `votes`: the voter's last vote on it outside `batch` (the
    /// ops since the last look), by (hlc, id).
    func previousVotes(
        _ votes: [OpID: [PublicKey: (hlc: HLC, id: OpID, value: Int32)]], batch: Set<OpID>
    )
        -> [OpID: [PublicKey: (hlc: HLC, id: OpID, value: Int32)]]
    {
        var out: [OpID: [PublicKey: (hlc: HLC, id: OpID, value: Int32)]] = [:]
        let packs = Set(votes.keys.compactMap { replica.op($0)?.packID })
        for pack in packs {
            for entry in replica.opIDs(inPack: pack) where !batch.contains(entry.id) {
                guard let op = replica.op(entry.id), case .vote(let v) = op.body.kind, votes[v.target]?[op.author] != nil else { continue }
                if let seen = out[v.target]?[op.author], (seen.hlc, seen.id) > (op.hlc, op.id) { continue }
                out[v.target, default: [:]][op.author] = (op.hlc, op.id, v.value)
            }
        }
        return out
    }

    /// The score at or below minus which a pack hides a post or comment (PROTOCOL §5).
    func hideThreshold(_ pack: PackID) -> Int? {
        guard let p = replica.pack(pack), case .createPack(let c) = p.genesis.body.kind else { return nil }
        return Int(c.hideScore == 0 ? 5 : c.hideScore)
    }

    func isPost(_ op: SignedOp) -> Bool { if case .post = op.body.kind { true } else { false } }

    /// A post's title, or a comment's first 40 characters.
    func about(_ id: OpID) -> String {
        switch replica.op(id)?.body.kind {
        case .post(let p): return p.title
        case .comment(let c): return c.body.count > 40 ? String(c.body.prefix(40)) + "…" : c.body
        default: return ""
        }
    }
}
