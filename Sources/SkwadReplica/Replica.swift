import SkwadCrypto
import Synchronization
import SkwadModel

/// Why a pack's ops are gone for good. A tombstone outlives the ops, so stale peers
/// cannot bring a purged pack back.
///
/// A tombstone expires once the genesis it blocks can no longer be admitted anyway (a
/// non-admin genesis older than the maximum lifetime plus grace is refused, PROTOCOL §4).
public struct Tombstone: Sendable, Hashable {
    public enum Reason: String, Sendable { case expired, deleted }
    public let pack: PackID
    public let reason: Reason
    /// When it may be forgotten; nil: never (an admin pack's genesis is never too old).
    public let expiresMs: UInt64?
    /// A deleted pack's genesis and the deletion that counts (the smallest pack `Delete` by a
    /// moderator, by (hlc, id)): its directory entry until the tombstone expires, so every
    /// node that knows the genesis learns the deletion (PROTOCOL §11a). Nil for an expired
    /// pack, and for tombstones recorded before deletions travelled in the directory.
    public let proof: DeletionProof?
    public init(pack: PackID, reason: Reason, expiresMs: UInt64? = nil, proof: DeletionProof? = nil) {
        self.pack = pack; self.reason = reason; self.expiresMs = expiresMs; self.proof = proof
    }
}

/// What shows that a pack was deleted: its genesis and a moderator's `Delete` of it.
public struct DeletionProof: Sendable, Hashable {
    public let genesis: SignedOp
    public let deletion: SignedOp
    public init(genesis: SignedOp, deletion: SignedOp) { self.genesis = genesis; self.deletion = deletion }
    public static func == (a: DeletionProof, b: DeletionProof) -> Bool { a.genesis.id == b.genesis.id && a.deletion.id == b.deletion.id }
    public func hash(into h: inout Hasher) { h.combine(genesis.id); h.combine(deletion.id) }
}

