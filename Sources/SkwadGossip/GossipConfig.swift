/// Protocol parameters, one group per part of the engine that reads them. Defaults are the
/// values in PROTOCOL.md §9–13.
public struct GossipConfig: Sendable, Equatable {
    /// The engine's clock: its tick while it has prompt work, its longest sleep, and how far
    /// apart quiet rounds back off.
    public var ticks = Ticks()
    /// HyParView's views, the vicinity, remote contacts, peers given up on, joining (§9).
    public var membership = Membership()
    /// SWIM failure detection of the active members (§9).
    public var swim = Swim()
    /// Plumtree, the stem, reconciliation and the pack directory (§10–11a).
    public var spread = Spread()
    /// Secure sessions: handshakes, queues, bounded tables, cookies (§8, §13).
    public var sessions = Sessions()
    /// Budgets per peer address, per pseudonym and per source of new packs (§13).
    public var limits = Limits()

    public init() {}

    public struct Ticks: Sendable, Equatable {
        /// The engine's clock granularity while it has prompt work (lazy notices to flush, ops
        /// to graft, handshakes or a neighbour request under way); without it, the engine sleeps
        /// until its soonest deadline, at most `idleTickMs` (`GossipEngine.idleWait`). Every
        /// round's base interval is at least `idleTickMs`, so that a round poked between ticks
        /// still comes on time.
        public var tickMs: UInt64 = 50
        public var idleTickMs: UInt64 = 1000
        /// Rounds that back off while nothing changes (§9, "Quiet when idle"): shuffles,
        /// vicinity exchanges and directory pulls at most this far apart, pack reconciliation
        /// at most `Spread.reconQuietMaxMs`.
        public var quietMaxMs: UInt64 = 30_000

        public init() {}
    }

    public struct Membership: Sendable, Equatable {
        /// HyParView: active view (links we gossip on) and passive view (backups) sizes.
        public var activeSize = 5
        public var passiveSize = 30
        /// Random-walk lengths of ForwardJoin: active (ARWL) and passive (PRWL).
        public var activeWalk = 4
        public var passiveWalk = 2
        public var shuffleSample = 6
        public var shuffleIntervalMs: UInt64 = 5000
        /// A full active view lets a newcomer displace a member at most this often (§9).
        public var evictionIntervalMs: UInt64 = 1000
        /// Vicinity: the nearest peers kept (by cell distance), peers sent per exchange, how
        /// often a node exchanges, and how long it waits for an answer before dropping the peer.
        public var vicinitySize = 16
        public var vicinitySample = 8
        public var vicinityIntervalMs: UInt64 = 2000
        public var vicinityTimeoutMs: UInt64 = 4000
        /// Peers that are not our links but exchange vicinity with us, remembered (their info).
        public var inboundMemory = 64
        /// Remote contacts kept inside each fence of a pack followed from afar.
        public var remotePerFence = 2
        /// Unanswered exchanges in a row after which a vicinity entry is dropped.
        public var vicinityMisses = 3
        /// Peers listed in a `Vicinity` answer to a stranger that routes to the centre of a fence
        /// we hold (only those inside the fence; a stranger is told nobody else, §9).
        public var strangerVicinitySample = 2
        /// Peers given up on: how many are remembered, for how long, and how often one is retried.
        public var deadMemory = 64
        public var deadForgetMs: UInt64 = 600_000
        public var reviveIntervalMs: UInt64 = 5000
        public var rejoinIntervalMs: UInt64 = 3000
        /// Unanswered re-joins back off, doubling, up to this interval.
        public var rejoinMaxMs: UInt64 = 60_000

        public init() {}
    }

    public struct Swim: Sendable, Equatable {
        /// Ping an active member not heard from for `pingIntervalMs`; with no answer within
        /// `ackTimeoutMs` it is suspect (`indirectPings` others are asked to ping it); a suspect
        /// silent for `deadAfterMs` in all is dead (PROTOCOL §9: a silent member goes 4 s after it
        /// was last heard).
        public var pingIntervalMs: UInt64 = 2000
        public var ackTimeoutMs: UInt64 = 500
        public var deadAfterMs: UInt64 = 4000
        public var indirectPings = 2

        public init() {}
    }

    public struct Spread: Sendable, Equatable {
        /// Plumtree: announce each op to at most this many lazy neighbours.
        public var lazyFanout = 4
        /// Plumtree: wait this long after an IHAVE before asking for the op.
        public var graftTimeoutMs: UInt64 = 150
        /// Ids announced but not yet received, at most.
        public var missingCapacity = 10_000
        /// Vicinity links carry an op only when fewer active members than this may receive it.
        public var activeEnough = 4
        /// Dandelion++ (§10a): each stem hop spreads an op with this probability (1 turns the
        /// stem off); the stem link changes every epoch; the fail-safe waits this long plus a
        /// random part up to as long again.
        public var stemFluff = 0.2
        public var stemEpochMs: UInt64 = 600_000
        public var stemFailsafeMs: UInt64 = 1000
        /// Anti-entropy: reconcile with one neighbour this often (backing off to at most
        /// `reconQuietMaxMs` while nothing changes), at most this many packs per round.
        public var reconIntervalMs: UInt64 = 1000
        public var reconQuietMaxMs: UInt64 = 15_000
        public var reconPacksPerRound = 4
        /// Reconciliation (of packs and of the directory) answers at most this many ops, and asks
        /// at most this many ids, per message.
        public var opsPerAnswer = 64
        /// The pack directory (§11a): reconciled with one random link this often (and with each
        /// new link at once); at most this many packs.
        public var directoryIntervalMs: UInt64 = 3000
        public var directoryCapacity = 1024
        /// FindPack: links asked at once (and new links whose directory is reconciled per tick),
        /// matches answered.
        public var findPackFanout = 8
        public var findPackMatches = 4

        public init() {}
    }

    public struct Sessions: Sendable, Equatable {
        /// A HELLO unanswered this long is sent again, at most `helloAttempts` times in all
        /// (then the peer is unreachable).
        public var helloRetryMs: UInt64 = 500
        public var helloAttempts = 4
        /// Messages queued per peer behind a handshake, at most.
        public var maxQueuedPerPeer = 64
        /// Bounded tables (§8, §13): secure sessions, and per-address token buckets.
        public var maxSessions = 1024
        public var maxAddressLimits = 4096
        /// Responder sessions without an authenticated DATA frame, and pending sessions beside
        /// a working one, are dropped after this long.
        public var unprovenSessionMs: UInt64 = 3000
        /// An established session on which we have sent for this long without a single
        /// authenticated frame back is dropped; the next message re-handshakes (§8).
        public var silentSessionMs: UInt64 = 5000
        /// Handshakes per second (burst the same) before HELLOs must echo a cookie; cookie time bucket.
        public var handshakesPerSecond: Double = 64
        public var cookieEpochMs: UInt64 = 120_000

        public init() {}
    }

    public struct Limits: Sendable, Equatable {
        /// Limits per peer address and per pseudonym.
        public var peerDatagramsPerSecond: Double = 400
        public var peerBytesPerSecond: Double = 400_000
        public var pseudonymOpsPerMinute: Double = 120
        /// Pseudonyms with a rate bucket, at most.
        public var pseudonymMemory = 4096
        /// New pack geneses accepted from one source address: rate, burst, and how many sources
        /// are tracked.
        public var genesesPerSecond: Double = 2
        public var genesisBurst: Double = 128
        public var genesisSources = 1024

        public init() {}
    }
}
