import SkwadCrypto
import SkwadModel

/// The engine's state besides its peers and sessions, in four groups, each owned by the
/// layer named (GossipEngine.swift holds one of each).

/// Rate limits on what peers may make us keep (PROTOCOL §13).
struct RateLimits: Sendable {
    /// Ops accepted per pseudonym (Dissemination.swift, `admitRate`).
    var pseudonym: [PublicKey: TokenBucket] = [:]
    /// New packs accepted per source address (Dissemination.swift, `takeGenesis`).
    var genesis: [PeerAddress: TokenBucket] = [:]
    /// When idle pseudonym buckets are next swept.
    var nextSweepMs: UInt64 = 0
}

/// When each periodic round runs next (GossipEngine.swift, `tick`), and when the shell is due
/// to tick us.
struct Rounds: Sendable {
    /// Rounds that back off while nothing changes (Backoff.swift), and what they last saw.
    var shuffle: Backoff
    var recon: Backoff
    var vicinity: Backoff
    var directory: Backoff
    var seenVersions = PeerTable.Versions()
    var nextReviveMs: UInt64 = 0
    /// Remote contacts and Plumtree's link set are kept up at the base vicinity interval.
    var nextRemoteMs: UInt64 = 0
    var nextRejoinMs: UInt64 = 0
    /// Re-joins through the seeds since the last time a link was up: each waits twice as
    /// long as the one before (from `rejoinIntervalMs` up to `rejoinMaxMs`).
    var rejoinAttempts = 0
    var nextEagerShuffleMs: UInt64 = 0
    /// When we last asked the shell to tick us (shells keep the earliest request).
    var tickDueMs: UInt64 = .max
    var started = false

    init(config: GossipConfig) {
        shuffle = Backoff(baseMs: config.shuffleIntervalMs, maxMs: config.quietMaxMs)
        recon = Backoff(baseMs: config.reconIntervalMs, maxMs: config.reconQuietMaxMs)
        vicinity = Backoff(baseMs: config.vicinityIntervalMs, maxMs: config.quietMaxMs)
        directory = Backoff(baseMs: config.directoryIntervalMs, maxMs: config.quietMaxMs)
    }
}

/// How ops spread: push and pull trees, the stem, reconciliation's turn (PROTOCOL §10–11).
struct Spread: Sendable {
    /// Plumtree: lazy links, announced ids not yet received, IHAVEs owed (Plumtree.swift).
    var plumtree: Plumtree
    /// Dandelion++ stem: this epoch's stem link and the ops under embargo (Stem.swift).
    var stem = StemState()
    /// Links that came up since the last tick: their directory is reconciled at once (§11a).
    var newLinks: Set<PeerAddress> = []
    var reconCursor = 0
    /// This round's reconciliations not answered yet (AntiEntropy.swift).
    var reconUnanswered: Set<ReconAsked> = []
    /// Live packs and directory views, until the replica's packs change (PackViews.swift).
    var packViews = PackViewCache()

    init(config: GossipConfig) { plumtree = Plumtree(missingCapacity: config.missingCapacity) }
}

/// Membership work under way that is not a fact about one known peer (PROTOCOL §9).
struct MembershipState: Sendable {
    var seeds: [PeerAddress] = []
    var pendingNeighbor: (address: PeerAddress, sinceMs: UInt64)?
    /// A declined or unanswered neighbour request delays the next low-priority one (§9):
    /// the current delay (doubling from `helloRetryMs` to `quietMaxMs`) and when it ends.
    var neighborRetryMs: UInt64 = 0
    var nextLowNeighborMs: UInt64 = 0
    /// Join limits, newcomers on trial, the eviction budget (MembershipGuard.swift).
    var guardState = MembershipGuard()
    /// SWIM pings we relay for others, by our sequence number (`indirectCapacity`).
    var indirect: [UInt64: (requester: PeerAddress, seq: UInt64, target: PeerAddress)] = [:]
    var nextPingSeq: UInt64 = 1
    /// Vicinity entries asked before they had ever exchanged with us and dropped unanswered,
    /// in a row (reset when such an entry answers): from `nameFailuresForTurns` on, vicinity
    /// rounds take turns (`vicinityCautiousTurn`) between names and peers that spoke to us.
    var vicinityNameFailures = 0
    var vicinityCautiousTurn = false
    /// The fences of packs we follow from outside, as of the last remote round (§9).
    var farFences: [Geofence] = []
    /// What each network group may still ask of our vicinity (NeedToKnow.swift).
    var strangerBudget = StrangerBudget()
}