/// The CRDT: a grow-only set of admitted ops (merge = union), with indexes from which the
/// views are computed. Pure and deterministic: the current time is always an argument.
/// Normative rules: docs/PROTOCOL.md §4–6.
public struct Replica: Sendable {
    public let config: ReplicaConfig
    var ops: [OpID: SignedOp] = [:]
    /// Per pack: its genesis, indexes, and the votes, deletes and moderation of its ops.
    /// Everything that targets an op is keyed by (pack, target): an op of one pack never
    /// changes a view of another (PROTOCOL.md §5, same-pack rule).
    var packs: [PackID: PackState] = [:] { didSet { packsStamp = Self.stamps.add(1, ordering: .relaxed).newValue } }
    /// Changes with every change to any pack's state, and no two replicas share one (a
    /// process-wide counter), except 0: no pack was ever held. A key for caches of views of
    /// the packs (the engine's `PackViewCache`).
    public private(set) var packsStamp: UInt64 = 0
    /// Changes (like `packsStamp`, process-wide unique) when what views of the live packs read
    /// other than expiry changes: a pack added, deleted, edited (its directory entry) or
    /// purged. Other ops only move a pack's expiry, and only later (more participants): a
    /// view of the live packs computed before them holds until `liveWindow`'s `untilMs` as computed
    /// then, except for a pack already expired then (`PackViewCache` checks for those).
    public private(set) var directoryStamp: UInt64 = 0
    private static let stamps = Atomic<UInt64>(0)
    mutating func directoryChanged() { directoryStamp = Self.stamps.add(1, ordering: .relaxed).newValue }
    /// The ops of tombstones' deletion proofs, by id (`op(_:)` serves them).
    var proofOps: [OpID: SignedOp] = [:]
    var pending: [PackID: [SignedOp]] = [:]
    var pendingIDs: Set<OpID> = []
    /// When the first op still held for each unknown pack arrived: ops for a pack whose
    /// genesis does not follow within `pendingMaxAgeMs` are dropped (PROTOCOL §4).
    var pendingSince: [PackID: UInt64] = [:]
    /// Who sent each held op (network group), and how many each holds (PendingQuota.swift).
    var pendingSource: [OpID: String] = [:]
    var pendingPerSource: [String: Int] = [:]
    var pendingOrder: [String: [(id: OpID, pack: PackID)]] = [:]
    var nextPendingSweepMs: UInt64 = 0
    public static let pendingMaxAgeMs: UInt64 = 60_000
    public internal(set) var tombstones: [PackID: Tombstone] = [:] { didSet { directoryChanged() } }
    /// Tombstones whose deletion proof a smaller deletion replaced since the last
    /// `takeUpdatedTombstones` (the node writes them to its store).
    var updatedTombstones: [PackID] = []
    /// Non-admin packs admitted from elsewhere and still held (each with the network group it
    /// came from: `PackState.remoteSource`; the quota of PROTOCOL §4 rule 5, PackQuota.swift).
    public internal(set) var remotePackCount = 0
    /// Packs displaced by the quota while the table was full, refused until they leave this
    /// bounded memory (`recentlyDisplacedCapacity`).
    var recentlyDisplaced: Set<PackID> = []
    var recentlyDisplacedOrder: [PackID] = []
    /// How many packs the quota displaced.
    public internal(set) var displacedCount = 0
    /// Reports dropped from the set because smaller ones of the same reporter and hour
    /// arrived (PROTOCOL.md §4, rule 8a); the node deletes them from its store.
    var evicted: [(pack: PackID, id: OpID)] = []
    /// Keys of invite-only packs this node is a member of, per epoch (local, never on the wire),
    /// and the packs whose views must be rebuilt because a key or a rotation came (PrivatePackViews.swift).
    var packKeys: [PackID: [UInt32: [UInt8]]] = [:]
    var rebuildQueue: Set<PackID> = []
    /// Per direct-message op, its place in the order ops reached this replica (1, 2, …): which
    /// letters count is decided by arrival (ConversationViews.swift). One entry per such op
    /// held; an op's entry goes with it (purge, displacement). A restore from the store, read
    /// in the order stored, gives the same order again.
    var letterArrival: [OpID: UInt64] = [:]
    var letterArrivals: UInt64 = 0

    public init(config: ReplicaConfig = .init()) { self.config = config }

    public var count: Int { ops.count }
    /// Packs whose genesis is held.
    public var packCount: Int { packs.count }
    public var pendingCount: Int { pendingIDs.count }
    public func contains(_ id: OpID) -> Bool { ops[id] != nil }
    /// An op of the set, or of a tombstone's deletion proof (what directory answers may send).
    public func op(_ id: OpID) -> SignedOp? { ops[id] ?? proofOp(id) }
    public func pack(_ id: PackID) -> PackState? { packs[id] }
    /// Whether the pack's genesis is held (without copying its state, as `pack(_:) != nil` does).
    public func hasPack(_ id: PackID) -> Bool { packs.keys.contains(id) }
    public func packIDs() -> [PackID] { packs.keys.sorted() }

    /// What the geofence rule needs of a pack (its genesis read once: every op admitted asks).
    public func scope(_ id: PackID) -> PackScope? { packs[id]?.scope }

    /// Known, not deleted, not expired packs, sorted, with their scope.
    public func liveScopes(nowMs: UInt64) -> [PackScope] {
        var out: [PackScope] = []
        for i in packs.indices where !packs.values[i].deleted && !packs.values[i].isExpired(nowMs: nowMs) {
            out.append(packs.values[i].scope)
        }
        return out.sorted { $0.id < $1.id }
    }
    public var allOps: Dictionary<OpID, SignedOp>.Values { ops.values }

