import SkwadModel
import SkwadReplica
import SkwadStore

/// What became of a batch of ops from elsewhere.
public struct ReceiveReport: Sendable, Equatable {
    /// One outcome per input, in input order.
    public var outcomes: [AdmitOutcome] = []
    /// Ops now in the replica (inputs and the pending ops they unlocked) and committed.
    public var admitted: [SignedOp] = []
    /// Set when the store could not commit the admitted ops: they stay in memory (views
    /// show them) but a restart loses them until anti-entropy brings them back.
    public var storeError: String?
}

extension Node {
    /// The seam for the gossip layer: envelope bytes as received from other nodes. Each is
    /// decoded, verified and admitted; the admitted ones commit in one transaction; events
    /// for the user (new posts and comments in joined packs, votes on the user's own posts
    /// and comments) go to the event sink.
    public func receive(_ envelopes: [[UInt8]]) -> ReceiveReport {
        let nowMs = now()
        return ingest(envelopes.map { replica.receive($0, nowMs: nowMs) }, nowMs: nowMs)
    }

    /// The same for ops whose signatures the caller already verified (`SignedOp.open`,
    /// e.g. on other cores before entering the actor).
    public func receive(verified ops: [SignedOp]) -> ReceiveReport {
        let nowMs = now()
        return ingest(ops.map { replica.admit($0, nowMs: nowMs) }, nowMs: nowMs)
    }

    func ingest(_ outcomes: [AdmitOutcome], nowMs: UInt64) -> ReceiveReport {
        var report = ReceiveReport(outcomes: outcomes)
        for o in outcomes {
            switch o {
            case .admitted(let ops): report.admitted += ops
            case .duplicate: stats.duplicates += 1
            case .pending: stats.pending += 1
            case .rejected(let why, _): stats.rejected[why.rawValue, default: 0] += 1
            }
        }
        report.storeError = persistRemote(report.admitted, nowMs: nowMs)
        return report
    }

    /// Ops from elsewhere that the replica (or the gossip engine) just admitted: commit them
    /// in one transaction and tell the user. Returns the store's error, if any.
    @discardableResult
    func persistRemote(_ ops: [SignedOp], nowMs: UInt64) -> String? {
        guard !ops.isEmpty else { return nil }
        stats.admitted += ops.count
        for op in ops { clocks.observe(op.hlc, in: op.packID, physicalMs: nowMs) }
        var failure: String?
        do { try store.append(ops) } catch {
            stats.storeErrors += 1
            failure = "\(error)"
        }
        dropEvictedReports()
        if let sink = eventSink { for e in events(for: ops, nowMs: nowMs) { sink(e) } }
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
                   let name = replica.pack(op.packID)?.create.name {
                    out.append(.newComment(view, packName: name))
                }
            case .vote(let v):
                // One line per target and batch, with the score after the whole batch.
                if !votedOn.contains(v.target), let target = replica.op(v.target), target.packID == op.packID,
                   isMine(target.author, in: target.packID) {
                    votedOn.insert(v.target)
                    out.append(.voteOnYours(target: v.target.short(displayIDLength()), score: replica.score(v.target)))
                }
            default: break
            }
        }
        return out
    }
}
