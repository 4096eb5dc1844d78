import SkwadCrypto
import SkwadModel

/// Node-wide settings the replica's rules depend on. Every node of one network must use
/// the same admin keys, or their views of admin packs differ (PROTOCOL.md §4).
public struct ReplicaConfig: Sendable {
    /// Keys whose genesis makes a pack permanent and who may moderate and edit any pack.
    public var adminKeys: Set<PublicKey>
    /// Admission rejects ops whose HLC is more than this far ahead of local time.
    public var maxFutureSkewMs: UInt64
    /// How many ops for not-yet-known packs are held, in total, until their genesis arrives.
    public var pendingLimit: Int

    public init(adminKeys: Set<PublicKey> = [], maxFutureSkewMs: UInt64 = 300_000, pendingLimit: Int = 10_000) {
        self.adminKeys = adminKeys; self.maxFutureSkewMs = maxFutureSkewMs; self.pendingLimit = pendingLimit
    }
}

/// Why an op was not admitted. Stable names: they appear in stats and JSON.
public enum Rejection: String, Sendable, CaseIterable, Hashable {
    case malformed, tooLarge, badSignature, badStamp, unknownPack, packDeleted, packExpired
    case outsideFence, missingLocation, clockAhead, notAllowed
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
