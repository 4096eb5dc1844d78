import SkwadCrypto

/// A display name (and a line about its author) in one pack, by consent: published by the
/// author's **persona** there, a key derived apart from its anonymous pseudonym, so posts
/// under the pseudonym stay unlinkable to the name (PROTOCOL.md §3a).
public struct Profile: Hashable, Sendable {
    public var name: String
    public var about: String
    public init(name: String, about: String = "") { self.name = name; self.about = about }
}

extension Limits {
    /// A display name: 1...32 bytes.
    public static let maxDisplayName = 32
}

extension MasterSecret {
    /// The persona in a pack: seed = BLAKE2b-256(key: master, "skwad/persona/v1" || genesisNonce).
    /// Unlinkable to `pseudonym(genesisNonce:)` and to personas of other packs without the secret.
    public func persona(genesisNonce: [UInt8]) -> SigningKeyPair {
        try! SigningKeyPair(seed: Blake2b.hash256(Array("skwad/persona/v1".utf8) + genesisNonce, key: bytes))
    }
}