    /// The earliest expiry after `nowMs` of a pack live at `nowMs` (`.max`: none). Views of
    /// the live packs computed at `nowMs` hold until then, or until `packsStamp` changes:
    /// without a new op, a pack's expiry never moves, and an expired or deleted pack stays so.
    /// Also whether a pack not deleted has expired by `nowMs` (a later op may yet move its
    /// expiry past `nowMs` if the clock went back: see `directoryStamp`).
    public func liveWindow(nowMs: UInt64) -> (untilMs: UInt64, anyExpired: Bool) {
        var until = UInt64.max, expired = false
        for i in packs.indices where !packs.values[i].deleted {
            if let e = packs.values[i].expiresMs { if e > nowMs { until = min(until, e) } else { expired = true } }
        }
        return (until, expired)
    }

    /// (hlc, id) of every op of a pack, genesis included, in ascending order.
    public func opIDs(inPack id: PackID) -> [(hlc: HLC, id: OpID)] { packs[id]?.order ?? [] }

    /// Known, not deleted, not expired.
    public func isLive(_ id: PackID, nowMs: UInt64) -> Bool {
        guard let p = packs[id] else { return false }
        return !p.deleted && !p.isExpired(nowMs: nowMs)
    }

    public func isModerator(_ key: PublicKey, of pack: PackState) -> Bool {
        key == pack.alpha || config.adminKeys.contains(key)
    }

    // MARK: - Admission

    /// Decodes, verifies and admits envelope bytes as received from anywhere.
    public mutating func receive(_ bytes: [UInt8], nowMs: UInt64) -> AdmitOutcome {
        let env: Envelope
        do { env = try Envelope(serialized: bytes) } catch let e as ModelError {
            return .rejected(e.code == .tooLarge ? .tooLarge : .malformed, e.reason)
        } catch { return .rejected(.malformed, "\(error)") }
        let id = OpID.of(body: env.body)
        if ops[id] != nil || pendingIDs.contains(id) { return .duplicate }
        let op: SignedOp
        do { op = try SignedOp.open(env) } catch let e as ModelError {
            switch e.code {
            case .tooLarge: return .rejected(.tooLarge, e.reason)
            case .malformed: return .rejected(.malformed, e.reason)
            case .invalid: return .rejected(e.reason == "bad signature" ? .badSignature : .malformed, e.reason)
            }
        } catch { return .rejected(.malformed, "\(error)") }
        return admit(op, nowMs: nowMs)
    }

    /// Admits an op whose signature has been verified (`SignedOp.open` or `SignedOp.sign`).
    /// `local`: the node's own op (a pack it creates does not count against the cap on
    /// packs learned from others).
    /// `arrival`: where a genesis from elsewhere came from (the quota of rule 5); nil for the
    /// node's own ops, restores and callers with no network.
    public mutating func admit(_ op: SignedOp, nowMs: UInt64, local: Bool = false, arrival: Arrival? = nil) -> AdmitOutcome {
        if ops[op.id] != nil || pendingIDs.contains(op.id) { return .duplicate }
        if offersSmallerDeletion(op) {
            replaceProof(of: op.packID, with: op)
            return .rejected(.packDeleted, "pack \(op.packID.short()) is gone; its tombstone now keeps this smaller deletion")
        }
        agePending(nowMs: nowMs)
        if let outcome = precheck(op, nowMs: nowMs, local: local, arrival: arrival) {
            guard outcome == .pending else { return outcome }
            if pendingIDs.count >= config.pendingLimit {
                guard let victim = pendingVictim(for: arrival?.source ?? "") else {
                    return .rejected(.unknownPack, "pack \(op.packID.short()) unknown and the pending buffer is full")
                }
                dropPending(victim.id, pack: victim.pack)
            }
            pending[op.packID, default: []].append(op)
            pendingIDs.insert(op.id)
            holdPending(op, source: arrival?.source ?? "")
            if pendingSince[op.packID] == nil { pendingSince[op.packID] = nowMs }
            return .pending
        }
        var remote: String?
        if case .createPack = op.body.kind, !local, !config.adminKeys.contains(op.author) {
            if remotePackCount >= config.maxRemotePacks, let victim = displacementVictim(for: op, arrival: arrival) { displace(victim) }
            remote = arrival?.source ?? ""
        }
        apply(op, remoteSource: remote)
        rebuildQueued()
        var admitted = [op]
        if case .createPack = op.body.kind, let held = pending.removeValue(forKey: op.id) {
            pendingSince[op.id] = nil
            for h in held {
                pendingIDs.remove(h.id)
                releasePending(h.id)
                if case .admitted(let more) = admit(h, nowMs: nowMs) { admitted += more }
            }
        }
        return .admitted(admitted)
    }

