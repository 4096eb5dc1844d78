import SkwadCrypto
import SkwadModel

/// One line of a pack's moderation history (`log PACK`): the op log is the audit trail.
public struct ModerationEntry: Sendable, Equatable {
    public enum Action: String, Sendable { case hide, unhide, ban, unban, editPack = "edit pack", deletePack = "delete pack" }
    public let id: OpID
    public let author: PublicKey
    public let role: AuthorRole?
    public let hlc: HLC
    public let action: Action
    /// The post or comment hidden or restored.
    public let target: OpID?
    /// The reason given (hide, unhide, ban, unban), or the fields changed (edit pack).
    public let detail: String
    /// The pseudonym banned or unbanned.
    public var subject: PublicKey? = nil
}

/// A report as a moderator reads it (opened with one of the moderator's keys).
public struct ReportView: Sendable, Equatable {
    public let id: OpID
    public let pack: PackID
    /// The reporter's pseudonym in the pack, as the sealed content names and signs it (the op
    /// itself is signed by a one-off key: nobody but a moderator learns who reported).
    public let reporter: PublicKey
    public let hlc: HLC
    public let target: OpID
    public let reason: String
    /// The reported post's title or the comment's text (empty when the target is not here yet).
    public let excerpt: String
    /// The target is hidden by a moderator now.
    public let targetHidden: Bool
}

extension Replica {
    /// Whether `author` is banned in `pack` now: the last `Ban` naming it in the pack, by (hlc, id)
    /// among the moderators' (admission admits no other), is a ban, and it is not a moderator
    /// of the pack (a ban of the Alpha or an admin counts for nothing). While banned, none of its
    /// ops in the pack count in views, whatever their hlc (an author could backdate them):
    /// posts and comments are hidden, votes not counted, places, reviews, replies and reports
    /// left out (PROTOCOL.md §5, bans). A ban in another pack changes nothing here.
    public func isBanned(_ author: PublicKey, in pack: PackState) -> Bool {
        pack.bans[author]?.value == true && !isModerator(author, of: pack)
    }

    /// The pseudonyms banned in a pack now, in byte order.
    public func banned(in packID: PackID) -> [PublicKey] {
        guard let pack = packs[packID] else { return [] }
        return pack.bans.keys.filter { isBanned($0, in: pack) }.sorted()
    }

    /// The pack's moderation ops (hide, unhide, ban, unban, pack edits, pack delete) oldest first, by (hlc, id).
    /// Admission admits these only from the Alpha or an admin (PROTOCOL.md §4, rule 8).
    public func moderationLog(_ packID: PackID) -> [ModerationEntry] {
        guard let pack = packs[packID] else { return [] }
        var out: [ModerationEntry] = []
        for key in pack.order {
            guard let op = ops[key.id] else { continue }
            let who = role(of: op.author, in: pack)
            switch op.body.kind {
            case .ban(let b):
                var e = ModerationEntry(
                    id: op.id, author: op.author, role: who, hlc: op.hlc, action: b.banned ? .ban : .unban, target: nil, detail: b.reason)
                e.subject = b.author
                out.append(e)
            case .moderate(let m):
                out.append(
                    ModerationEntry(
                        id: op.id, author: op.author, role: who, hlc: op.hlc, action: m.hidden ? .hide : .unhide,
                        target: m.target, detail: m.reason))
            case .editPack(let e):
                var parts: [String] = []
                if let n = e.name { parts.append("name: \(n)") }
                if let c = e.color { parts.append("colour: \(c)") }
                if let t = e.tags { parts.append("tags: \(t.joined(separator: ","))") }
                out.append(
                    ModerationEntry(
                        id: op.id, author: op.author, role: who, hlc: op.hlc, action: .editPack, target: nil,
                        detail: parts.joined(separator: "; ")))
            case .delete(let d) where d.target == packID:
                out.append(
                    ModerationEntry(id: op.id, author: op.author, role: who, hlc: op.hlc, action: .deletePack, target: nil, detail: ""))
            default: continue
            }
        }
        return out
    }

    /// The pack's reports that open with `key` (a moderator's key), oldest first. A report
    /// whose sealed target lies in another pack, or is not a post or comment, says nothing
    /// (same-pack rule); nobody without a moderator's key learns anything from this view.
    /// Only reports whose reporter signed them and shows a valid stamp for the pack count, not
    /// those of a reporter banned in the pack, and per reporter and clock hour only the
    /// `Limits.reportsPerHour` smallest by (hlc, id) (PROTOCOL.md §5, reports).
    public func reports(in packID: PackID, openedWith key: SigningKeyPair) -> [ReportView] {
        guard let pack = packs[packID], isModerator(key.publicKey, of: pack) else { return [] }
        let g = pack.genesisCreate
        let bits = Int(config.pseudonymBits(g.powBits))
        var out: [ReportView] = []
        var perHour: [PublicKey: [UInt64: Int]] = [:]
        for entry in pack.order {
            guard let op = ops[entry.id], case .report(let r) = op.body.kind,
                let content = r.open(with: key, pack: packID, carrier: op.author),
                !isBanned(content.reporter, in: pack),
                pack.stamps[content.reporter] == content.stamp
                    || ProofOfWork.isValid(genesisNonce: g.nonce, author: content.reporter.bytes, stamp: content.stamp, bits: bits)
            else { continue }
            var excerpt = ""
            if let target = ops[content.target] {
                guard target.packID == packID else { continue }
                switch target.body.kind {
                case .post(let p): excerpt = postView(target, p, pack: pack).title
                case .comment(let c): excerpt = commentText(target, c, pack: pack).text
                case .place(let p) where p.target == nil: excerpt = p.address
                case .review(let r): excerpt = r.text
                case .reviewReply(let r): excerpt = r.text
                default: continue
                }
            }
            let hour = Self.reportHour(op.hlc)
            let n = perHour[content.reporter, default: [:]][hour, default: 0]
            guard n < Limits.reportsPerHour else { continue }
            perHour[content.reporter, default: [:]][hour] = n + 1
            out.append(
                ReportView(
                    id: op.id, pack: packID, reporter: content.reporter, hlc: op.hlc, target: content.target,
                    reason: content.reason, excerpt: excerpt, targetHidden: pack.moderation[content.target]?.value == true))
        }
        return out
    }

    /// Ids of every report op of a pack (opened or not): what a relay holds.
    public func reportIDs(in packID: PackID) -> [OpID] {
        guard let pack = packs[packID] else { return [] }
        return pack.order.compactMap { e in
            guard let op = ops[e.id], case .report = op.body.kind else { return nil }
            return op.id
        }
    }
}

extension CommentView {
    /// The same comment as a placeholder without its text (a blocked author's, kept for its replies).
    public func asPlaceholder() -> CommentView {
        CommentView(
            id: id, post: post, parent: parent, author: author, role: role, body: "", hlc: hlc, score: score,
            upvotes: upvotes, downvotes: downvotes, depth: depth, removed: true)
    }
}

extension ThreadView {
    /// The same thread with other comments (local filters: blocks).
    public func with(comments: [CommentView]) -> ThreadView { ThreadView(post: post, comments: comments) }
}
