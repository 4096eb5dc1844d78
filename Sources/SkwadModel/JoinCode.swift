import SkwadCrypto

/// A join code for an invite-only pack (PROTOCOL.md §3b): the pack id, its newest key (and the
/// genesis key after a rotation, which opens the pack's name), and a member's UDP address,
/// written after "skw-" as CodeText.swift says, so that a typo gives a clear error rather
/// than a wrong pack.
public struct JoinCode: Equatable, Sendable {
    public var pack: PackID
    public var epoch: UInt32
    public var key: [UInt8]
    /// The epoch-0 key, when `epoch` > 0.
    public var genesisKey: [UInt8]?
    /// "host:port" of a member, or empty.
    public var address: String

    public init(pack: PackID, epoch: UInt32, key: [UInt8], genesisKey: [UInt8]? = nil, address: String) {
        self.pack = pack; self.epoch = epoch; self.key = key; self.genesisKey = genesisKey; self.address = address
    }

    static let version: UInt8 = 1
    public static let prefix = "skw-"
    /// Longest code accepted (characters), before decoding anything.
    public static let maxLength = 400
    static let maxAddress = 64

    /// Whether a typed token is meant as a join code (what `join` tells apart from a pack name):
    /// anything that starts with the prefix, well formed or not.
    public static func looks(_ s: String) -> Bool { s.lowercased().hasPrefix(prefix) }

    public func encoded() -> String {
        var p: [UInt8] = [Self.version] + pack.bytes + [UInt8(epoch >> 8 & 0xff), UInt8(epoch & 0xff)] + key
        if epoch > 0 { p += genesisKey ?? [UInt8](repeating: 0, count: 32) }
        p += Self.encodeAddress(address)
        return CodeText.encode(p, prefix: Self.prefix)
    }

    /// Decodes a typed code. Throws a one-line reason: not a code, a character outside the
    /// alphabet, a checksum mismatch (a typo), a bad shape.
    public init(parsing text: String) throws {
        let body = try CodeText.decode(
            text, prefix: Self.prefix, what: "join code", maxLength: Self.maxLength, minPayload: 1 + 32 + 2 + 32 + 1)
        guard body[0] == Self.version else { throw ModelError.malformed("join code version \(body[0]) is unknown") }
        pack = OpID(unchecked: Array(body[1..<33]))
        epoch = UInt32(body[33]) << 8 | UInt32(body[34])
        key = Array(body[35..<67])
        var at = 67
        if epoch > 0 {
            guard body.count >= at + 32 + 1 else { throw ModelError.malformed("join code is too short for its epoch") }
            genesisKey = Array(body[at..<(at + 32)]); at += 32
        } else {
            genesisKey = nil
        }
        guard let a = Self.decodeAddress(Array(body[at...])) else { throw ModelError.malformed("join code: bad member address") }
        address = a
    }

    /// An IPv4 "a.b.c.d:port" as 4 + 6 bytes; anything else as 1, its length and its UTF-8 (at
    /// most `maxAddress` bytes); none as 0.
    static func encodeAddress(_ s: String) -> [UInt8] {
        if s.isEmpty { return [0] }
        let parts = s.split(separator: ":", omittingEmptySubsequences: false)
        if parts.count == 2, let port = UInt16(parts[1]) {
            let quad = parts[0].split(separator: ".", omittingEmptySubsequences: false).compactMap { UInt8($0) }
            if quad.count == 4, parts[0].split(separator: ".").count == 4 { return [4] + quad + [UInt8(port >> 8), UInt8(port & 0xff)] }
        }
        let a = Array(s.utf8.prefix(maxAddress))
        return [1, UInt8(a.count)] + a
    }

    static func decodeAddress(_ b: [UInt8]) -> String? {
        guard let tag = b.first else { return nil }
        switch tag {
        case 0: return b.count == 1 ? "" : nil
        case 4:
            guard b.count == 7 else { return nil }
            return "\(b[1]).\(b[2]).\(b[3]).\(b[4]):\(UInt16(b[5]) << 8 | UInt16(b[6]))"
        case 1:
            guard b.count >= 2, Int(b[1]) <= maxAddress, b.count == 2 + Int(b[1]) else { return nil }
            return String(validating: b[2...], as: UTF8.self)
        default: return nil
        }
    }
}
