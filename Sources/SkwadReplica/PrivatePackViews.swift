import SkwadCrypto
import SkwadModel

/// Invite-only packs (PROTOCOL.md §3b). Admission judges only what is clear: the kind class,
/// the Alpha's authorship of `PackKeys`, no location claims. Members hold the pack keys
/// (given by the node, never on the wire) and open sealed ops into their inner kinds, which
/// the views then read like any op; the set, the store and gossip keep the envelopes as
/// received. Which ops open is a function of the op set and the keys held: an op sealed under
/// epoch e opens only if no rotation to a later epoch is older than it (by hlc).
extension Replica {
    /// Admission's part for invite-only packs (pure: the op and its pack's genesis).
    func privacyRule(_ op: SignedOp, in pack: PackState) -> AdmitOutcome? {
        guard pack.isPrivate else {
            switch op.body.kind {
            case .sealed, .packKeys, .joined:
                return .rejected(.notAllowed, "a \(op.body.kind.name) op belongs to an invite-only pack only")
            default: return nil
            }
        }
        if op.body.location != nil { return .rejected(.notAllowed, "ops of an invite-only pack claim no location") }
        switch op.body.kind {
        case .sealed: return nil
        case .packKeys:
            return op.author == pack.alpha ? nil : .rejected(.notAllowed, "only the Alpha hands out keys of an invite-only pack")
        case .delete(let d) where d.target == pack.id: return nil
        default:
            return .rejected(.notAllowed, "pack \(pack.id.short()) is invite-only: its ops travel sealed")
        }
    }

    /// The inner kind of a sealed op, if this replica holds the key of its epoch and no
    /// rotation to a later epoch precedes it.
    func openSealed(_ s: Sealed, op: SignedOp, in pid: PackID) -> OpKind? {
        guard let key = packKeys[pid]?[s.epoch], let pack = packs[pid] else { return nil }
        for (epoch, at) in pack.rotations where epoch > s.epoch && at < op.hlc { return nil }
        return s.open(key: key, pack: pid, author: op.author, hlc: op.hlc)
    }

    /// Gives the replica a key of an invite-only pack (the node's keyring, at start, on
    /// create, join or a key from the Alpha). Rebuilds the pack's views when it is new.
    public mutating func addPackKey(_ key: [UInt8], epoch: UInt32, pack: PackID) {
        guard key.count == Limits.packKeyBytes, packKeys[pack]?[epoch] != key else { return }
        packKeys[pack, default: [:]][epoch] = key
        rebuildQueue.insert(pack)
        rebuildQueued()
    }

    /// Drops every key of a pack (a join that failed), and reads it again without them.
    public mutating func forgetPackKeys(_ pack: PackID) {
        guard packKeys.removeValue(forKey: pack) != nil else { return }
        rebuildQueue.insert(pack)
        rebuildQueued()
    }

    /// The epochs and keys held for a pack (empty: not a member).
    public func packKeyRing(_ pack: PackID) -> [UInt32: [UInt8]] { packKeys[pack] ?? [:] }

    /// Whether this replica can read the pack: public, or invite-only with a key held.
    public func canRead(_ pack: PackState) -> Bool { !pack.isPrivate || packKeys[pack.id] != nil }

    /// The `PackKeys` ops of a pack (the node opens them with its pseudonym).
    public func packKeyOps(_ pack: PackID) -> [SignedOp] {
        (packs[pack]?.keyOps ?? []).compactMap { ops[$0] }
    }

    /// The rotation time of each epoch announced in the pack (PROTOCOL.md §3b).
    public func rotationTimes(_ pack: PackID) -> [UInt32: HLC] { packs[pack]?.rotations ?? [:] }

    /// Whether an op sealed under `epoch` at `hlc` is read by nobody: a rotation to a later
    /// epoch precedes it.
    public func isStale(epoch: UInt32, hlc: HLC, in pack: PackID) -> Bool {
        rotationTimes(pack).contains { $0.key > epoch && $0.value < hlc }
    }

    /// Newest key epoch announced in the pack (0: none since the genesis).
    public func newestEpoch(_ pack: PackID) -> UInt32 { packs[pack]?.rotations.keys.max() ?? 0 }

    /// Authors whose sealed ops opened here, the Alpha excluded: the members a rotation keeps.
    public func privateMembers(_ pack: PackID) -> Set<PublicKey> {
        guard let p = packs[pack] else { return [] }
        return p.members.subtracting([p.alpha])
    }

    /// Re-reads every pack whose keys or rotations changed: a fresh state from the genesis,
    /// then every op of the set in (hlc, id) order, opened as the keys now allow.
    mutating func rebuildQueued() {
        while let pid = rebuildQueue.popFirst() {
            guard let p = packs[pid] else { continue }
            let entries = p.order
            let genesis = p.genesis
            for e in entries { if let o = ops[e.id] { ops[e.id] = o.asReceived() } }
            let source = removePackState(pid)?.remoteSource
            apply(genesis, remoteSource: source)
            for e in entries where e.id != pid { if let o = ops[e.id] { apply(o) } }
            rebuildQueue.remove(pid)
        }
    }
}
