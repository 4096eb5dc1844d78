import SkwadCrypto
import SkwadModel
import SkwadReplica
import SkwadStore

/// Invite-only packs (PROTOCOL.md §3b): create with a pack key, invite with a join code, join
/// with one, seal every op of such a pack, and (the Alpha) remove a member by rotating the key.
extension Node {
    /// Invite-only packs this node holds keys of, at most.
    public static let privatePackCapacity = 256

    func checkPrivateCapacity(adding pack: PackID) throws {
        var held = Set(replica.packIDs().filter { !replica.packKeyRing($0).isEmpty })
        held.insert(pack)
        guard held.count <= Self.privatePackCapacity else {
            throw NodeError("this node holds keys of \(Self.privatePackCapacity) invite-only packs, its limit: leave one first")
        }
    }

    /// A join code for an invite-only pack this node holds a key of: the pack, its newest key,
    /// and this node's address (online only: the joiner reaches the pack through it).
    public func invite(_ ref: String) throws -> String {
        let p = try resolvePack(ref)
        guard let state = replica.pack(p.id), state.isPrivate else {
            throw NodeError("pack '\(p.name)' is public: anyone can join it by name")
        }
        let ring = replica.packKeyRing(p.id)
        guard let epoch = ring.keys.max(), let key = ring[epoch] else { throw NodeError("you hold no key of pack '\(p.name)'") }
        guard let address = reachableAddresses.first(where: { !$0.hasPrefix("0.0.0.0:") }) ?? listenAddress else {
            throw NodeError("go online first: a join code carries this node's address")
        }
        return JoinCode(pack: p.id, epoch: epoch, key: key, genesisKey: epoch > 0 ? ring[0] : nil, address: address).encoded()
    }

    /// Joins an invite-only pack with a join code: keeps its keys, contacts the member the code
    /// names, fetches the genesis by the pack's whole id (awaited at most `waitMs`), and
    /// publishes a sealed `joined` so that the Alpha hands this pseudonym later keys.
    public func joinInvite(_ code: String, waitMs: UInt64 = 5000) async throws -> PackSummary {
        let c: JoinCode
        do { c = try JoinCode(parsing: code) } catch { throw NodeError("\(error)") }
        try checkPrivateCapacity(adding: c.pack)
        var changes: [LocalChange] = [.packKey(c.pack, epoch: c.epoch, key: c.key)]
        if let g = c.genesisKey, c.epoch > 0 { changes.append(.packKey(c.pack, epoch: 0, key: g)) }
        if let g = replica.pack(c.pack)?.genesis, case .createPack(let cp) = g.body.kind {
            guard cp.inviteOnly, PrivatePack.openMeta(cp, key: c.genesisKey ?? c.key) != nil else {
                throw NodeError("this join code's key does not open pack \(c.pack.short()): a wrong or forged code")
            }
        }
        // The keys go to the replica first (the pack is listed only to key holders), to the
        // store once the genesis is here and opens with them.
        let hadKeys = !replica.packKeyRing(c.pack).isEmpty
        replica.addPackKey(c.key, epoch: c.epoch, pack: c.pack)
        if let g = c.genesisKey, c.epoch > 0 { replica.addPackKey(g, epoch: 0, pack: c.pack) }
        let p: PackSummary
        do {
            if !c.address.isEmpty { try contact(c.address) }
            p = try await awaitPack(c.pack, waitMs: waitMs)
        } catch {
            if !hadKeys { replica.forgetPackKeys(c.pack) }
            let from = c.address.isEmpty ? "the network" : c.address
            throw NodeError("pack \(c.pack.short()) did not arrive from \(from): is that member online?")
        }
        // The genesis is here: the key must open its name, else the code was forged.
        guard let g = replica.pack(c.pack), case .createPack(let cp) = g.genesis.body.kind, cp.inviteOnly,
            PrivatePack.openMeta(cp, key: c.genesisKey ?? c.key) != nil
        else {
            if !hadKeys { replica.forgetPackKeys(c.pack) }
            throw NodeError("this join code's key does not open pack \(c.pack.short()): a wrong or forged code")
        }
        // A key sync before anything is kept: a code made before a rotation must not join (its
        // key is one the pack moved on from), and says so.
        await awaitKeySync(c.pack, waitMs: waitMs)
        if let refusal = staleCodeRefusal(c, hadKeys: hadKeys) {
            if !hadKeys { replica.forgetPackKeys(c.pack) }
            throw NodeError(refusal)
        }
        changes.append(.joined(c.pack, true, atMs: now()))
        try commit(changes)
        features.privatePacks.takeKeys(replica.packKeyOps(c.pack), node: self)  // handouts to this pseudonym already held
        // Once per pseudonym: an Alpha hands later keys to the authors whose sealed ops it opened.
        if let me = key(for: c.pack)?.publicKey, me != g.alpha, !replica.privateMembers(c.pack).contains(me) {
            let (op, more) = try sign(.joined, in: c.pack)
            try commit(op, with: more)
        }
        return replica.pack(c.pack).map { replica.summary($0, from: location) } ?? p
    }