    /// Drops the ops held for packs whose genesis has not come within `pendingMaxAgeMs`
    /// (checked at most once a second): a peer cannot pin ops for packs that do not exist
    /// in the buffer for good. Anti-entropy brings them again once the genesis is here.
    mutating func agePending(nowMs: UInt64) {
        guard !pendingSince.isEmpty, nowMs >= nextPendingSweepMs else { return }
        nextPendingSweepMs = nowMs + 1000
        for (pack, since) in pendingSince where nowMs >= since && nowMs - since >= Self.pendingMaxAgeMs {
            for op in pending.removeValue(forKey: pack) ?? [] { pendingIDs.remove(op.id); releasePending(op.id) }
            pendingSince[pack] = nil
        }
    }

    /// Adds an op to the set and its indexes. No checks: callers checked, or trust the source.
    /// `remoteSource`: a genesis learned from others, from that network group.
    mutating func apply(_ received: SignedOp, remoteSource: String? = nil) {
        var op = received
        ops[op.id] = op
        if case .createPack(let c) = op.body.kind {
            if packs[op.id] == nil {
                var opened: CreatePack?
                if c.inviteOnly, let k = packKeys[op.id]?[0] { opened = PrivatePack.openMeta(c, key: k) }
                packs[op.id] = PackState(
                    genesis: op, opened: opened, isAdmin: config.adminKeys.contains(op.author), remoteSource: remoteSource)
                if remoteSource != nil { remotePackCount += 1 }
                directoryChanged()
            }
            return
        }
        let pid = op.packID
        guard packs[pid] != nil else { return }
        packs[pid]!.insertOrdered(op)
        // Memos of checks this op passed (admission re-checks are pure, so caching is safe).
        packs[pid]!.stamps[op.author] = op.body.stamp
        if let loc = op.body.location, packs[pid]!.locked, !packs[pid]!.cellsInside.contains(loc),
            packs[pid]!.fence?.contains(geohash: loc) == true
        {
            packs[pid]!.cellsInside.insert(loc)
        }
        let alpha = packs[pid]!.alpha
        if case .sealed(let s) = op.body.kind {
            // Every replica counts the same participants, members or not: by the clear author.
            if op.author != alpha { packs[pid]!.participants.insert(op.author) }
            if let inner = openSealed(s, op: op, in: pid) {
                op = op.opened(as: inner)
                ops[op.id] = op
                packs[pid]!.members.insert(op.author)
            }
        }
        switch op.body.kind {
        case .post:
            packs[pid]!.posts.append(op.id)
            if op.author != alpha { packs[pid]!.participants.insert(op.author) }
        case .comment(let c):
            packs[pid]!.commentsByPost[c.post, default: []].append(op.id)
            if op.author != alpha { packs[pid]!.participants.insert(op.author) }
        case .vote(let v):
            if op.author != alpha { packs[pid]!.participants.insert(op.author) }
            packs[pid]!.votes[v.target, default: [:]][op.author] =
                .merged(packs[pid]!.votes[v.target]?[op.author], hlc: op.hlc, id: op.id, value: v.value)
        case .delete(let d):
            if d.target == pid {
                // Only moderators' pack deletions are admitted (restore trusts the store).
                if let old = packs[pid]!.deletion {
                    guard (op.hlc, op.id) < (old.hlc, old.id) else { remove(op.id, in: pid); break }
                    remove(old.id, in: pid)
                }
                packs[pid]!.deletion = (op.hlc, op.id)
                directoryChanged()
            }
            packs[pid]!.deleteRequests[d.target, default: []].insert(op.author)
        case .editPack(let e):
            packs[pid]!.applyEdit(e, hlc: op.hlc, id: op.id)
            packs[pid]!.edits.append((op.hlc, op.id))
            directoryChanged()
        case .pick(let k):
            if op.author != alpha { packs[pid]!.participants.insert(op.author) }
            packs[pid]!.picks[k.ask, default: [:]][op.author] =
                .merged(packs[pid]!.picks[k.ask]?[op.author], hlc: op.hlc, id: op.id, value: k.caption)
        case .moderate(let m):
            if packs[pid]!.moderation[m.target] == nil {
                packs[pid]!.moderation[m.target] = LWW(hlc: op.hlc, id: op.id, value: m.hidden)
            } else {
                packs[pid]!.moderation[m.target]!.merge(hlc: op.hlc, id: op.id, value: m.hidden)
            }
        case .ban(let b):
            packs[pid]!.bans[b.author] = .merged(packs[pid]!.bans[b.author], hlc: op.hlc, id: op.id, value: b.banned)
        case .edit(let e):
            packs[pid]!.applyPostEdit(e, author: op.author, hlc: op.hlc, id: op.id)
        case .report:
            applyReport(op, in: pid)
        case .place, .review, .reviewReply:
            if op.author != alpha { packs[pid]!.participants.insert(op.author) }
            packs[pid]!.places.apply(op)
        case .profile(let p):
            if packs[pid]!.profiles[op.author] == nil {
                packs[pid]!.profiles[op.author] = LWW(hlc: op.hlc, id: op.id, value: p)
            } else {
                packs[pid]!.profiles[op.author]!.merge(hlc: op.hlc, id: op.id, value: p)
            }
        case .packKeys(let k):
            packs[pid]!.keyOps.append(op.id)
            // An earlier rotation time can close ops already opened: only those later than it,
            // so a rotation newer than every op of the pack (the usual case) rebuilds nothing.
            if packs[pid]!.rotations[k.epoch].map({ op.hlc < $0 }) ?? true {
                packs[pid]!.rotations[k.epoch] = op.hlc
                if packKeys[pid] != nil, packs[pid]!.order.last?.id != op.id { rebuildQueue.insert(pid) }
            }
        case .directMessage:
            if letterArrival[op.id] == nil {
                letterArrivals &+= 1
                letterArrival[op.id] = letterArrivals
            }
        case .createPack, .sealed, .joined:
            break
        }
    }

