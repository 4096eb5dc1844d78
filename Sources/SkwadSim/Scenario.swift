import SkwadModel

/// A simulation scenario: what `simulations/*.toml` describe. Every field has a default, so
/// a scenario file names only what it changes (`Scenario` below lists every key and its default).
public struct Scenario: Sendable, Equatable {
    public var name = "scenario"
    /// Virtual time simulated, in ms.
    public var durationMs: UInt64 = 60_000
    /// One CSV row (and one coverage point) every this many ms.
    public var sampleMs: UInt64 = 1_000
    /// The wall clock replicas see at virtual time 0.
    public var epochMs: UInt64 = 1_790_000_000_000
    /// Precision of the location cells nodes announce and claim (7 ≈ 150 m cells).
    public var geohashPrecision = 7
    public var nodes = Nodes()
    public var campuses: [Campus] = []
    public var packs = Packs()
    public var workload = Workload()
    public var network = Network()
    public var partitions: [Partition] = []
    public var churn: Churn?
    public var strategy = StrategySettings()
    /// Misbehaving nodes (`[hostile]`, simulations/hostile.toml); none by default.
    public var hostile = Hostile()

    public init() {}

    /// A colluding `fraction` of the nodes attacks the overlay through the real wire
    /// protocol (`Adversary`): eclipse attempts, floods, lying cells, silent dropping and
    /// relaying of locked packs' ops to honest nodes outside their fences. They are drawn
    /// among the nodes that author no op, so honest coverage measures forwarding only.
    public struct Hostile: Sendable, Equatable {
        public var fraction = 0.0
        /// Honest nodes every adversary tries to eclipse (adversary i attacks target i mod count).
        public var eclipseTargets = 5
        /// Further honest nodes each adversary links to: half inside the locked fence it
        /// claims to be in (to get its ops), half anywhere (to relay them to).
        public var contacts = 4
        /// Each adversary's attack round: Join, high-priority Neighbor with a planted origin,
        /// ForwardJoin and Shuffle planting its allies, Interest with its lie, and relays.
        public var roundMs: UInt64 = 500
        /// Junk datagrams per second sent to each attacked node (the per-address limit is 400/s).
        public var floodPerSecond = 100.0
        /// Claim a cell inside a locked pack's fence instead of its own.
        public var lie = true
        public init() {}
    }

    public enum Placement: String, Sendable, CaseIterable { case uniform, campuses }

    public struct Box: Sendable, Equatable {
        public var latMin = 40.40, lonMin = -80.03, latMax = 40.48, lonMax = -79.90
        public init() {}
        public init(latMin: Double, lonMin: Double, latMax: Double, lonMax: Double) {
            self.latMin = latMin; self.lonMin = lonMin; self.latMax = latMax; self.lonMax = lonMax
        }
    }

    public struct Nodes: Sendable, Equatable {
        public var count = 100
        public var placement = Placement.uniform
        /// The map: uniform placement and the background of campus placement use it.
        public var box = Box()
        /// With campus placement, the fraction of nodes placed uniformly in the box instead.
        public var background = 0.0
        /// Late joiners: this fraction of the nodes (drawn among those that do not churn)
        /// is offline and empty until `lateJoinMs`, then starts. The report's
        /// `directory_coverage` measures what they learn of the packs around them.
        public var late = 0.0
        public var lateJoinMs: UInt64 = 30_000
        public init() {}
    }

    public struct Campus: Sendable, Equatable {
        public var name: String
        public var lat: Double
        public var lon: Double
        public var radiusMeters: Double
        /// Relative share of the nodes placed here.
        public var weight: Double
        public init(name: String, lat: Double, lon: Double, radiusMeters: Double, weight: Double = 1) {
            self.name = name; self.lat = lat; self.lon = lon; self.radiusMeters = radiusMeters; self.weight = weight
        }
    }

    public struct Packs: Sendable, Equatable {
        /// Packs created at the start (within `initialWindowMs`) by random nodes, centred where they stand.
        public var initial = 10
        public var initialWindowMs: UInt64 = 1_000
        /// Fence radius, drawn uniformly in [min, max].
        public var radiusMinMeters = 300.0
        public var radiusMaxMeters = 1_500.0
        /// Fraction of user packs that are locked (posts need a location claim inside the fence).
        public var lockedFraction = 0.0
        /// Admin packs (permanent, signed by an admin key), one per campus in turn, or at random nodes.
        public var admin = 0
        public var adminRadiusMeters = 2_000.0
        /// No fences at all: every node belongs to every pack (the classic, fully replicated setting).
        public var global = false
        /// For each unlocked pack, this many random nodes outside its fence subscribe to it.
        public var remoteSubscribers = 0
        public var powBits: UInt32 = 0
        public init() {}
    }

