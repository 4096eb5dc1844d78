import SkwadCrypto
import SkwadModel

/// Admission (PROTOCOL §4): what an op must carry to join the set, judged on the op, its
/// pack's genesis and the local configuration alone. `Replica.admit` applies it; the node
/// checks its own ops with `precheck` before committing them.
extension Replica {
    /// What admitting `op` now would do, without doing it: nil when it would be admitted,
    /// else `.pending`, `.duplicate` or `.rejected`. The node checks its own ops with this
    /// before committing them to the store.
    public func precheck(_ op: SignedOp, nowMs: UInt64, local: Bool = false, arrival: Arrival? = nil) -> AdmitOutcome? {
        if ops[op.id] != nil || pendingIDs.contains(op.id) { return .duplicate }
        if op.hlc.physicalMs > nowMs &+ config.maxFutureSkewMs {
            return .rejected(.clockAhead, "op is \(op.hlc.physicalMs - nowMs) ms ahead of local time")
        }
        let packID = op.packID
        if let t = tombstones[packID] {
            if t.proof?.deletion.id == op.id || t.proof?.genesis.id == op.id { return .duplicate }
            return .rejected(t.reason == .deleted ? .packDeleted : .packExpired, "pack \(packID.short()) is gone (\(t.reason.rawValue))")
        }
        if case .createPack(let c) = op.body.kind {
            let admin = config.adminKeys.contains(op.author)
            if !admin && op.hlc.physicalMs &+ Lifetime.maxMs &+ Lifetime.purgeGraceMs <= nowMs {
                return .rejected(.packExpired, "pack genesis is older than the maximum lifetime")
            }
            let bits = config.genesisBits(c.powBits)
            if !ProofOfWork.isValid(genesisNonce: c.nonce, author: op.author.bytes, stamp: op.body.stamp, bits: Int(bits)) {
                return .rejected(.badStamp, "genesis stamp does not show \(bits) bits of work")
            }
            if !local && !admin && remotePackCount >= config.maxRemotePacks && displacementVictim(for: op, arrival: arrival) == nil {
                return .rejected(.tooManyPacks, "this node holds \(remotePackCount) packs from others, its limit")
            }
            return nil
        }
        guard let pack = packs[packID] else { return .pending }
        // A deleted pack takes one more op only: a moderator's deletion smaller than the one
        // that counts (it replaces it, so every replica keeps the smallest of the union).
        if let counted = pack.deletion, !(op.isDeletion(of: packID) && (op.hlc, op.id) < (counted.hlc, counted.id)) {
            return .rejected(.packDeleted, "pack \(packID.short()) was deleted")
        }
        if pack.isExpired(nowMs: nowMs) { return .rejected(.packExpired, "pack \(packID.short()) has expired") }
        let g = pack.genesisCreate
        if pack.stamps[op.author] != op.body.stamp,
            !ProofOfWork.isValid(
                genesisNonce: g.nonce, author: op.author.bytes, stamp: op.body.stamp, bits: Int(config.pseudonymBits(g.powBits)))
        {
            return .rejected(.badStamp, "author is not a pseudonym stamped for this pack")
        }
        // A locked pack: a location claim on any kind must lie inside the fence, and posts,
        // comments and votes must carry one. Judged on the claim and the genesis alone
        // (`cellsInside` only memoizes `fence.contains`), so the order ops arrive in changes
        // nothing (PROTOCOL §4, rule 6).
        if pack.locked, let fence = pack.fence {
            if let loc = op.body.location {
                guard pack.cellsInside.contains(loc) || fence.contains(geohash: loc) else {
                    return .rejected(.outsideFence, "location \(loc) is outside the pack's geofence")
                }
            } else if op.body.kind.needsLocationInLockedPack {
                return .rejected(.missingLocation, "pack \(packID.short()) is locked: a location claim is required")
            }
        }
        if let refused = privacyRule(op, in: pack) { return refused }
        switch op.body.kind {
        case .post, .comment, .vote, .place, .review, .reviewReply, .pick:
            break
        case .editPack, .moderate, .ban:
            guard isModerator(op.author, of: pack) else { return .rejected(.notAllowed, "only the Alpha or an admin may do that") }
        case .delete(let d):
            if d.target == packID && !isModerator(op.author, of: pack) {
                return .rejected(.notAllowed, "only the Alpha or an admin may delete the pack")
            }
        case .report:
            let hour = Self.reportHour(op.hlc)
            let slots = pack.reportSlots[op.author] ?? [:]
            if let newest = slots.keys.max(), hour &+ Limits.reportWindowHours <= newest {
                return .rejected(.reportLimited, "report older than \(Limits.reportWindowHours) h before this pseudonym's newest")
            }
            let kept = slots[hour] ?? []
            if kept.count >= Limits.reportsPerHour, let last = kept.last, (op.hlc, op.id) > (last.hlc, last.id) {
                return .rejected(.reportLimited, "at most \(Limits.reportsPerHour) reports an hour per pseudonym in a pack")
            }
        case .edit, .createPack, .directMessage, .profile, .sealed, .packKeys, .joined:
            break
        }
        return nil
    }
}

extension OpKind {
    /// Ops that speak in a locked pack's place (posts, comments, votes, places, reviews,
    /// replies and picks) must claim a cell inside its fence; other kinds may claim one, and
    /// then it must lie inside too. The node attaches a claim to exactly these kinds.
    public var needsLocationInLockedPack: Bool {
        switch self {
        case .post, .comment, .vote, .place, .review, .reviewReply, .pick: true
        case .createPack, .delete, .editPack, .moderate, .ban, .edit, .report, .directMessage, .profile, .sealed, .packKeys, .joined: false
        }
    }
}
