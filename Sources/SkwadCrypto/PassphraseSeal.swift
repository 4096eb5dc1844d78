import CSodium

/// A secret sealed under a passphrase, to carry an identity to a second device (PROTOCOL §2,
/// "Identity transfer"): the key is Argon2id (`crypto_pwhash`) of the passphrase with a random
/// salt and the work factor the blob names; the secret is sealed with XChaCha20-Poly1305
/// under it, the header as associated data.
///
/// Layout: `"SKID"` · version 1 · ops limit (u32, big-endian) · memory limit in KiB (u32) ·
/// salt (16) · nonce (24) · ciphertext and tag. A blob's work factor is attacker-chosen (it
/// may come from anywhere): one outside `WorkFactor.accepted` is refused before any hashing.
public enum PassphraseSeal {
    public struct WorkFactor: Sendable, Equatable {
        public let opsLimit: UInt32
        public let memLimitKiB: UInt32
        public init(opsLimit: UInt32, memLimitKiB: UInt32) { self.opsLimit = opsLimit; self.memLimitKiB = memLimitKiB }

        /// What `identity export` uses: 3 passes over 64 MiB (≈ 0.3 s on this machine's core).
        public static let standard = WorkFactor(opsLimit: 3, memLimitKiB: 64 * 1024)
        /// The cheapest libsodium accepts for Argon2id: for tests only.
        public static let cheapest = WorkFactor(opsLimit: 1, memLimitKiB: 8)

        /// What `open` accepts: 1–10 passes over 8 KiB–1 GiB.
        public var isAccepted: Bool { (1...10).contains(opsLimit) && (8...1024 * 1024).contains(memLimitKiB) }
    }

    public static let magic: [UInt8] = Array("SKID".utf8)
    public static let version: UInt8 = 1
    static let saltCount = 16
    static let headerCount = 4 + 1 + 4 + 4 + saltCount + AEAD.nonceCount
    /// The shortest passphrase `seal` takes, in characters.
    public static let minimumPassphrase = 8

    public static func seal(_ secret: [UInt8], passphrase: String, work: WorkFactor = .standard) throws -> [UInt8] {
        guard passphrase.count >= minimumPassphrase else { throw PassphraseError.tooShort }
        guard work.isAccepted else { throw PassphraseError.workFactor }
        var header = magic + [version] + be(work.opsLimit) + be(work.memLimitKiB)
        header += SecureRandom.bytes(saltCount) + SecureRandom.bytes(AEAD.nonceCount)
        let key = try derive(passphrase, salt: Array(header[13..<13 + saltCount]), work: work)
        return header + (try AEAD.seal(secret, additionalData: header, nonce: Array(header[(13 + saltCount)...]), key: key))
    }

    /// The secret, or why not: not such a blob, a work factor out of bounds, or a wrong
    /// passphrase or damaged blob (the two cannot be told apart).
    public static func open(_ blob: [UInt8], passphrase: String) throws -> [UInt8] {
        guard blob.count >= headerCount + AEAD.tagCount, Array(blob.prefix(4)) == magic else { throw PassphraseError.notASealedSecret }
        guard blob[4] == version else { throw PassphraseError.version(blob[4]) }
        let work = WorkFactor(opsLimit: u32(blob, at: 5), memLimitKiB: u32(blob, at: 9))
        guard work.isAccepted else { throw PassphraseError.workFactor }
        let header = Array(blob[..<headerCount])
        let key = try derive(passphrase, salt: Array(header[13..<13 + saltCount]), work: work)
        do {
            return try AEAD.open(Array(blob[headerCount...]), additionalData: header, nonce: Array(header[(13 + saltCount)...]), key: key)
        } catch { throw PassphraseError.wrongPassphrase }
    }

    static func derive(_ passphrase: String, salt: [UInt8], work: WorkFactor) throws -> [UInt8] {
        Sodium.ready()
        precondition(salt.count == crypto_pwhash_saltbytes())
        let password = Array(passphrase.utf8), length = password.count
        let buffer = password + [0]  // never empty: an empty passphrase still has a base address
        var key = [UInt8](repeating: 0, count: AEAD.keyCount)
        let rc = key.withUnsafeMutableBufferPointer { k in
            buffer.withUnsafeBufferPointer { p in
                salt.withUnsafeBufferPointer { s in
                    p.withMemoryRebound(to: CChar.self) { pc in
                        crypto_pwhash(
                            k.baseAddress!, UInt64(k.count), pc.baseAddress!, UInt64(length), s.baseAddress!,
                            UInt64(work.opsLimit), Int(work.memLimitKiB) * 1024, crypto_pwhash_alg_argon2id13())
                    }
                }
            }
        }
        guard rc == 0 else { throw CryptoError.keyDerivationFailed }
        return key
    }

    static func be(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (24 - 8 * $0)) } }
    static func u32(_ b: [UInt8], at i: Int) -> UInt32 { (0..<4).reduce(0) { $0 << 8 | UInt32(b[i + $1]) } }
}

public enum PassphraseError: Error, CustomStringConvertible, Equatable, Sendable {
    case tooShort, notASealedSecret, version(UInt8), workFactor, wrongPassphrase

    public var description: String {
        switch self {
        case .tooShort: "a passphrase needs at least \(PassphraseSeal.minimumPassphrase) characters"
        case .notASealedSecret: "not a sealed identity (damaged or cut short?)"
        case .version(let v): "a sealed identity of version \(v), which this skwad does not know"
        case .workFactor: "the sealed identity asks for a work factor outside 1-10 passes and 8 KiB-1 GiB"
        case .wrongPassphrase: "wrong passphrase, or the sealed identity is damaged"
        }
    }
}
