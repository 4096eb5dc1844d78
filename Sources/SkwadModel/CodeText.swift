import SkwadCrypto

/// How codes people type are written (join codes, contact codes): a prefix, then the bytes
/// with a 4-byte BLAKE2b checksum in lowercase base32 (Crockford's alphabet, no padding) in
/// groups of five joined by "-". Reading forgives case, spaces, and o/i/l typed for 0/1/1;
/// a wrong checksum is a typo, told as such.
enum CodeText {
    static let alphabet = Array("0123456789abcdefghjkmnpqrstvwxyz".utf8)

    static func encode(_ payload: [UInt8], prefix: String) -> String {
        let p = payload + Array(Blake2b.hash(payload, outputCount: 16).prefix(4))
        var out = "", acc = 0, bits = 0, n = 0
        func put(_ v: Int) {
            if n > 0 && n % 5 == 0 { out += "-" }
            out.append(Character(UnicodeScalar(alphabet[v])))
            n += 1
        }
        for b in p {
            acc = acc << 8 | Int(b); bits += 8
            while bits >= 5 { bits -= 5; put(acc >> bits & 31) }
            acc &= (1 << bits) - 1
        }
        if bits > 0 { put(acc << (5 - bits) & 31) }
        return prefix + out
    }

    /// The payload of a typed code, its checksum checked. `what` names the code in errors
    /// ("join code"); `minPayload`: fewer bytes is a missing group.
    static func decode(_ text: String, prefix: String, what: String, maxLength: Int, minPayload: Int) throws -> [UInt8] {
        guard text.count <= maxLength else { throw ModelError.tooLarge("\(what) longer than \(maxLength) characters") }
        var s = text.lowercased()
        guard s.hasPrefix(prefix) else { throw ModelError.malformed("a \(what) starts with \(prefix)") }
        s.removeFirst(prefix.count)
        var bytes: [UInt8] = [], acc = 0, bits = 0
        for (i, c) in s.utf8.enumerated() {
            if c == UInt8(ascii: "-") || c == UInt8(ascii: " ") { continue }
            var ch = c
            if ch == UInt8(ascii: "o") { ch = UInt8(ascii: "0") }
            if ch == UInt8(ascii: "i") || ch == UInt8(ascii: "l") { ch = UInt8(ascii: "1") }
            guard let v = alphabet.firstIndex(of: ch) else {
                throw ModelError.malformed("\(what): character \(i + 1 + prefix.count) is not a code character")
            }
            acc = acc << 5 | v; bits += 5
            if bits >= 8 { bits -= 8; bytes.append(UInt8(acc >> bits & 0xff)); acc &= (1 << bits) - 1 }
        }
        guard bytes.count >= minPayload + 4 else { throw ModelError.malformed("\(what) is too short (a group missing?)") }
        let body = Array(bytes.dropLast(4))
        guard Array(Blake2b.hash(body, outputCount: 16).prefix(4)) == Array(bytes.suffix(4)) else {
            throw ModelError.invalid("\(what) has a typo: its checksum does not match (check each group)")
        }
        return body
    }
}
