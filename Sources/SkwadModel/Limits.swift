/// Size limits checked at admission (normative: docs/PROTOCOL.md §Limits).
public enum Limits {
    /// An encoded envelope (body + signature + framing) must fit this many bytes.
    public static let maxEnvelopeBytes = 1100
    public static let maxPackName = 64
    public static let maxTitle = 120
    public static let maxBody = 600
    public static let maxTags = 6
    public static let maxTag = 24
    public static let maxColor = 16
    public static let maxReason = 140
    public static let minNonce = 16
    public static let maxNonce = 32
    public static let maxGeohash = 12
    public static let maxPowBits: UInt32 = 28
    public static let maxRadiusMeters: UInt32 = 1_000_000
    public static let signatureBytes = 64
}

/// The network-wide floors of stamp work (PROTOCOL.md §2): a price on identity. A pack's
/// `pow_bits` may raise them, never lower them.
public enum PowFloor {
    /// Every pseudonym's stamp shows at least this many zero bits.
    public static let pseudonymBits: UInt32 = 16
    /// A genesis stamp (a new pack) shows at least this many.
    public static let genesisBits: UInt32 = 18

    /// Bits a pseudonym stamp must show in a pack created with `powBits`, under `floor`.
    public static func pseudonym(_ powBits: UInt32, floor: UInt32 = pseudonymBits) -> UInt32 { max(floor, powBits) }
    /// Bits the genesis stamp of a pack created with `powBits` must show, under `floor`.
    public static func genesis(_ powBits: UInt32, floor: UInt32 = genesisBits) -> UInt32 { max(floor, powBits) }
}
