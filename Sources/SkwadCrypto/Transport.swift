import CSodium

/// Key exchange (crypto_kx) for gossip sessions.
public struct KxKeyPair: Sendable {
    public let publicKey: [UInt8]
    let secretKey: [UInt8]

    public init(seed: [UInt8]) throws {
        guard seed.count == Int(crypto_kx_SEEDBYTES) else { throw CryptoError.badLength("kx seed", expected: 32, got: seed.count) }
        Sodium.ready()
        var pk = [UInt8](repeating: 0, count: 32), sk = [UInt8](repeating: 0, count: 32)
        _ = pk.withUnsafeMutableBufferPointer { p in
            sk.withUnsafeMutableBufferPointer { s in
                seed.withUnsafeBufferPointer { crypto_kx_seed_keypair(p.baseAddress!, s.baseAddress!, $0.baseAddress!) }
            }
        }
        publicKey = pk; secretKey = sk
    }

    public static func generate() -> KxKeyPair { try! KxKeyPair(seed: SecureRandom.bytes(32)) }

    /// Session keys (rx, tx) when this side is the client (initiator).
    public func clientSessionKeys(serverPublicKey: [UInt8]) throws -> (rx: [UInt8], tx: [UInt8]) {
        try sessionKeys(peer: serverPublicKey, client: true)
    }
    /// Session keys (rx, tx) when this side is the server (responder).
    public func serverSessionKeys(clientPublicKey: [UInt8]) throws -> (rx: [UInt8], tx: [UInt8]) {
        try sessionKeys(peer: clientPublicKey, client: false)
    }

    private func sessionKeys(peer: [UInt8], client: Bool) throws -> (rx: [UInt8], tx: [UInt8]) {
        Sodium.ready()
        guard peer.count == 32 else { throw CryptoError.badLength("kx public key", expected: 32, got: peer.count) }
        var rx = [UInt8](repeating: 0, count: 32), tx = [UInt8](repeating: 0, count: 32)
        let rc = rx.withUnsafeMutableBufferPointer { r in
            tx.withUnsafeMutableBufferPointer { t in
                publicKey.withUnsafeBufferPointer { p in
                    secretKey.withUnsafeBufferPointer { s in
                        peer.withUnsafeBufferPointer { q in
                            client
                                ? crypto_kx_client_session_keys(
                                    r.baseAddress!, t.baseAddress!, p.baseAddress!, s.baseAddress!, q.baseAddress!)
                                : crypto_kx_server_session_keys(
                                    r.baseAddress!, t.baseAddress!, p.baseAddress!, s.baseAddress!, q.baseAddress!)
                        }
                    }
                }
            }
        }
        guard rc == 0 else { throw CryptoError.keyDerivationFailed }
        return (rx, tx)
    }
}

/// 32 bytes held inline (a session key, an X25519 public key): no heap buffer, unlike an
/// array. A gossip node keeps several per session and hundreds of sessions.
public struct Bytes32: Sendable, Hashable {
    private var w0: UInt64 = 0, w1: UInt64 = 0, w2: UInt64 = 0, w3: UInt64 = 0

    /// Nil unless `bytes` holds exactly 32 bytes.
    public init?(_ bytes: [UInt8]) {
        guard bytes.count == 32 else { return nil }
        withUnsafeMutableBytes(of: &self) { $0.copyBytes(from: bytes) }
    }

    public var bytes: [UInt8] { withUnsafeBytes(of: self) { Array($0) } }

    public func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withUnsafeBytes(of: self, body)
    }
}

/// XChaCha20-Poly1305 (IETF) AEAD with 24-byte nonces.
public enum AEAD {
    public static let keyCount = 32
    public static let nonceCount = 24
    public static let tagCount = 16

    public static func seal(_ plaintext: [UInt8], additionalData: [UInt8] = [], nonce: [UInt8], key: [UInt8]) throws -> [UInt8] {
        Sodium.ready()
        guard key.count == keyCount else { throw CryptoError.badLength("AEAD key", expected: keyCount, got: key.count) }
        guard nonce.count == nonceCount else { throw CryptoError.badLength("AEAD nonce", expected: nonceCount, got: nonce.count) }
        var out = [UInt8](repeating: 0, count: plaintext.count + tagCount)
        var outLen: UInt64 = 0
        _ = out.withUnsafeMutableBufferPointer { o in
            plaintext.withUnsafeBufferPointer { m in
                additionalData.withUnsafeBufferPointer { a in
                    nonce.withUnsafeBufferPointer { n in
                        key.withUnsafeBufferPointer { k in
                            crypto_aead_xchacha20poly1305_ietf_encrypt(
                                o.baseAddress!, &outLen, m.baseAddress, UInt64(m.count),
                                a.baseAddress, UInt64(a.count), nil, n.baseAddress!, k.baseAddress!)
                        }
                    }
                }
            }
        }
        return out
    }

