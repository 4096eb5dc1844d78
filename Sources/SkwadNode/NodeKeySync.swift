import SkwadCrypto
import SkwadModel
import SkwadReplica
import SkwadStore

/// Key sync of invite-only packs (PROTOCOL.md §3b, "Key sync"): a member's node sends what it
/// writes in such a pack only once it holds what its links hold of the pack (the Alpha's key
/// handouts included), so that nothing it wrote while out of touch goes out sealed under a key
/// the pack has moved on from (which a removed member still holds). Until then its ops are
/// held: signed, kept in the store's settings, neither gossiped nor in the replica. The Alpha,
/// for its part, hands the current key to every member it learns of after a rotation.
extension Node {
    /// Ops waiting for a key sync, at most (all packs together).
    public static let heldCapacity = 256
    static let heldPrefix = "held."
    /// Per invite-only pack this node is the Alpha of: the epoch and the pseudonyms its key was
    /// handed to ("EPOCH:hex,hex,…").
    static let handedPrefix = "handed."
    /// Members one pack's current key is handed to, at most (beyond it, late joiners wait for
    /// the next rotation).
    public static let handedCapacity = 1000

    static func loadHeld(_ store: Store) throws -> [OpID: SignedOp] {
        var out: [OpID: SignedOp] = [:]
        for (_, hex) in try store.settings(prefix: heldPrefix).sorted(by: { $0.key < $1.key }) {
            guard out.count < heldCapacity, let bytes = Hex.decode(hex), let env = try? Envelope(serialized: bytes),
                let op = try? SignedOp(trusted: env)
            else { continue }
            out[op.id] = op
        }
        return out
    }

    /// Whether the node is key-synced for `pack` now: online, and a reconciliation of the pack
    /// with a link ended settled since it came online.
    func isKeySynced(_ pack: PackID) -> Bool { network?.engine.isKeySynced(pack) ?? false }

    /// A local op that must wait: sealed in an invite-only pack by a member (not its Alpha, who
    /// alone moves the key), and written before a key sync or under an epoch older than the
    /// newest the pack announces.
    func mustHold(_ op: SignedOp) -> Bool {
        guard case .sealed(let s) = op.body.kind, let pack = replica.pack(op.packID), pack.isPrivate, op.author != pack.alpha
        else { return false }
        return !isKeySynced(op.packID) || s.epoch < replica.newestEpoch(op.packID)
    }

    /// Keeps `op` back (committed to the store's settings with `changes`), and asks a link for
    /// the pack's key sync.
    func hold(_ op: SignedOp, with changes: [LocalChange]) throws {
        guard features.privatePacks.heldCount < Self.heldCapacity else {
            throw NodeError(
                "\(Self.heldCapacity) ops already wait to be sent: go online, near a member of the pack, before writing more")
        }
        try commit(changes + [.setting(Self.heldPrefix + op.id.hex, Hex.encode(op.envelope.serialized()))])
        features.privatePacks.keep(op)
        own.clocks.observe(op.hlc, in: op.packID, physicalMs: now())
        stats.heldOps += 1
        askKeySync(op.packID)
    }

    /// Whether `id` is an op of this node waiting for its pack's key sync.
    public func isHeld(_ id: OpID) -> Bool { features.privatePacks.isHeld(id) }

    /// How many of this node's ops wait for a key sync.
    public var heldCount: Int { features.privatePacks.heldCount }

    /// Reconciles `pack` with a link now, unless it is key-synced already.
    func askKeySync(_ pack: PackID) {
        guard network != nil, !isKeySynced(pack) else { return }
        carryOut(network!.engine.syncPack(pack, nowMs: now(), replica: replica))
    }

    /// Packs with held ops: ask for their key sync (on coming online).
    func askKeySyncForHeld() {
        for pack in features.privatePacks.packsWaiting { askKeySync(pack) }
    }

    /// After the engine's receive: the packs that just had their key sync send what waited.
    func takeKeySyncs() {
        guard network != nil else { return }
        for pack in network!.engine.takeKeySynced() {
            features.privatePacks.takeKeys(replica.packKeyOps(pack), node: self)
            sendHeld(pack)
        }
    }

