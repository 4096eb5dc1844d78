import SkwadModel
import SkwadReplica
import SkwadStore

extension Node {
    /// Ops from elsewhere that the gossip engine just admitted (`carryOut`, NodeNetwork.swift):
    /// commit them in one transaction, then tell the features and the user (`tellFeatures`).
    /// Returns the store's error, if any.
    @discardableResult
    func persistRemote(_ ops: [SignedOp], nowMs: UInt64) -> String? {
        guard !ops.isEmpty else { return nil }
        stats.admitted += ops.count
        for op in ops { own.clocks.observe(op.hlc, in: op.packID, physicalMs: nowMs) }
        var failure: String?
        do { try store.append(ops) } catch {
            stats.storeErrors += 1
            failure = "\(error)"
        }
        dropEvictedOps()
        tellFeatures(ops, nowMs: nowMs)
        return failure
    }

    /// What the user should hear about among newly admitted ops from elsewhere.
    func events(for ops: [SignedOp], nowMs: UInt64) -> [NodeEvent] {
        var out: [NodeEvent] = []
        var votedOn: Set<OpID> = []
        for op in ops where !isMine(op.author, in: op.packID) && !isSilenced(op) {
            switch op.body.kind {
            case .post where joined[op.packID] != nil:
                if let t = replica.thread(op.id, nowMs: nowMs), t.post.hidden == nil { out.append(.newPost(t.post)) }
            case .comment(let c) where joined[op.packID] != nil:
                if let t = replica.thread(c.post, nowMs: nowMs), let view = t.comments.first(where: { $0.id == op.id }), !view.removed,
                    let name = replica.pack(op.packID)?.create.name
                {
                    out.append(.newComment(view, packName: name))
                }
            case .vote(let v):
                // One line per target and batch, with the score after the whole batch.
                if !votedOn.contains(v.target), let target = replica.op(v.target), target.packID == op.packID,
                    isMine(target.author, in: target.packID)
                {
                    votedOn.insert(v.target)
                    out.append(.voteOnYours(target: v.target, score: replica.score(v.target)))
                }
            default: break
            }
        }
        return out
    }
}
