import CSodium

/// One-time libsodium initialisation. Every public entry point of SkwadCrypto calls
/// `Sodium.ready()` first; `sodium_init` is idempotent and thread-safe.
enum Sodium {
    static let initialised: Bool = {
        sodium_init() >= 0
    }()

    @inline(__always)
    static func ready() {
        precondition(initialised, "libsodium failed to initialise")
    }
}

/// Errors raised by SkwadCrypto. A struct around a private enum keeps the cases
/// extensible without breaking callers.
public struct CryptoError: Error, CustomStringConvertible, Equatable, Sendable {
    enum Code: Equatable, Sendable {
        case badLength(what: String, expected: Int, got: Int)
        case decryptionFailed
        case keyDerivationFailed
    }
    let code: Code

    public static func badLength(_ what: String, expected: Int, got: Int) -> CryptoError {
        CryptoError(code: .badLength(what: what, expected: expected, got: got))
    }
    public static let decryptionFailed = CryptoError(code: .decryptionFailed)
    public static let keyDerivationFailed = CryptoError(code: .keyDerivationFailed)

    public var description: String {
        switch code {
        case let .badLength(what, expected, got): return "\(what) must be \(expected) bytes, got \(got)"
        case .decryptionFailed: return "decryption failed (wrong key or tampered data)"
        case .keyDerivationFailed: return "key derivation failed"
        }
    }
}

/// Cryptographically secure random bytes (randombytes_buf). Not for simulations:
/// those inject a seeded generator instead.
public enum SecureRandom {
    public static func bytes(_ count: Int) -> [UInt8] {
        Sodium.ready()
        var out = [UInt8](repeating: 0, count: count)
        if count > 0 { out.withUnsafeMutableBytes { randombytes_buf($0.baseAddress!, count) } }
        return out
    }
}

/// Constant-time comparison.
public func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    if a.isEmpty { return true }
    return a.withUnsafeBytes { pa in b.withUnsafeBytes { pb in sodium_memcmp(pa.baseAddress!, pb.baseAddress!, a.count) == 0 } }
}