    /// Sends the held ops of a key-synced pack, oldest first: as written when no rotation
    /// precedes them (they read as written before it); sealed again under the newest key, as a
    /// new op, when one does and this node holds that key; otherwise they wait for the Alpha's
    /// handout. An op the pack no longer takes (gone, a rate) is dropped with its count.
    func sendHeld(_ pack: PackID) {
        guard isKeySynced(pack) else { return }
        let waiting = features.privatePacks.waiting(in: pack)
        guard !waiting.isEmpty else { return }
        let ring = replica.packKeyRing(pack)
        let newest = replica.newestEpoch(pack)
        for op in waiting {
            guard case .sealed(let s) = op.body.kind else { continue }
            let forget = LocalChange.setting(Self.heldPrefix + op.id.hex, nil)
            do {
                if !replica.isStale(epoch: s.epoch, hlc: op.hlc, in: pack) {
                    let nowMs = now()
                    if let outcome = replica.precheck(op, nowMs: nowMs, local: true) { throw NodeError.from(outcome) }
                    try store.append([op], with: [forget])
                    features.privatePacks.release(op.id)
                    _ = replica.admit(op, nowMs: nowMs, local: true)
                    publishLocal(op)
                } else if let top = ring.keys.max(), top >= newest, let k = ring[s.epoch],
                    let inner = s.open(key: k, pack: pack, author: op.author, hlc: op.hlc)
                {
                    try commit([forget])
                    features.privatePacks.release(op.id)
                    let (fresh, more) = try sign(inner, in: pack)
                    try commit(fresh, with: more)
                    stats.heldResealed += 1
                }
            } catch {
                features.privatePacks.release(op.id)
                try? commit([forget])
                stats.heldDropped += 1
            }
        }
    }

    /// This node's Alpha removed it from `pack` (a handout's box to its pseudonym held the
    /// removal notice): the pack's keys and what waited go, the pack leaves `packs`, and the
    /// inbox says so.
    func removedFrom(_ pack: PackID) {
        let name = replica.pack(pack)?.create.name ?? ""
        let waiting = features.privatePacks.waiting(in: pack).map(\.id)
        var changes: [LocalChange] = [.forgetPackKeys(pack), .joined(pack, false, atMs: now())]
        changes += waiting.map { .setting(Self.heldPrefix + $0.hex, nil) }
        do {
            try commit(changes)
            try store.addNotices([InboxNotice(kind: .removed, pack: pack, name: name, atMs: now())])
        } catch { stats.storeErrors += 1 }
        for id in waiting { features.privatePacks.release(id) }
        stats.heldDropped += waiting.count
    }

    // MARK: the Alpha's handouts

    /// The epoch and the pseudonyms handed the current key of a pack this node is the Alpha of.
    func handed(_ pack: PackID) -> (epoch: UInt32, members: Set<PublicKey>) {
        guard let text = try? store.setting(Self.handedPrefix + pack.hex), let colon = text.firstIndex(of: ":"),
            let epoch = UInt32(text[..<colon])
        else { return (0, []) }
        let keys = text[text.index(after: colon)...].split(separator: ",").compactMap { Hex.decode(String($0)) }
        return (epoch, Set(keys.compactMap { try? PublicKey(bytes: $0) }))
    }

    static func handedChange(_ pack: PackID, epoch: UInt32, members: Set<PublicKey>) -> LocalChange {
        .setting(handedPrefix + pack.hex, "\(epoch):" + members.map(\.hex).sorted().joined(separator: ","))
    }

    /// The Alpha hands its newest key to the members among `ops`' packs it has not handed it
    /// to (their `joined` reached it after the rotation), unless it removed them: one
    /// `PackKeys` of the same epoch per 10 of them.
    func handOutLate(_ ops: [SignedOp]) {
        for pack in Set(ops.map(\.packID)).sorted() {
            guard let state = replica.pack(pack), state.isPrivate, let me = key(for: pack), me.publicKey == state.alpha,
                let epoch = replica.packKeyRing(pack).keys.max(), epoch > 0, let key = replica.packKeyRing(pack)[epoch]
            else { continue }
            let before = handed(pack)
            var given = before.epoch == epoch ? before.members : []
            guard let removed = try? store.removedMembers(pack) else { stats.storeErrors += 1; continue }
            let late = replica.privateMembers(pack).subtracting(removed).subtracting(given).sorted()
            let room = max(0, Self.handedCapacity - given.count)
            for chunk in stride(from: 0, to: min(late.count, room), by: Limits.maxPackKeyEntries).map({
                Array(late[$0..<min($0 + Limits.maxPackKeyEntries, late.count, room)])
            }) {
                do {
                    let (op, more) = try sign(.packKeys(try PackKeys.make(key: key, epoch: epoch, members: chunk)), in: pack)
                    given.formUnion(chunk)
                    try commit(op, with: more + [Self.handedChange(pack, epoch: epoch, members: given)])
                    stats.lateHandouts += chunk.count
                } catch {
                    stats.handoutsFailed += 1
                    break
                }
            }
        }
    }
}
