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

/// The engine's periodic rounds, in the order a tick runs the due ones (`GossipEngine.tick`).
enum Round: Int, CaseIterable, Sendable {
    /// Peers dead too long forgotten, one dead peer asked again (`reviveRound`): every
    /// `reviveIntervalMs`, from the first tick.
    case revive
    /// An exchange with the nearest peer not asked yet (`vicinityRound`): backs off, but not
    /// while a vicinity entry only named by others waits to be asked.
    case vicinity
    /// Contacts inside the fences we need one in; Plumtree's marks and reconciliation misses
    /// pruned to the links (`remoteRound`): every `vicinityIntervalMs`, from `start`.
    case remote
    /// A HyParView shuffle (`shuffle`): backs off.
    case shuffle
    /// The pack directory reconciled, rim contacts pulled (`directoryRound`, `rimRound`):
    /// backs off.
    case directory
    /// Live packs reconciled (`reconcileRound`): backs off, but not while a reconciliation
    /// of the round before is unanswered.
    case reconcile
}

/// When each periodic round runs next (GossipEngine.swift, `tick`), and when the shell is due
/// to tick us.
struct Rounds: Sendable {
    /// Each round's timer (Backoff.swift), by `Round`.
    private var timers: [Backoff]
    /// The active and vicinity view versions the rounds last saw (`noticeViewChanges`).
    var seenVersions = PeerTable.Versions()
    var nextRejoinMs: UInt64 = 0
    /// Re-joins through the seeds since the last time a link was up: each waits twice as
    /// long as the one before (from `rejoinIntervalMs` up to `rejoinMaxMs`).
    var rejoinAttempts = 0
    var nextEagerShuffleMs: UInt64 = 0
    /// The wait between eager shuffles while they bring no passive peer (doubling from
    /// `helloRetryMs` up to `quietMaxMs`; back to nothing once the passive view has one).
    var eagerShuffleDelayMs: UInt64 = 0
    /// When we last asked the shell to tick us (shells keep the earliest request).
    var tickDueMs: UInt64 = .max
    var started = false

    init(config: GossipConfig) {
        timers = Round.allCases.map { round in
            switch round {
            case .revive: Backoff(baseMs: config.reviveIntervalMs, maxMs: config.reviveIntervalMs, dueMs: 0)
            case .vicinity: Backoff(baseMs: config.vicinityIntervalMs, maxMs: config.quietMaxMs)
            case .remote: Backoff(baseMs: config.vicinityIntervalMs, maxMs: config.vicinityIntervalMs, dueMs: 0)
            case .shuffle: Backoff(baseMs: config.shuffleIntervalMs, maxMs: config.quietMaxMs)
            case .directory: Backoff(baseMs: config.directoryIntervalMs, maxMs: config.quietMaxMs)
            case .reconcile: Backoff(baseMs: config.reconIntervalMs, maxMs: config.reconQuietMaxMs)
            }
        }
    }

    subscript(round: Round) -> Backoff {
        get { timers[round.rawValue] }
        set { timers[round.rawValue] = newValue }
    }

    /// The soonest any round falls due.
    var nextDueMs: UInt64 { timers.reduce(UInt64.max) { min($0, $1.dueMs) } }

    /// Starts every round's clock but the revive round's, which runs from the first tick.
    mutating func start(nowMs: UInt64) {
        for round in Round.allCases where round != .revive { self[round].start(nowMs: nowMs) }
    }
}

/// How ops spread: push and pull trees, the stem, reconciliation's turn (PROTOCOL §10–11).
struct Spread: Sendable {
    /// Verifies an envelope (decoded, with its id): `SignedOp.open`, or the simulator's memo.
    var opener: @Sendable (Envelope, OpID) throws -> SignedOp = { envelope, _ in try SignedOp.open(envelope) }
    /// Plumtree: lazy links, announced ids not yet received, IHAVEs owed (Plumtree.swift).
    var plumtree: Plumtree
    /// Dandelion++ stem: this epoch's stem link and the ops under embargo (Stem.swift).
    var stem = StemState()
    /// Links that came up since the last tick: their directory is reconciled at once (§11a).
    var newLinks: Set<PeerAddress> = []
    var reconCursor = 0
    /// The next link to pull the directory from, in turn (Directory.swift, `directoryRound`).
    var directoryCursor = 0
    /// This round's reconciliations not answered yet (AntiEntropy.swift).
    var reconUnanswered: Set<ReconAsked> = []
    /// Invite-only packs whose reconciliation with a link ended settled on its first step since
    /// this engine started: the link held nothing of the pack we lack, key handouts included
    /// (PROTOCOL §3b, "Key sync"). At most `keySyncCapacity`; `keySyncNew` are those the shell
    /// has not taken yet (`takeKeySynced`).
    var keySynced: Set<PackID> = []
    var keySyncNew: [PackID] = []
    /// Pack reconciliation steps held to go out together, one `Reconciles` per link (nil: not
    /// holding; AntiEntropy.swift, `holdReconciles`).
    var reconOutbox: [(to: PeerAddress, round: ReconcileRound, size: Int)]?
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

/// Reach across NATs (PROTOCOL §9): what our links see us as, the introductions we made and
/// the punches we tried, what we relay, contact codes, and our own addresses (set by the shell).
struct Reach: Sendable {
    /// What our links say they see us as (Reflexive.swift).
    var reflexive = ReflexiveAddresses()
    /// Pairs we introduced, addresses we punched toward (Introductions.swift).
    var introductions = IntroductionState()
    /// Bytes we relay for members (Relay.swift).
    var relay = RelayState()
    /// Direct tries of our relayed links (DirectPreference.swift).
    var retries = DirectRetries()
    /// Our contact key, the proofs we give, the codes we check (Contacts.swift).
    var contacts = ContactProofs()
    /// Each interface's address with our port; nil: never behind a NAT (the simulator).
    var localAddresses: [PeerAddress]?
}
