import CSodium

/// The node's master secret: 32 random bytes, kept in the data directory (mode 0600).
/// Every pack pseudonym is derived from it and the pack's genesis nonce (DESIGN §2), so
/// pseudonyms are stable inside a pack and unlinkable across packs without this secret.
public struct MasterSecret: Sendable, Equatable {
    public static let byteCount = 32
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) throws {
        guard bytes.count == Self.byteCount else { throw CryptoError.badLength("master secret", expected: 32, got: bytes.count) }
        self.bytes = bytes
    }

    public static func generate() -> MasterSecret { try! MasterSecret(bytes: SecureRandom.bytes(byteCount)) }

    /// The pack pseudonym: seed = BLAKE2b-256(key: master, "skwad/pseudonym/v1" || genesisNonce),
    /// then the Ed25519 key pair of that seed. Normative: docs/PROTOCOL.md §Identity.
    public func pseudonym(genesisNonce: [UInt8]) -> SigningKeyPair {
        let seed = Blake2b.hash256(Array("skwad/pseudonym/v1".utf8) + genesisNonce, key: bytes)
        return try! SigningKeyPair(seed: seed)
    }

    /// A purpose-specific 32-byte subkey (e.g. "transport", "dm").
    public func subkey(_ purpose: String) -> [UInt8] {
        Blake2b.hash256(Array("skwad/subkey/v1/".utf8) + Array(purpose.utf8), key: bytes)
    }
}

/// Anonymous sealed boxes (crypto_box_seal): anyone can seal to a public key, only the
/// holder of its secret key can open. Used for reports to moderators.
public enum SealedBox {
    public static func seal(_ message: [UInt8], to recipient: [UInt8]) throws -> [UInt8] {
        Sodium.ready()
        guard recipient.count == Int(crypto_box_PUBLICKEYBYTES) else {
            throw CryptoError.badLength("recipient key", expected: 32, got: recipient.count)
        }
        var out = [UInt8](repeating: 0, count: message.count + Int(crypto_box_sealbytes()))
        _ = out.withUnsafeMutableBufferPointer { o in
            message.withUnsafeBufferPointer { m in
                recipient.withUnsafeBufferPointer {
                    crypto_box_seal(o.baseAddress!, m.baseAddress ?? UnsafePointer(bitPattern: 1)!, UInt64(m.count), $0.baseAddress!)
                }
            }
        }
        return out
    }

    public static func open(_ sealed: [UInt8], publicKey: [UInt8], secretKey: [UInt8]) throws -> [UInt8] {
        Sodium.ready()
        let overhead = Int(crypto_box_sealbytes())
        guard sealed.count >= overhead else { throw CryptoError.decryptionFailed }
        guard publicKey.count == 32, secretKey.count == 32 else {
            throw CryptoError.badLength("box key", expected: 32, got: publicKey.count)
        }
        var out = [UInt8](repeating: 0, count: sealed.count - overhead)
        let rc = out.withUnsafeMutableBufferPointer { o in
            sealed.withUnsafeBufferPointer { c in
                publicKey.withUnsafeBufferPointer { p in
                    secretKey.withUnsafeBufferPointer { s in
                        crypto_box_seal_open(
                            o.baseAddress ?? UnsafeMutablePointer(bitPattern: 1)!, c.baseAddress!, UInt64(c.count), p.baseAddress!,
                            s.baseAddress!)
                    }
                }
            }
        }
        guard rc == 0 else { throw CryptoError.decryptionFailed }
        return out
    }

    /// X25519 key pair for a box recipient.
    public static func keyPair() -> (publicKey: [UInt8], secretKey: [UInt8]) {
        Sodium.ready()
        var pk = [UInt8](repeating: 0, count: 32), sk = [UInt8](repeating: 0, count: 32)
        _ = pk.withUnsafeMutableBufferPointer { p in
            sk.withUnsafeMutableBufferPointer { crypto_box_keypair(p.baseAddress!, $0.baseAddress!) }
        }
        return (pk, sk)
    }
}