    /// Rule 8a (PROTOCOL.md §4): per pack and reporter, the reports of the hours within
    /// `reportWindowHours` of the reporter's newest report, at most `reportsPerHour` per hour
    /// (the smallest by (hlc, id)); everything else leaves the set (evicted). The result is a
    /// function of the union of reports seen, whatever their order.
    mutating func applyReport(_ op: SignedOp, in pid: PackID) {
        let hour = Self.reportHour(op.hlc)
        var slots = packs[pid]!.reportSlots[op.author] ?? [:]
        var kept = slots[hour] ?? []
        let key = (op.hlc, op.id)
        let at = kept.firstIndex { key < ($0.hlc, $0.id) } ?? kept.count
        kept.insert((op.hlc, op.id), at: at)
        if kept.count > Limits.reportsPerHour { remove(kept.removeLast().id, in: pid) }
        slots[hour] = kept
        if let newest = slots.keys.max() {
            for h in slots.keys where h &+ Limits.reportWindowHours <= newest {
                for old in slots[h]! { remove(old.id, in: pid) }
                slots[h] = nil
            }
        }
        packs[pid]!.reportSlots[op.author] = slots
    }

    /// The clock hour a report counts in (PROTOCOL.md §4, rule 8a).
    static func reportHour(_ hlc: HLC) -> UInt64 { hlc.physicalMs / Lifetime.hour }

