import SkwadCrypto
import SkwadModel

/// Direct-message ops for tests (issue 26): a letter from one user's pseudonym to another's,
/// sealed and carried by a one-off key, exactly as a node builds them.
extension OpFactory {
    /// The stamp `key` needs in the pack of `genesis` under this factory's floors.
    public func pseudonymStamp(_ key: SigningKeyPair, in genesis: SignedOp) -> UInt64 {
        let c = Self.create(genesis)
        return ProofOfWork.mint(genesisNonce: c.nonce, author: key.publicKey.bytes, bits: Int(floors ? PowFloor.pseudonym(c.powBits) : c.powBits))
    }

    /// A direct message from `sender` to `recipient`'s pseudonym in the pack of `genesis`.
    /// `signer` replaces the sender's pseudonym as the letter's signing key (a forgery);
    /// `sealedIn` seals the letter as if for another pack (a letter moved between packs).
    public mutating func directMessage(from sender: MasterSecret, to recipient: PublicKey, in genesis: SignedOp, text: String = "hi",
                                       acks: [OpID] = [], hlc: HLC? = nil, signer: SigningKeyPair? = nil,
                                       sealedIn: PackID? = nil) -> SignedOp {
        let me = pseudonym(sender, in: genesis)
        let carrier = try! SigningKeyPair(seed: rng.bytes(32))
        let letter = DirectLetter(sender: me.publicKey, stamp: pseudonymStamp(me, in: genesis), recipient: recipient, text: acks.isEmpty ? text : "",
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
