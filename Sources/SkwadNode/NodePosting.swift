import SkwadModel
import SkwadReplica
import SkwadStore

extension Node {
    /// Posts in a pack under this node's pseudonym there (joining the pack if needed).
    /// Returns once the op is committed. `here`: the post carries your cell (FireUp's place on
    /// a post; `feed --within` and `show` use it).
    public func post(
        pack ref: String, title: String, body: String, tags: [String], here: Bool = false, image: [UInt8]? = nil
    ) throws -> OpID {
        purgeIfDue()
        let p = try resolvePack(ref)
        try Self.fits(title, Limits.maxTitle, "title")
        try Self.fits(body, Limits.maxBody, "body")
        let picture = try image.map { try preparePicture($0, pack: p.id) }
        var (op, changes) = try sign(.post(Post(title: title, body: body, tags: tags, picture: picture)), in: p.id, here: here)
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
        try Self.fits(text, Limits.maxBody, "comment")
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
            // Your named post or review is deleted by the persona that signed it (a deletion by
            // your pseudonym would count for nothing, and would tie the two keys together).
            let byPersona = personaStamp(target.packID) != nil && target.author == personaKey(target.packID)?.publicKey
            guard byPersona || target.author == key(for: target.packID)?.publicKey else {
                if let pack = replica.pack(target.packID), !moderatorKeys(pack).isEmpty {
                    throw NodeError(
                        "you can only delete your own posts and comments; as a moderator of this pack you can hide it: hide \(ref) [REASON]"
                    )
                }
                throw NodeError("you can only delete your own posts and comments (report it to the moderators: report \(ref) \"REASON\")")
            }
            let (op, changes) = try sign(.delete(Delete(target: target.id)), in: target.packID, persona: byPersona)
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

extension Node {
    /// Limits are in UTF-8 bytes on the wire (PROTOCOL §Limits); the user counts characters.
    /// Too long: how long it is in characters and how many to cut from its end to fit
    /// (a letter beyond ASCII takes 2–3 bytes, an emoji 4). Checked before signing, so a
    /// refused text costs no op of the rate budget.
    static func fits(_ text: String, _ maxBytes: Int, _ what: String) throws {
        let bytes = text.utf8.count
        guard bytes > maxBytes else { return }
        var cut = 0, over = bytes - maxBytes
        for ch in text.reversed() where over > 0 { over -= ch.utf8.count; cut += 1 }
        let size = bytes == text.count ? "\(text.count) characters" : "\(text.count) characters, \(bytes) bytes"
        throw NodeError(
            "\(what) too long: \(size), at most \(maxBytes) bytes (\(maxBytes) plain characters): "
                + "cut \(cut) character\(cut == 1 ? "" : "s") from it")
    }
}
