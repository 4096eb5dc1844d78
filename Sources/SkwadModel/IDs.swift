import SkwadCrypto

/// A 32-byte content address: BLAKE2b-256 of an op's body bytes. A pack's id is the id of
/// its `CreatePack` op.
public struct OpID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public static let byteCount = 32
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) throws {
        guard bytes.count == Self.byteCount else { throw ModelError.malformed("id must be 32 bytes, got \(bytes.count)") }
        self.bytes = bytes
    }
    init(unchecked bytes: [UInt8]) { self.bytes = bytes }

    /// The id of an op body: BLAKE2b-256(body).
    public static func of(body: [UInt8]) -> OpID { OpID(unchecked: Blake2b.hash256(body)) }

    public init?(hex: String) {
        guard let b = Hex.decode(hex), b.count == Self.byteCount else { return nil }
        self.bytes = b
    }

    public var hex: String { Hex.encode(bytes) }
    /// First `n` hex digits, for display.
    public func short(_ n: Int = 8) -> String { String(hex.prefix(n)) }
    public var description: String { short() }

    public static func < (a: OpID, b: OpID) -> Bool { a.bytes.lexicographicallyPrecedes(b.bytes) }
    // Ids are hashed and compared on every admission: feed the hasher the bytes at once.
    public func hash(into h: inout Hasher) { bytes.withUnsafeBytes { h.combine(bytes: $0) } }
    public static func == (a: OpID, b: OpID) -> Bool { Bytes.equal(a.bytes, b.bytes) }
}

public typealias PackID = OpID

/// Display tag for a pseudonym: `anon·3f2a9c01` (first four key bytes, so a look-alike
/// of a given tag costs about 2^32 key generations).
public func pseudonymTag(_ key: PublicKey) -> String {
    "anon·" + Hex.encode(Array(key.bytes.prefix(pseudonymTagBytes)))
}

/// Key bytes shown in a pseudonym tag.
public let pseudonymTagBytes = 4
