import SkwadCrypto
import SkwadModel

/// Node-wide settings the replica's rules depend on. Every node of one network must use
/// the same admin keys, or their views of admin packs differ (PROTOCOL.md §4).
public struct ReplicaConfig: Sendable {
    /// Keys whose genesis makes a pack permanent and who may moderate and edit any pack.
    public var adminKeys: Set<PublicKey>
    /// Admission rejects ops whose HLC is more than this far ahead of local time
    /// (PROTOCOL.md §4: default 60 s; a node may configure it with `max_clock_skew_ms`).
    public var maxFutureSkewMs: UInt64
    /// The default allowed clock skew: one minute.
    public static let defaultMaxFutureSkewMs: UInt64 = 60_000
    /// How many ops for not-yet-known packs are held, in total, until their genesis arrives.
    public var pendingLimit: Int

    /// Floors of stamp work (PROTOCOL.md §2): the protocol's `PowFloor` constants. Only the
    /// simulator, which models dissemination and not identity cost, and the REPL fuzzer's
    /// offline node (`NodeConfig.powFloors`) run with lower ones.
    public var pseudonymPowFloor: UInt32
    public var genesisPowFloor: UInt32
    /// Most packs held that this node did not create itself (PROTOCOL.md §4, rule 5):
    /// a genesis from elsewhere beyond it is rejected (`tooManyPacks`).
    public var maxRemotePacks: Int
    public static let defaultMaxRemotePacks = 1_000

    public init(
        adminKeys: Set<PublicKey> = [], maxFutureSkewMs: UInt64 = ReplicaConfig.defaultMaxFutureSkewMs, pendingLimit: Int = 10_000,
        pseudonymPowFloor: UInt32 = PowFloor.pseudonymBits, genesisPowFloor: UInt32 = PowFloor.genesisBits,
        maxRemotePacks: Int = ReplicaConfig.defaultMaxRemotePacks
    ) {
        self.adminKeys = adminKeys; self.maxFutureSkewMs = maxFutureSkewMs; self.pendingLimit = pendingLimit
        self.pseudonymPowFloor = pseudonymPowFloor; self.genesisPowFloor = genesisPowFloor; self.maxRemotePacks = maxRemotePacks
    }

    /// Bits a pseudonym stamp must show in a pack whose genesis says `powBits`.
    public func pseudonymBits(_ powBits: UInt32) -> UInt32 { PowFloor.pseudonym(powBits, floor: pseudonymPowFloor) }
    /// Bits a genesis stamp must show when the genesis says `powBits`.
    public func genesisBits(_ powBits: UInt32) -> UInt32 { PowFloor.genesis(powBits, floor: genesisPowFloor) }
}

/// Why an op was not admitted. Stable names: they appear in stats and JSON.
public enum Rejection: String, Sendable, CaseIterable, Hashable {
    case malformed, tooLarge, badSignature, badStamp, unknownPack, packDeleted, packExpired
    case outsideFence, missingLocation, clockAhead, notAllowed, tooManyPacks
    /// A pseudonym's report beyond `Limits.reportsPerHour` in one pack and clock hour.
    case reportLimited
}

/// What `receive`/`admit` did with an op.
public enum AdmitOutcome: Sendable, Equatable {
    /// Admitted: the op itself first, then any held ops its arrival unlocked.
    case admitted([SignedOp])
    /// Already in the set.
    case duplicate
    /// Valid so far, but its pack's genesis is unknown: held until it arrives.
    case pending
    case rejected(Rejection, String)

    public var isAdmitted: Bool { if case .admitted = self { true } else { false } }
}

/// Pack lifetime (normative: PROTOCOL.md §6). User packs live 24 h from their genesis,
/// extended by one hour for every distinct pseudonym other than the Alpha that posted,
/// commented or voted in the pack, up to 48 h in all. Admin packs are permanent. A pack is
/// hidden at expiry and purged (ops dropped, tombstone kept) once the maximum lifetime plus
/// a grace period has passed, whatever its popularity.
public enum Lifetime {
    public static let hour: UInt64 = 3_600_000
    public static let baseMs: UInt64 = 24 * hour
    public static let maxMs: UInt64 = 48 * hour
    public static let extensionPerPseudonymMs: UInt64 = hour
    public static let purgeGraceMs: UInt64 = hour

    public static func lifetimeMs(distinctParticipants: Int) -> UInt64 {
        min(maxMs, baseMs + UInt64(max(0, distinctParticipants)) * extensionPerPseudonymMs)
    }
}
