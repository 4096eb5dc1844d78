import SkwadCrypto
import SkwadModel

/// Direct-message ops for tests (issue 26): a letter from one user's pseudonym to another's,
/// sealed and carried by a one-off key, exactly as a node builds them.
extension OpFactory {
    /// A direct message from `sender` to `recipient`'s pseudonym in the pack of `genesis`.
    /// `signer` replaces the sender's pseudonym as the letter's signing key (a forgery);
    /// `sealedIn` seals the letter as if for another pack (a letter moved between packs).
    public mutating func directMessage(
        from sender: MasterSecret, to recipient: PublicKey, in genesis: SignedOp, text: String = "hi",
        acks: [OpID] = [], hlc: HLC? = nil, signer: SigningKeyPair? = nil,
        sealedIn: PackID? = nil
    ) -> SignedOp {
        let me = pseudonym(sender, in: genesis)
        let carrier = try! SigningKeyPair(seed: rng.bytes(32))
        // The sender's stamp from the factory's cache (an op of its pseudonym carries it).
        let stamp = op(.vote(Vote(target: genesis.id, value: 0)), by: sender, in: genesis).body.stamp
        let letter = DirectLetter(
            sender: me.publicKey, stamp: stamp, recipient: recipient, text: acks.isEmpty ? text : "",
            acks: acks)
        let sealed: DirectMessage
        if let signer {
            sealed = try! DirectMessage.sealUnchecked(letter, signer: signer, pack: sealedIn ?? genesis.id, carrier: carrier.publicKey)
        } else {
            sealed = try! DirectMessage.seal(letter, signer: me, pack: sealedIn ?? genesis.id, carrier: carrier.publicKey)
        }
        return op(.directMessage(sealed), by: sender, in: genesis, signer: carrier, hlc: hlc)
    }
}