    public static func open(_ ciphertext: [UInt8], additionalData: [UInt8] = [], nonce: [UInt8], key: [UInt8]) throws -> [UInt8] {
        Sodium.ready()
        guard key.count == keyCount, nonce.count == nonceCount, ciphertext.count >= tagCount else { throw CryptoError.decryptionFailed }
        var out = [UInt8](repeating: 0, count: ciphertext.count - tagCount)
        var outLen: UInt64 = 0
        let rc = out.withUnsafeMutableBufferPointer { o in
            ciphertext.withUnsafeBufferPointer { c in
                additionalData.withUnsafeBufferPointer { a in
                    nonce.withUnsafeBufferPointer { n in
                        key.withUnsafeBufferPointer { k in
                            crypto_aead_xchacha20poly1305_ietf_decrypt(
                                o.baseAddress ?? UnsafeMutablePointer(bitPattern: 1)!, &outLen, nil, c.baseAddress!, UInt64(c.count),
                                a.baseAddress, UInt64(a.count), n.baseAddress!, k.baseAddress!)
                        }
                    }
                }
            }
        }
        guard rc == 0 else { throw CryptoError.decryptionFailed }
        return out
    }
}

/// Frames whose header is the associated data: the header, then the ciphertext and its tag,
/// in one buffer. The same bytes as `header + seal(plaintext, additionalData: header, …)` and
/// `open(Array(frame[h...]), additionalData: Array(frame[..<h]), …)`, without the
/// intermediate arrays: these run for every datagram a gossip node sends and receives.
extension AEAD {
    /// `header` followed by the sealed `plaintext`. `nonce`: 24 bytes.
    public static func sealFrame(
        header: UnsafeRawBufferPointer, _ plaintext: [UInt8], nonce: UnsafeRawBufferPointer,
        key: [UInt8]
    ) throws -> [UInt8] {
        guard key.count == keyCount else { throw CryptoError.badLength("AEAD key", expected: keyCount, got: key.count) }
        return try key.withUnsafeBytes { try sealFrame(header: header, plaintext, nonce: nonce, rawKey: $0) }
    }

    /// `sealFrame` under a key held inline.
    public static func sealFrame(
        header: UnsafeRawBufferPointer, _ plaintext: [UInt8], nonce: UnsafeRawBufferPointer,
        key: Bytes32
    ) throws -> [UInt8] {
        try key.withBytes { try sealFrame(header: header, plaintext, nonce: nonce, rawKey: $0) }
    }

