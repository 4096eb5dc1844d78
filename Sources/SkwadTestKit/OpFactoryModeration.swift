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

    /// A report of `target` sealed to `moderators` (by default: the pack's Alpha).
    public mutating func report(
        by user: MasterSecret, in genesis: SignedOp, on target: OpID, reason: String = "spam",
        to moderators: [PublicKey]? = nil, hlc: HLC? = nil
    ) -> SignedOp {
        let sealed = try! Report.seal(ReportContent(target: target, reason: reason), to: moderators ?? [genesis.author])
        return op(.report(sealed), by: user, in: genesis, hlc: hlc)
    }
}
