import SkwadCrypto
import SkwadModel

/// Invite-only packs for tests (PROTOCOL.md §3b): a genesis with its name sealed under `key`,
/// sealed ops, and key handouts.
extension OpFactory {
    public mutating func createPrivatePack(
        by user: MasterSecret, name: String = "roommates", key: [UInt8],
        fence: Geofence? = nil
    ) -> SignedOp {
        let nonce = rng.bytes(16)
        let signer = user.pseudonym(genesisNonce: nonce)
        let meta = try! PrivatePack.sealMeta(name: name, tags: [], color: "", genesisNonce: nonce, key: key, nonce: rng.bytes(24))
        let c = CreatePack(name: "", fence: fence, nonce: nonce, inviteOnly: true, sealedMeta: meta)
        let s = ProofOfWork.mint(genesisNonce: nonce, author: signer.publicKey.bytes, bits: Int(floors ? PowFloor.genesis(0) : 0))
        let body = OpBody(packID: nil, author: signer.publicKey, hlc: nextHLC(), stamp: s, kind: .createPack(c))
        return try! SignedOp.sign(body, with: signer)
    }

    /// `kind` sealed under `key` of `epoch`, by `user` in the pack of `genesis`.
    public mutating func sealed(
        _ kind: OpKind, by user: MasterSecret, in genesis: SignedOp, key: [UInt8], epoch: UInt32 = 0,
        hlc: HLC? = nil
    ) -> SignedOp {
        let author = pseudonym(user, in: genesis).publicKey
        let s = try! Sealed.seal(kind, key: key, epoch: epoch, pack: genesis.id, author: author, nonce: rng.bytes(24))
        return op(.sealed(s), by: user, in: genesis, hlc: hlc)
    }

    /// The Alpha's handout of `key` for `epoch` to the pseudonyms of `members`.
    public mutating func packKeys(
        by alpha: MasterSecret, in genesis: SignedOp, key: [UInt8], epoch: UInt32,
        members: [MasterSecret]
    ) -> SignedOp {
        let keys = try! PackKeys.make(key: key, epoch: epoch, members: members.map { pseudonym($0, in: genesis).publicKey })
        return op(.packKeys(keys), by: alpha, in: genesis)
    }
}
