import CSodium

/// An Ed25519 public key (32 bytes).
public struct PublicKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    public static let byteCount = 32
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) throws {
        guard bytes.count == Self.byteCount else { throw CryptoError.badLength("public key", expected: 32, got: bytes.count) }
        self.bytes = bytes
    }
    /// Internal unchecked init for keys produced by libsodium itself.
    init(unchecked bytes: [UInt8]) { self.bytes = bytes }

    /// Verifies a detached Ed25519 signature over `message`.
    public func verify(signature: [UInt8], message: [UInt8]) -> Bool {
        Sodium.ready()
        guard signature.count == Int(crypto_sign_BYTES) else { return false }
        return signature.withUnsafeBufferPointer { s in
            message.withUnsafeBufferPointer { m in
                bytes.withUnsafeBufferPointer { k in
                    crypto_sign_verify_detached(
                        s.baseAddress!, m.baseAddress ?? UnsafePointer(bitPattern: 1)!,
                        UInt64(m.count), k.baseAddress!) == 0
                }
            }
        }
    }

    /// The X25519 public key corresponding to this Ed25519 key (for sealed boxes to a pseudonym).
    public func curve25519() throws -> [UInt8] {
        Sodium.ready()
        var out = [UInt8](repeating: 0, count: 32)
        let rc = out.withUnsafeMutableBufferPointer { o in
            bytes.withUnsafeBufferPointer { crypto_sign_ed25519_pk_to_curve25519(o.baseAddress!, $0.baseAddress!) }
        }
        guard rc == 0 else { throw CryptoError.keyDerivationFailed }
        return out
    }

    public static func < (a: PublicKey, b: PublicKey) -> Bool { a.bytes.lexicographicallyPrecedes(b.bytes) }
    public func hash(into h: inout Hasher) { bytes.withUnsafeBytes { h.combine(bytes: $0) } }
    public static func == (a: PublicKey, b: PublicKey) -> Bool { Bytes.equal(a.bytes, b.bytes) }
    public var hex: String { Hex.encode(bytes) }
    public var description: String { hex }
}

/// An Ed25519 key pair. The secret key is libsodium's 64-byte form (seed || public key).
public struct SigningKeyPair: Sendable {
    public static let seedCount = 32
    public let publicKey: PublicKey
    public let seed: [UInt8]
    private let secretKey: [UInt8]

    /// Deterministic key pair from a 32-byte seed (RFC 8032 "private key").
    public init(seed: [UInt8]) throws {
        guard seed.count == Self.seedCount else { throw CryptoError.badLength("seed", expected: 32, got: seed.count) }
        Sodium.ready()
        var pk = [UInt8](repeating: 0, count: Int(crypto_sign_PUBLICKEYBYTES))
        var sk = [UInt8](repeating: 0, count: Int(crypto_sign_SECRETKEYBYTES))
        _ = pk.withUnsafeMutableBufferPointer { p in
            sk.withUnsafeMutableBufferPointer { s in
                seed.withUnsafeBufferPointer { crypto_sign_seed_keypair(p.baseAddress!, s.baseAddress!, $0.baseAddress!) }
            }
        }
        self.publicKey = PublicKey(unchecked: pk)
        self.secretKey = sk
        self.seed = seed
    }

    public static func generate() -> SigningKeyPair {
        try! SigningKeyPair(seed: SecureRandom.bytes(seedCount))
    }

    /// Detached Ed25519 signature (64 bytes) over `message`.
    public func sign(_ message: [UInt8]) -> [UInt8] {
        Sodium.ready()
        var sig = [UInt8](repeating: 0, count: Int(crypto_sign_BYTES))
        _ = sig.withUnsafeMutableBufferPointer { s in
            message.withUnsafeBufferPointer { m in
                secretKey.withUnsafeBufferPointer { k in
                    crypto_sign_detached(
                        s.baseAddress!, nil, m.baseAddress ?? UnsafePointer(bitPattern: 1)!,
                        UInt64(m.count), k.baseAddress!)
                }
            }
        }
        return sig
    }

    /// The X25519 secret key corresponding to this Ed25519 key (to open sealed boxes).
    public func curve25519SecretKey() throws -> [UInt8] {
        Sodium.ready()
        var out = [UInt8](repeating: 0, count: 32)
        let rc = out.withUnsafeMutableBufferPointer { o in
            secretKey.withUnsafeBufferPointer { crypto_sign_ed25519_sk_to_curve25519(o.baseAddress!, $0.baseAddress!) }
        }
        guard rc == 0 else { throw CryptoError.keyDerivationFailed }
        return out
    }
}