    /// Waits (bounded by `waitMs`) for a key sync of `pack`, asking a link for it at once and
    /// again every second.
    func awaitKeySync(_ pack: PackID, waitMs: UInt64) async {
        let polls = max(1, waitMs / 50)
        for i in 0..<polls {
            if isKeySynced(pack) || network == nil { return }
            if i % 20 == 0 { askKeySync(pack) }
            try? await Task.sleep(nanoseconds: 50_000_000)
        }
    }

    /// Why a join code cannot join: the pack announces a newer epoch than the code's, and no
    /// handout of it opens with this node's pseudonym (it was never handed that key; a box
    /// holding the removal notice: it was removed). Nil when the code is current.
    func staleCodeRefusal(_ c: JoinCode, hadKeys: Bool) -> String? {
        let newest = replica.newestEpoch(c.pack)
        guard newest > c.epoch, let me = key(for: c.pack) else { return nil }
        var opened: [UInt8]?
        for op in replica.packKeyOps(c.pack) {
            guard case .packKeys(let k) = op.body.kind, k.epoch == newest, let key = k.open(with: me) else { continue }
            opened = key
            break
        }
        if opened == PackKeys.removedNotice {
            return "you were removed from pack \(c.pack.short()): its Alpha changed the key; this code no longer joins"
        }
        if opened != nil || hadKeys { return nil }
        return "this join code is out of date: pack \(c.pack.short()) changed its key (epoch \(newest)) after the code was made; "
            + "ask a member for a new code"
    }

    /// Waits (bounded by `waitMs`) for an invite-only pack's genesis, asking the links for it by
    /// its whole id at once and again every second (links may still be coming up).
    func awaitPack(_ id: PackID, waitMs: UInt64) async throws -> PackSummary {
        let polls = max(1, waitMs / 50)
        for i in 0..<polls {
            if replica.hasPack(id), let p = replica.pack(id), replica.isLive(id, nowMs: now()) { return replica.summary(p, from: location) }
            if i % 20 == 0 { _ = askNeighbours(for: id.hex) }
            try? await Task.sleep(nanoseconds: 50_000_000)
        }
        throw NodeError("pack \(id.short()) did not arrive")
    }

    /// The Alpha removes a member from its invite-only pack: a new key (the next epoch), sealed
    /// to every other member whose sealed ops opened here, in `PackKeys` ops of at most 10.
    /// Returns the new epoch and how many members got the key.
    public func removeMember(pack ref: String, author tag: String) throws -> (epoch: UInt32, kept: Int) {
        let p = try resolvePack(ref)
        guard let state = replica.pack(p.id), state.isPrivate else {
            throw NodeError("pack '\(p.name)' is public: there is no one to remove")
        }
        guard let me = key(for: p.id), me.publicKey == state.alpha else { throw NodeError("only the pack's Alpha removes members") }
        let who = try resolveAuthor(tag)
        guard who != me.publicKey else { throw NodeError("the Alpha cannot remove itself (delete the pack instead)") }
        let removed: Set<PublicKey>
        do { removed = try store.removedMembers(p.id) } catch { throw NodeError("\(error)") }
        let kept = replica.privateMembers(p.id).subtracting(removed).subtracting([who]).sorted()
        let epoch = max(replica.newestEpoch(p.id), replica.packKeyRing(p.id).keys.max() ?? 0) &+ 1
        guard epoch <= Limits.maxPackEpoch else { throw NodeError("pack '\(p.name)' has used all \(Limits.maxPackEpoch) key epochs") }
        let newKey = SecureRandom.bytes(Limits.packKeyBytes)
        var changes: [LocalChange] = [.removedMember(p.id, who)]
        // The removed pseudonym gets a box too, holding the removal notice (it learns it was
        // removed; relays cannot tell that box from the others).
        let boxes = kept.map { (key: $0, removed: false) } + [(key: who, removed: true)]
        let chunks = stride(from: 0, to: boxes.count, by: Limits.maxPackKeyEntries).map {
            Array(boxes[$0..<min($0 + Limits.maxPackKeyEntries, boxes.count)])
        }
        var ops: [SignedOp] = []
        for chunk in chunks {
            let keys: PackKeys
            do {
                keys = try PackKeys.make(
                    key: newKey, epoch: epoch, members: chunk.filter { !$0.removed }.map { $0.key },
                    removed: chunk.filter { $0.removed }.map { $0.key })
            } catch { throw NodeError("\(error)") }
            let (op, more) = try sign(.packKeys(keys), in: p.id)
            ops.append(op); changes += more
        }
        changes.append(Self.handedChange(p.id, epoch: epoch, members: Set(kept)))
        // The key goes to the store with the first op; later ops are committed one by one.
        try commit(ops[0], with: changes + [.packKey(p.id, epoch: epoch, key: newKey)])
        for op in ops.dropFirst() { try commit(op) }
        return (epoch, kept.count)
    }

}