    private static func sealFrame(
        header: UnsafeRawBufferPointer, _ plaintext: [UInt8], nonce: UnsafeRawBufferPointer,
        rawKey k: UnsafeRawBufferPointer
    ) throws -> [UInt8] {
        Sodium.ready()
        guard nonce.count == nonceCount else { throw CryptoError.badLength("AEAD nonce", expected: nonceCount, got: nonce.count) }
        let h = header.count
        return [UInt8](unsafeUninitializedCapacity: h + plaintext.count + tagCount) { o, initialized in
            let base = o.baseAddress!
            if h > 0 { UnsafeMutableRawPointer(base).copyMemory(from: header.baseAddress!, byteCount: h) }
            var outLen: UInt64 = 0
            plaintext.withUnsafeBufferPointer { m in
                _ = crypto_aead_xchacha20poly1305_ietf_encrypt(
                    base + h, &outLen, m.baseAddress, UInt64(m.count),
                    base, UInt64(h), nil, nonce.baseAddress!.assumingMemoryBound(to: UInt8.self),
                    k.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
            initialized = h + Int(outLen)
        }
    }

    /// Opens `frame[headerCount...]` with `frame[..<headerCount]` as the associated data.
    public static func open(frame: [UInt8], headerCount h: Int, nonce: UnsafeRawBufferPointer, key: [UInt8]) throws -> [UInt8] {
        guard key.count == keyCount else { throw CryptoError.decryptionFailed }
        return try key.withUnsafeBytes { try open(frame: frame, headerCount: h, nonce: nonce, rawKey: $0) }
    }

    /// `open(frame:…)` under a key held inline.
    public static func open(frame: [UInt8], headerCount h: Int, nonce: UnsafeRawBufferPointer, key: Bytes32) throws -> [UInt8] {
        try key.withBytes { try open(frame: frame, headerCount: h, nonce: nonce, rawKey: $0) }
    }

    private static func open(
        frame: [UInt8], headerCount h: Int, nonce: UnsafeRawBufferPointer, rawKey k: UnsafeRawBufferPointer
    ) throws
        -> [UInt8]
    {
        Sodium.ready()
        guard nonce.count == nonceCount, h >= 0, frame.count - h >= tagCount else {
            throw CryptoError.decryptionFailed
        }
        var rc: Int32 = -1
        let out = [UInt8](unsafeUninitializedCapacity: frame.count - h - tagCount) { o, initialized in
            var outLen: UInt64 = 0
            frame.withUnsafeBufferPointer { f in
                rc = crypto_aead_xchacha20poly1305_ietf_decrypt(
                    o.baseAddress ?? UnsafeMutablePointer(bitPattern: 1)!, &outLen, nil,
                    f.baseAddress! + h, UInt64(f.count - h), f.baseAddress!, UInt64(h),
                    nonce.baseAddress!.assumingMemoryBound(to: UInt8.self), k.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
            initialized = rc == 0 ? Int(outLen) : 0
        }
        guard rc == 0 else { throw CryptoError.decryptionFailed }
        return out
    }
}

/// Proof-of-work stamps that bind a pseudonym to a pack (DESIGN §6: new pseudonyms cost work).
/// A stamp is valid when BLAKE2b-256("skwad/pow/v1" || genesisNonce || author || stamp) starts
/// with `bits` zero bits. Normative: docs/PROTOCOL.md §Pseudonym stamps.
public enum ProofOfWork {
    public static func digest(genesisNonce: [UInt8], author: [UInt8], stamp: UInt64) -> [UInt8] {
        var msg = Array("skwad/pow/v1".utf8)
        msg += genesisNonce
        msg += author
        withUnsafeBytes(of: stamp.bigEndian) { msg += $0 }
        return Blake2b.hash256(msg)
    }

    public static func leadingZeroBits(_ bytes: [UInt8]) -> Int {
        var n = 0
        for b in bytes {
            if b == 0 { n += 8; continue }
            return n + b.leadingZeroBitCount
        }
        return n
    }

    public static func isValid(genesisNonce: [UInt8], author: [UInt8], stamp: UInt64, bits: Int) -> Bool {
        bits <= 0 || leadingZeroBits(digest(genesisNonce: genesisNonce, author: author, stamp: stamp)) >= bits
    }

    /// Searches stamps from `start` upward; expected 2^bits hashes. One message buffer is
    /// reused (only the stamp's 8 bytes change), so a hash costs no allocation.
    /// `progress` is called every 65,536 attempts with the number of attempts so far.
    public static func mint(
        genesisNonce: [UInt8], author: [UInt8], bits: Int, start: UInt64 = 0,
        progress: ((UInt64) -> Void)? = nil
    ) -> UInt64 {
        guard bits > 0 else { return start }
        var msg = Array("skwad/pow/v1".utf8) + genesisNonce + author + [UInt8](repeating: 0, count: 8)
        let at = msg.count - 8
        var out = [UInt8](repeating: 0, count: 32)
        var s = start
        var tried: UInt64 = 0
        while true {
            var be = s.bigEndian
            withUnsafeBytes(of: &be) { b in for i in 0..<8 { msg[at + i] = b[i] } }
            msg.withUnsafeBufferPointer { m in
                out.withUnsafeMutableBufferPointer { o in
                    _ = crypto_generichash(o.baseAddress!, 32, m.baseAddress, UInt64(m.count), nil, 0)
                }
            }
            if leadingZeroBits(out) >= bits { return s }
            s &+= 1
            tried &+= 1
            if tried & 0xFFFF == 0 { progress?(tried) }
        }
    }
}
