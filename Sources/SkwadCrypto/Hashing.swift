import CSodium
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// BLAKE2b (crypto_generichash).
public enum Blake2b {
    /// BLAKE2b with a 32-byte digest, optionally keyed (key 16...64 bytes).
    public static func hash256(_ message: [UInt8], key: [UInt8] = []) -> [UInt8] {
        hash(message, outputCount: 32, key: key)
    }

    public static func hash(_ message: [UInt8], outputCount: Int, key: [UInt8] = []) -> [UInt8] {
        Sodium.ready()
        precondition(outputCount >= Int(crypto_generichash_BYTES_MIN) && outputCount <= Int(crypto_generichash_BYTES_MAX))
        var out = [UInt8](repeating: 0, count: outputCount)
        _ = out.withUnsafeMutableBufferPointer { o in
            message.withUnsafeBufferPointer { m in
                key.withUnsafeBufferPointer { k in
                    crypto_generichash(
                        o.baseAddress!, outputCount, m.baseAddress, UInt64(m.count),
                        k.count == 0 ? nil : k.baseAddress, k.count)
                }
            }
        }
        return out
    }

    /// Hash of several parts, each prefixed by its length (unambiguous concatenation).
    public static func hash256(parts: [[UInt8]], key: [UInt8] = []) -> [UInt8] {
        var joined: [UInt8] = []
        joined.reserveCapacity(parts.reduce(0) { $0 + $1.count + 4 })
        for p in parts {
            let n = UInt32(p.count)
            joined += [UInt8(n >> 24), UInt8((n >> 16) & 0xff), UInt8((n >> 8) & 0xff), UInt8(n & 0xff)]
            joined += p
        }
        return hash256(joined, key: key)
    }
}

/// Lowercase hex.
public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)
    public static func encode(_ bytes: [UInt8]) -> String {
        var out = [UInt8](); out.reserveCapacity(bytes.count * 2)
        for b in bytes { out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 0x0f)]) }
        return String(decoding: out, as: UTF8.self)
    }
    public static func decode(_ string: String) -> [UInt8]? {
        let chars = Array(string.utf8)
        guard chars.count % 2 == 0 else { return nil }
        var out = [UInt8](); out.reserveCapacity(chars.count / 2)
        var i = 0
        while i < chars.count {
            guard let hi = nibble(chars[i]), let lo = nibble(chars[i + 1]) else { return nil }
            out.append(hi << 4 | lo); i += 2
        }
        return out
    }
    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case 48...57: return c - 48
        case 97...102: return c - 87
        case 65...70: return c - 55
        default: return nil
        }
    }
}

/// Byte arrays compared with `memcmp`: ids and keys are compared on every lookup that finds
/// them (`elementsEqual` compares them a byte at a time).
public enum Bytes {
    @inlinable
    public static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return a.withUnsafeBytes { x in b.withUnsafeBytes { y in memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 } }
    }
}
