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