    /// Poisson rates per node and hour, between `startMs` and `endMs`; `maxOps` caps the total.
    public struct Workload: Sendable, Equatable {
        public var startMs: UInt64 = 1_000
        public var endMs: UInt64 = 30_000
        public var packsPerNodeHour = 0.0
        public var postsPerNodeHour = 0.0
        public var commentsPerNodeHour = 0.0
        public var votesPerNodeHour = 0.0
        /// Cap on all ops, pack geneses included (0 = no cap).
        public var maxOps = 0
        public init() {}
    }

    public struct Network: Sendable, Equatable {
        public var baseLatencyMs = 5.0
        /// Added per km of great-circle distance between sender and receiver.
        public var msPerKm = 0.02
        /// Uniform extra delay in [0, jitter).
        public var jitterMs = 5.0
        /// Probability that a datagram is lost.
        public var loss = 0.0
        /// Uplink cap per node in bytes/s; 0 = unlimited.
        public var bandwidthBytesPerSecond = 0.0
        /// Per-datagram overhead charged on top of the payload (IP + UDP + frame).
        public var headerBytes = 48
        public init() {}
    }

    public enum PartitionSplit: String, Sendable, CaseIterable { case campus, longitude, random }

    public struct Partition: Sendable, Equatable {
        public var startMs: UInt64
        public var healMs: UInt64
        public var by: PartitionSplit
        public var groups: Int
        public init(startMs: UInt64, healMs: UInt64, by: PartitionSplit = .longitude, groups: Int = 2) {
            self.startMs = startMs; self.healMs = healMs; self.by = by; self.groups = groups
        }
    }

    /// A fraction of the nodes alternate between up and down (exponential durations) from
    /// `startMs`; all are back at `endMs`. A returning node keeps its data with probability `keepData`.
    public struct Churn: Sendable, Equatable {
        public var fraction = 0.2
        public var startMs: UInt64 = 5_000
        public var endMs: UInt64 = 40_000
        public var meanUpMs = 10_000.0
        public var meanDownMs = 5_000.0
        public var keepData = 0.5
        public init() {}
    }

    public enum RoundPhase: String, Sendable, CaseIterable {
        /// Every node's round timer fires at multiples of `roundMs` (synchronous rounds).
        case aligned
        /// Each node's rounds start at a random offset (asynchronous rounds).
        case random
    }

    public struct StrategySettings: Sendable, Equatable {
        /// Run each of these over the same world and compare them.
        public var strategies: [StrategyKind] = [.pushPull]
        public var roundMs: UInt64 = 1_000
        public var phase = RoundPhase.aligned
        /// Rumor mongering: lose interest after k unnecessary contacts (counter) or with probability 1/k (coin).
        public var rumorK = 2
        /// Colluding spies among the nodes, for `origin_precision`: each guesses that the first
        /// node to hand it an op wrote it.
        public var spies = 0.1
        /// Skwad's engine: the Dandelion++ fluff probability per stem hop (1: no stem).
        public var stemFluff = 0.2
        public init() {}
    }
}

/// The dissemination strategies a scenario can run.
public enum StrategyKind: Sendable, Hashable, CustomStringConvertible {
    /// Anti-entropy (Demers et al. 1987 §1.3): every round each node contacts one uniform random peer.
    case push, pull, pushPull
    /// Rumor mongering (§1.4): push hot rumors each round; lose interest by counter or coin,
    /// with feedback (only contacts that already knew count) or blind (every contact counts).
    case rumor(feedback: Bool, coin: Bool)
    /// Skwad's own engine (SkwadGossip), through `SkwadGossipStrategy`.
    case skwad

    public static let all: [StrategyKind] = [
        .push, .pull, .pushPull,
        .rumor(feedback: true, coin: false), .rumor(feedback: true, coin: true),
        .rumor(feedback: false, coin: false), .rumor(feedback: false, coin: true), .skwad
    ]

    public var description: String {
        switch self {
        case .push: "push"
        case .pull: "pull"
        case .pushPull: "push-pull"
        case .rumor(let feedback, let coin): "rumor-\(feedback ? "feedback" : "blind")-\(coin ? "coin" : "counter")"
        case .skwad: "skwad"
        }
    }

    public init?(name: String) {
        guard let k = Self.all.first(where: { $0.description == name }) else { return nil }
        self = k
    }
}
