import SkwadCrypto
import SkwadModel

/// Deletions that travel (PROTOCOL §4 rule 8b, §11a): a deleted pack keeps its genesis and the
/// deletion that counts — the smallest moderator `Delete` of the pack by (hlc, id) — first in
/// the replica and then in its tombstone, and lists both in the directory until the tombstone
/// expires. Every node that knows the genesis thus learns the deletion, and a smaller deletion
/// offered later replaces the one kept, so replicas keep the same proof whatever the order.
extension Replica {
    /// Is `op` a moderator's deletion of a tombstoned pack, smaller than the one its proof keeps?
    func offersSmallerDeletion(_ op: SignedOp) -> Bool {
        guard op.isDeletion(of: op.packID), let proof = tombstones[op.packID]?.proof else { return false }
        let g = proof.genesis
        guard op.author == g.author || config.adminKeys.contains(op.author),
            (op.hlc, op.id) < (proof.deletion.hlc, proof.deletion.id),
            case .createPack(let c) = g.body.kind,
            ProofOfWork.isValid(
                genesisNonce: c.nonce, author: op.author.bytes, stamp: op.body.stamp,
                bits: Int(config.pseudonymBits(c.powBits)))
        else { return false }
        return true
    }

    mutating func replaceProof(of pack: PackID, with deletion: SignedOp) {
        guard let t = tombstones[pack], let proof = t.proof else { return }
        tombstones[pack] = Tombstone(
            pack: pack, reason: t.reason, expiresMs: t.expiresMs,
            proof: DeletionProof(genesis: proof.genesis, deletion: deletion))
        rebuildProofIndex()
        if !updatedTombstones.contains(pack) { updatedTombstones.append(pack) }
    }

    /// Tombstones whose proof changed since the last call (the node writes them again).
    public mutating func takeUpdatedTombstones() -> [Tombstone] {
        defer { updatedTombstones = [] }
        return updatedTombstones.compactMap { tombstones[$0] }
    }

    func proofOp(_ id: OpID) -> SignedOp? { proofOps.isEmpty ? nil : proofOps[id] }

    mutating func rebuildProofIndex() {
        proofOps = [:]
        for t in tombstones.values {
            guard let p = t.proof else { continue }
            proofOps[p.genesis.id] = p.genesis
            proofOps[p.deletion.id] = p.deletion
        }
    }

    /// A deleted pack's scope, from its genesis, whether its ops are still held or only its
    /// tombstone's proof: where its directory entry may be sent (§12).
    public func goneScope(_ id: PackID) -> PackScope? {
        if let p = packs[id], p.deleted { return p.scope }
        guard let g = tombstones[id]?.proof?.genesis, case .createPack(let c) = g.body.kind else { return nil }
        return PackScope(id: id, fence: c.fence, locked: c.locked, isPrivate: c.inviteOnly)
    }

    /// The directory entries of deleted packs: genesis and the deletion that counts, for packs
    /// deleted and not yet purged and for tombstones with a proof, sorted by id.
    func goneEntries() -> [(scope: PackScope, genesis: SignedOp, edits: [(hlc: HLC, id: OpID)])] {
        var out: [(scope: PackScope, genesis: SignedOp, edits: [(hlc: HLC, id: OpID)])] = []
        // Through indices: `for p in packs.values` copies each PackState (Directory.swift).
        var i = packs.startIndex
        while i != packs.endIndex {
            defer { i = packs.index(after: i) }
            guard let d = packs.values[i].deletion else { continue }
            out.append((packs.values[i].scope, packs.values[i].genesis, [d]))
        }
        for t in tombstones.values {
            guard let proof = t.proof, let scope = goneScope(t.pack) else { continue }
            out.append((scope, proof.genesis, [(proof.deletion.hlc, proof.deletion.id)]))
        }
        out.sort { $0.scope.id < $1.scope.id }
        return out
    }
}

extension SignedOp {
    /// A `Delete` whose target is the pack itself.
    func isDeletion(of pack: PackID) -> Bool {
        if case .delete(let d) = body.kind { return d.target == pack && body.packID == pack }
        return false
    }
}