/// Invite-only packs as a feature of the node: it keeps the ops held for a key sync
/// (NodeKeySync.swift); it takes the keys handed to this node and hands its own out late
/// (the Alpha) as ops arrive, seals what this node signs in such a pack, and keeps the keys
/// committed in the replica.
final class PrivatePacks: NodeFeature {
    /// Ops of invite-only packs written before a key sync, held back from gossip until then;
    /// kept in the store's settings too. At most `Node.heldCapacity`.
    private(set) var held: [OpID: SignedOp] = [:]

    var heldCount: Int { held.count }
    func isHeld(_ id: OpID) -> Bool { held[id] != nil }
    func keep(_ op: SignedOp) { held[op.id] = op }
    func release(_ id: OpID) { held[id] = nil }
    /// The ops waiting in `pack`, oldest first.
    func waiting(in pack: PackID) -> [SignedOp] {
        held.values.filter { $0.packID == pack }.sorted { ($0.hlc, $0.id) < ($1.hlc, $1.id) }
    }
    /// The packs with ops waiting, in id order.
    var packsWaiting: [PackID] { Set(held.values.map(\.packID)).sorted() }

    func committed(_ ops: [SignedOp], node: isolated Node) {
        takeKeys(ops, node: node)
        node.handOutLate(ops)  // the Alpha: members whose `joined` came after a rotation
    }

    /// The op kind as it is signed in `pack`: sealed under the newest key held when the pack
    /// is invite-only (pack deletions and key handouts stay clear).
    func seal(_ kind: OpKind, pack: PackState, author: PublicKey, node: isolated Node) throws -> OpKind {
        guard pack.isPrivate else { return kind }
        switch kind {
        case .packKeys: return kind
        case .delete(let d) where d.target == pack.id: return kind
        default: break
        }
        guard kind.mayBeSealed else { throw NodeError("a \(kind.name) is not available in an invite-only pack") }
        let ring = node.replica.packKeyRing(pack.id)
        // Under an older epoch than the pack announces (the Alpha has not handed this member the
        // new key yet), the op is sealed under the newest key held and waits (`mustHold`).
        guard let epoch = ring.keys.max(), let key = ring[epoch] else { throw NodeError("you hold no key of this invite-only pack") }
        do {
            return .sealed(
                try Sealed.seal(
                    kind, key: key, epoch: epoch, pack: pack.id, author: author,
                    nonce: SecureRandom.bytes(AEAD.nonceCount)))
        } catch {
            throw NodeError("\(error)")
        }
    }

    /// Keys handed out by an Alpha among newly admitted ops: those that open with this node's
    /// pseudonym are kept (store, then replica), and what waited for them is sent; a box
    /// holding the removal notice removes this node from the pack (`removedFrom`). Only for
    /// packs this node is a member of (not their Alpha).
    func takeKeys(_ ops: [SignedOp], node: isolated Node) {
        var took: Set<PackID> = []
        for op in ops {
            guard case .packKeys(let k) = op.body.kind, !node.replica.packKeyRing(op.packID).isEmpty,
                node.replica.packKeyRing(op.packID)[k.epoch] == nil, let me = node.key(for: op.packID),
                me.publicKey != node.replica.pack(op.packID)?.alpha
            else { continue }
            guard let packKey = k.open(with: me) else { continue }
            if packKey == PackKeys.removedNotice {
                node.removedFrom(op.packID)
                continue
            }
            do { try node.commit([.packKey(op.packID, epoch: k.epoch, key: packKey)]) } catch { node.stats.storeErrors += 1 }
            took.insert(op.packID)
        }
        for pack in took.sorted() { node.sendHeld(pack) }
    }

    func apply(_ change: LocalChange, node: isolated Node) {
        switch change {
        case .packKey(let p, let epoch, let k): node.replica.addPackKey(k, epoch: epoch, pack: p)
        case .forgetPackKeys(let p): node.replica.forgetPackKeys(p)
        default: break
        }
    }
}

extension Node {
    /// The pseudonym a tag names (as the feed shows it).
    public func authorKey(_ tag: String) throws -> PublicKey { try resolveAuthor(tag) }
}
