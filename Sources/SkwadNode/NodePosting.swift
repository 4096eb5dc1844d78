import SkwadModel
import SkwadReplica
import SkwadStore

extension Node {
    /// Posts in a pack under this node's pseudonym there (joining the pack if needed).
    /// Returns once the op is committed.
    public func post(pack ref: String, title: String, body: String, tags: [String]) throws -> OpID {
        purgeIfDue()
        let p = try resolvePack(ref)
        var (op, changes) = try sign(.post(Post(title: title, body: body, tags: tags)), in: p.id)
        if joined[p.id] == nil { changes.append(.joined(p.id, true, atMs: now())) }
        try commit(op, with: changes)
        return op.id
    }

    /// Comments on a post, or replies to a comment when `ref` names one.
    public func comment(on ref: String, text: String) throws -> OpID {
        purgeIfDue()
        let target = try resolveOp(ref)
        let c: Comment
        switch target.body.kind {
        case .post: c = Comment(post: target.id, parent: nil, body: text)
        case .comment(let parent): c = Comment(post: parent.post, parent: target.id, body: text)
        case .review(let r): return try replyToReview(target, r, text: text)
        default: throw NodeError("'\(NodeError.quote(ref))' is not a post or a comment")
        }
        let (op, changes) = try sign(.comment(c), in: target.packID)
        try commit(op, with: changes)
        return op.id
    }

    /// +1, -1, or 0 (withdraw) on a post or comment. The last vote of a pseudonym counts.
    public func vote(on ref: String, value: Int32) throws -> OpID {
        purgeIfDue()
        let target = try resolveOp(ref)
        let (op, changes) = try sign(.vote(Vote(target: target.id, value: value)), in: target.packID)
        try commit(op, with: changes)
        return op.id
    }

    /// Deletes your own post or comment, or a pack you are the Alpha of.
    public func delete(_ ref: String) throws -> OpID {
        purgeIfDue()
        if let target = try? resolveOp(ref) {
            guard target.author == key(for: target.packID)?.publicKey else {
                if let pack = replica.pack(target.packID), !moderatorKeys(pack).isEmpty {
                    throw NodeError("you can only delete your own posts and comments; as a moderator of this pack you can hide it: hide \(ref) [REASON]")
                }
                throw NodeError("you can only delete your own posts and comments (report it to the moderators: report \(ref) \"REASON\")")
            }
            let (op, changes) = try sign(.delete(Delete(target: target.id)), in: target.packID)
            try commit(op, with: changes)
            return op.id
        }
        let p: PackSummary
        do { p = try resolvePack(ref) } catch let e as NodeError where e.isUnknownPack {
            throw NodeError("no post, comment or pack with id '\(NodeError.quote(ref))' (see: feed, packs)")
        }
        guard p.alpha == key(for: p.id)?.publicKey else { throw NodeError("only the pack's Alpha can delete pack '\(p.name)'") }
        let (op, changes) = try sign(.delete(Delete(target: p.id)), in: p.id)
        try commit(op, with: changes)
        return op.id
    }
}
