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
    /// Report keys in one `Report`: the Alpha and at most three admin keys.
    public static let maxReportRecipients = 4
    /// `crypto_box_seal` overhead (ephemeral key + MAC).
    public static let sealOverhead = 48
    /// A report key sealed to one moderator: 32 bytes + `sealOverhead`.
    public static let reportKeyBox = 32 + sealOverhead
    /// Largest encoded `ReportContent`: target, a reason at its limit, reporter, stamp.
    public static let maxReportPlain = 2 + 32 + 3 + maxReason + 2 + 32 + 9
    /// What a report's box holds before sealing: a 2-byte length, the `ReportSeal` (the content
    /// and its 64-byte signature, 289 bytes at most), zero bytes up to this size.
    public static let reportPadded = 320
    /// A report's `box`: nonce, padded seal, tag.
    public static let reportBox = 24 + reportPadded + 16
    /// A pseudonym's reports per pack per clock hour (by op hlc) that count: the smallest
    /// (hlc, id) are kept, so every replica keeps the same ones (PROTOCOL.md §4, rule 8a).
    public static let reportsPerHour = 5
    /// Only the reports of the hours within this many hours of a pseudonym's newest report
    /// in a pack count (older ones are evicted): at most 5 × 24 = 120 per pseudonym and pack,
    /// so backdating reports into past hours buys nothing (PROTOCOL.md §4, rule 8a).
    public static let reportWindowHours: UInt64 = 24

    // Places and reviews (PROTOCOL.md §3 and §5, places).
    public static let maxAddress = 120
    public static let maxCity = 48
    public static let maxZip = 12
    public static let maxLandlord = 64
    public static let maxRent: UInt32 = 1_000_000
    public static let maxBeds: UInt32 = 20
    public static let maxBathsHalf: UInt32 = 40
    public static let maxTermMonths: UInt32 = 120
    public static let maxReviewName = 32
    /// Per pseudonym, pack and UTC day (by op hlc): the places (new ones and edits) and the
    /// reviews (new ones and edits) that count in the views, the smallest by (hlc, id).
    public static let placesPerDay = 5
    public static let reviewsPerDay = 10
    /// Per pseudonym and pack, in all: backdating ops into past days buys no more than this.
    public static let placesPerPseudonym = 50
    public static let reviewsPerPseudonym = 200
    /// A landlord's replies that count per pack and UTC day, and in all.
    public static let repliesPerDay = 20
    public static let repliesPerPseudonym = 500
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