    /// Takes an op out of the set: a report beyond rule 8a, or a pack deletion a smaller one
    /// replaced (rule 8b).
    mutating func remove(_ id: OpID, in pid: PackID) {
        guard ops.removeValue(forKey: id) != nil else { return }
        packs[pid]?.removeOrdered(id)
        evicted.append((pid, id))
    }

    /// The ops evicted since the last call, with their packs (the store deletes them).
    public mutating func takeEvicted() -> [(pack: PackID, id: OpID)] {
        defer { evicted = [] }
        return evicted
    }

    // MARK: - Reload and purge

    /// Rebuilds state from ops read back from the local store: no signature checks, no
    /// time checks (they passed admission when first stored).
    /// `own`: packs this node created or joined (they do not count against the cap on
    /// packs learned from others).
    public mutating func restore(_ trusted: [SignedOp], tombstones stones: [Tombstone] = [], own: Set<PackID> = []) {
        for t in stones { tombstones[t.pack] = t }
        rebuildProofIndex()
        for op in trusted where ops[op.id] == nil {
            if case .createPack = op.body.kind {
                let remote = !own.contains(op.id) && !config.adminKeys.contains(op.author)
                apply(op, remoteSource: remote ? Self.restoredSource : nil)
            }
        }
        for op in trusted where ops[op.id] == nil {
            guard tombstones[op.packID] == nil else { continue }
            if packs[op.packID] != nil {
                apply(op); rebuildQueued()
            } else if !pendingIDs.contains(op.id) {
                pending[op.packID, default: []].append(op); pendingIDs.insert(op.id); holdPending(op, source: Self.restoredSource)
            }
        }
    }

    /// Drops the ops of packs past their maximum lifetime, and of deleted packs, keeping
    /// a tombstone of each. Returns the tombstones made (the store deletes the same ops).
    public mutating func purge(nowMs: UInt64) -> [Tombstone] {
        var made: [Tombstone] = []
        for (id, p) in packs {
            let reason: Tombstone.Reason
            if p.deleted { reason = .deleted } else if let after = p.purgeAfterMs, nowMs >= after { reason = .expired } else { continue }
            let proof = p.deletion.flatMap { d in ops[d.id].map { DeletionProof(genesis: p.genesis, deletion: $0) } }
            for entry in p.order {
                ops.removeValue(forKey: entry.id)
                letterArrival.removeValue(forKey: entry.id)
            }
            removePackState(id)
            packKeys[id] = nil
            directoryChanged()
            let t = Tombstone(
                pack: id, reason: reason, expiresMs: p.isAdmin ? nil : p.createdMs &+ Lifetime.maxMs &+ Lifetime.purgeGraceMs,
                proof: proof)
            tombstones[id] = t
            made.append(t)
        }
        for t in made {
            if let held = pending.removeValue(forKey: t.pack) {
                held.forEach {
                    pendingIDs.remove($0.id); releasePending($0.id)
                }
            }
        }
        if !made.isEmpty { rebuildProofIndex() }
        return made.sorted { $0.pack < $1.pack }
    }

    /// Forgets the tombstones whose genesis can no longer be admitted (PROTOCOL.md §6).
    /// Returns their pack ids (the store drops the same).
    public mutating func expireTombstones(nowMs: UInt64) -> [PackID] {
        let gone = tombstones.values.filter { t in t.expiresMs.map { nowMs >= $0 } ?? false }.map(\.pack).sorted()
        for p in gone { tombstones[p] = nil }
        if !gone.isEmpty { rebuildProofIndex() }
        return gone
    }
}

extension Replica {
    /// State-based merge: admits every op of `other`, held ones included (union of the op
    /// sets). Geneses go first so that nothing waits in the pending buffer longer than needed.
    public mutating func merge(_ other: Replica, nowMs: UInt64) {
        let incoming = (Array(other.ops.values) + other.pending.values.joined()).sorted { a, b in
            let ga = a.body.packID == nil, gb = b.body.packID == nil
            return ga != gb ? ga : a.id < b.id
        }
        for op in incoming { _ = admit(op, nowMs: nowMs) }
    }
}
