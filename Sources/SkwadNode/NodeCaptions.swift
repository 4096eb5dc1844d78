import SkwadModel
import SkwadReplica

/// Captions (CapGrab, PROTOCOL §5 "Captions"): an ask is a post whose comments are captions,
/// shown by score; its author picks one.
extension Node {
    /// Asks a pack for captions: a post marked as an ask (joining the pack if needed).
    public func ask(pack ref: String, prompt: String, body: String = "", tags: [String] = [], image: [UInt8]? = nil) throws -> OpID {
        purgeIfDue()
        let p = try resolvePack(ref)
        try Self.fits(prompt, Limits.maxTitle, "prompt")
        try Self.fits(body, Limits.maxBody, "body")
        let picture = try image.map { try preparePicture($0, pack: p.id) }
        var (op, changes) = try sign(.post(Post(title: prompt, body: body, tags: tags, ask: true, picture: picture)), in: p.id)
        if joined[p.id] == nil { changes.append(.joined(p.id, true, atMs: now())) }
        try commit(op, with: changes)
        return op.id
    }

    /// Picks a caption of one of your asks (the last pick counts). Returns the pick's id, the
    /// ask's and the caption's.
    public func pick(_ ref: String) throws -> (pick: OpID, ask: OpID, caption: OpID) {
        purgeIfDue()
        let caption = try resolveOp(ref)
        guard case .comment(let c) = caption.body.kind, c.parent == nil else {
            throw NodeError("'\(NodeError.quote(ref))' is not a caption: pick one of the answers to your ask (show ASK lists them)")
        }
        guard let ask = replica.op(c.post), case .post(let p) = ask.body.kind, p.ask else {
            throw NodeError("'\(NodeError.quote(ref))' answers a post, not an ask: only captions of an ask can be picked")
        }
        guard ask.author == key(for: ask.packID)?.publicKey else {
            throw NodeError("only the author of the ask picks its caption")
        }
        let (op, changes) = try sign(.pick(Pick(ask: ask.id, caption: caption.id)), in: ask.packID)
        try commit(op, with: changes)
        return (op.id, ask.id, caption.id)
    }

}

/// Captions as a feature of the node: the asker's picks of this user's captions in `inbox`.
final class Captions: NodeFeature {
    /// Picks among `ops` that made one of your captions the one shown (the ask's author's
    /// current pick): an inbox entry each.
    func inboxItems(_ ops: [SignedOp], nowMs: UInt64, node: isolated Node) -> [InboxItem] {
        var items: [InboxItem] = []
        for op in ops where node.replica.contains(op.id) {
            guard case .pick(let k) = op.body.kind, let caption = node.replica.op(k.caption),
                caption.author == node.key(for: caption.packID)?.publicKey, op.author != caption.author,
                let t = node.replica.thread(k.ask, nowMs: nowMs), t.post.picked == k.caption, t.post.author == op.author
            else { continue }
            items.append(
                InboxItem(
                    kind: .picked(ask: k.ask, caption: k.caption), packName: t.post.packName, about: t.post.title,
                    atMs: op.hlc.physicalMs))
        }
        return items
    }
}
