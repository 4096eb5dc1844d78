import SkwadCrypto
import SkwadModel

/// Moderation, edit and report ops for tests (issue 11, part A).
extension OpFactory {
    public mutating func moderate(
        by user: MasterSecret, in genesis: SignedOp, on target: SignedOp, hidden: Bool,
        reason: String = "", signer: SigningKeyPair? = nil
    ) -> SignedOp {
        op(.moderate(Moderate(target: target.id, hidden: hidden, reason: reason)), by: user, in: genesis, signer: signer)
    }

    public mutating func edit(
        by user: MasterSecret, in genesis: SignedOp, on target: SignedOp, title: String? = nil, body: String? = nil,
        signer: SigningKeyPair? = nil, hlc: HLC? = nil
    ) -> SignedOp {
        op(.edit(Edit(target: target.id, title: title, body: body)), by: user, in: genesis, signer: signer, hlc: hlc)
    }

    /// A report of `target` by `user`'s pseudonym sealed to `moderators` (by default: the pack's
    /// Alpha), carried by a one-off key as a node does (`carrier`: a given one, to reuse it).
    /// `signer` replaces the reporter's pseudonym as the content's signing key (a forgery).
    public mutating func report(
        by user: MasterSecret, in genesis: SignedOp, on target: OpID, reason: String = "spam",
        to moderators: [PublicKey]? = nil, hlc: HLC? = nil, carrier: SigningKeyPair? = nil, signer: SigningKeyPair? = nil
    ) -> SignedOp {
        let me = pseudonym(user, in: genesis)
        let carrier = carrier ?? (try! SigningKeyPair(seed: rng.bytes(32)))
        // The reporter's stamp from the factory's cache (an op of its pseudonym carries it).
        let stamp = op(.vote(Vote(target: genesis.id, value: 0)), by: user, in: genesis).body.stamp
        let content = ReportContent(target: target, reason: reason, reporter: me.publicKey, stamp: stamp)
        let sealed = try! Report.sealUnchecked(
            content, signer: signer ?? me, to: moderators ?? [genesis.author], pack: genesis.id, carrier: carrier.publicKey,
            key: rng.bytes(AEAD.keyCount), nonce: rng.bytes(AEAD.nonceCount))
        return op(.report(sealed), by: user, in: genesis, signer: carrier, hlc: hlc)
    }

    /// A ban (or with `banned: false`, an unban) of `author` in the pack of `genesis`, by
    /// `user`'s pseudonym or `signer` (an admin key).
    public mutating func ban(
        by user: MasterSecret, in genesis: SignedOp, author: PublicKey, banned: Bool = true, reason: String = "",
        signer: SigningKeyPair? = nil, hlc: HLC? = nil
    ) -> SignedOp {
        op(.ban(Ban(author: author, banned: banned, reason: reason)), by: user, in: genesis, signer: signer, hlc: hlc)
    }
}
