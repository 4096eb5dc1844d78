import SkwadCrypto

/// A contact code (PROTOCOL.md §9 "Contact codes"): how to reach a node and the fingerprint of
/// the key it must prove, optionally with a pack to join there. Written after "skn-" as
/// CodeText.swift says. It holds no secret: a node proves its key only to whoever shows the
/// fingerprint, bound to their session, so the code is what lets a stranger check the node.
public struct ContactCode: Equatable, Sendable {
    /// BLAKE2b-128 of the node's contact key (`fingerprint(of:)`).
    public var fingerprint: [UInt8]
    /// "host:port" where the node listens, most useful first; at most `maxAddresses`.
    public var addresses: [String]
    /// The first 8 bytes of a pack's id, when the code invites to a pack.
    public var packPrefix: [UInt8]?

    public static let prefix = "skn-"
    public static let maxAddresses = 4
    public static let fingerprintCount = 16
    static let version: UInt8 = 1
    static let maxLength = 300

    public init(fingerprint: [UInt8], addresses: [String], packPrefix: [UInt8]? = nil) {
        self.fingerprint = fingerprint; self.addresses = Array(addresses.prefix(Self.maxAddresses)); self.packPrefix = packPrefix
    }

    /// The fingerprint a code carries for a contact key.
    public static func fingerprint(of key: PublicKey) -> [UInt8] {
        Blake2b.hash(Array("skwad/contact-fingerprint/v1".utf8) + key.bytes, outputCount: fingerprintCount)
    }

    /// Whether a typed token looks like a contact code (what `connect` tells apart from an address).
    public static func looks(_ s: String) -> Bool { s.lowercased().hasPrefix(prefix) && s.count > 20 }

    public func encoded() -> String {
        var p: [UInt8] = [Self.version] + fingerprint
        if let packPrefix { p += [1] + packPrefix } else { p += [0] }
        p.append(UInt8(addresses.count))
        for a in addresses { p += JoinCode.encodeAddress(a) }
        return CodeText.encode(p, prefix: Self.prefix)
    }

    /// Decodes a typed code; a one-line reason when it is not one (a typo: the checksum).
    public init(parsing text: String) throws {
        let b = try CodeText.decode(
            text, prefix: Self.prefix, what: "contact code", maxLength: Self.maxLength, minPayload: 1 + Self.fingerprintCount + 2)
        guard b[0] == Self.version else { throw ModelError.malformed("contact code version \(b[0]) is unknown") }
        fingerprint = Array(b[1...Self.fingerprintCount])
        var at = 1 + Self.fingerprintCount
        switch b[at] {
        case 0: packPrefix = nil; at += 1
        case 1:
            guard b.count >= at + 1 + 8 + 1 else { throw ModelError.malformed("contact code is too short for its pack") }
            packPrefix = Array(b[(at + 1)...(at + 8)]); at += 9
        default: throw ModelError.malformed("contact code: bad pack flag")
        }
        let n = Int(b[at]); at += 1
        guard n >= 1, n <= Self.maxAddresses else { throw ModelError.malformed("contact code: \(n) addresses (1 to \(Self.maxAddresses))") }
        var out: [String] = []
        for _ in 0..<n {
            guard at < b.count else { throw ModelError.malformed("contact code: an address is missing") }
            let size: Int
            switch b[at] {
            case 4: size = 7
            case 1: size = at + 1 < b.count ? 2 + Int(b[at + 1]) : b.count
            default: throw ModelError.malformed("contact code: bad address")
            }
            guard at + size <= b.count, let a = JoinCode.decodeAddress(Array(b[at..<(at + size)])), !a.isEmpty else {
                throw ModelError.malformed("contact code: bad address")
            }
            out.append(a); at += size
        }
        guard at == b.count else { throw ModelError.malformed("contact code: bytes after its addresses") }
        addresses = out
    }
}
