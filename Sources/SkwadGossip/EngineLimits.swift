/// The engine's fixed bounds, rates and timings, one block per part: constants every node
/// shares, stated in PROTOCOL.md (§9–§13) and SECURITY.md, not settings. A node operator
/// changes nothing here; what may be tuned per engine is `GossipConfig`, and what a node
/// operator may set is the node's settings tree (SkwadNode's `NodeConfig.settings`).
/// The wire's own caps stay with the wire: `Frame` and `ReplayWindow` (Session.swift),
/// `Message`'s list caps (MessageWire.swift), `Reconciliation.branching`.

// MARK: - Membership (Membership.swift, MembershipHandlers.swift, MembershipGuard.swift)

extension GossipEngine {
    /// Longest walk of a low-priority `Neighbor` (longer ones from the wire are clamped).
    static let neighborWalk: UInt32 = 3
    /// Every this many pings carry our info even to a peer that has it (a lost `Interest` heals).
    static let pingInfoEvery: UInt64 = 8
    /// Indirect pings under way, at most.
    static let indirectCapacity = 256
    /// The pace at which a view with room asks passive peers (`PeerTable.membershipDeadlineMs`).
    static let fillingTickMs: UInt64 = 250
}

extension MembershipGuard {
    /// Newcomers on trial to displace a member, at most, and how long one has to answer.
    static let candidateCapacity = 16
    static let candidateTimeoutMs: UInt64 = 2000
    /// Source addresses whose last `Join` is remembered, and the least time between two
    /// `Join`s accepted from one source.
    static let joinMemory = 1024
    static let joinIntervalPerSourceMs: UInt64 = 2_000
}

// MARK: - Peer table (PeerTable.swift)

extension PeerTable {
    /// Remote contacts (links inside fences followed from afar), at most.
    static let remoteCapacity = 64
    /// Peers muted for leaving our vicinity exchanges unanswered, at most.
    static let mutedCapacity = 256
    /// Suspect cells remembered, at most, and the unanswered names that make a cell suspect.
    static let suspectCellCapacity = 32
    static let suspectFailures = 2
}

// MARK: - Vicinity and need to know (Vicinity.swift, NeedToKnow.swift)

extension GossipEngine {
    /// Vicinity names dropped unanswered in a row after which every other vicinity turn goes
    /// to a proven member (`Vicinity.nameFailures`).
    static let nameFailuresForTurns = 2
    /// Our reconciliation rounds a link may leave unanswered in a row and still count as a contact (§11).
    static let contactMisses = 3
    /// Hops asked for remote contacts remembered, at most.
    static let remoteHopCapacity = 64
    /// The precision of the cell a stranger is told (about 39 × 20 km at the equator).
    static let strangerPrecision = 4
    /// Peers remembered as proven by a reconciliation, at most (the least recently reconciled go).
    static let reconciledCapacity = 256
}

extension StrangerBudget {
    /// Network groups tracked, at most; the window each budget spans; answers naming peers
    /// to strangers and distinct target cells allowed per group and window.
    static let capacity = 256
    static let windowMs: UInt64 = 30_000
    static let names = 8
    static let targets = 2
}

// MARK: - Directory (Directory.swift, PackViews.swift)

extension GossipEngine {
    /// An unlocked fenced pack is in the directory of the nodes within this distance of its fence.
    public static let directoryNearMeters = 10_000.0
    /// A peer at the rim is asked for its directory at most this often; rim peers remembered, at most.
    static let rimRetryMs: UInt64 = 30_000
    static let rimCapacity = 64
    /// Bytes of a `FindPack` query, at most.
    static let maxFindQuery = 64
}

extension PackViewCache {
    /// Directory perspectives (cells or pairs) cached, at most (the oldest forgotten first).
    static let directoryPerspectives = 64
}

// MARK: - Spread (Plumtree.swift, Stem.swift, AntiEntropy.swift)

extension Plumtree {
    /// Ids remembered as recently received, and ids announced but not pushed, at most.
    static let recentCapacity = 50_000
    static let notPushedCapacity = 4096
    /// Announcers remembered per missing id, and graft attempts before reconciliation is left to it.
    static let announcersPerID = 8
    static let graftTries = 3
}

extension StemState {
    /// Ops under embargo, at most: beyond it, an op is fluffed at once.
    static let embargoCapacity = 1024
}

extension GossipEngine {
    /// Invite-only packs the engine keeps key-sync marks for, at most.
    static let keySyncCapacity = 1024
}

// MARK: - Sessions (SessionTable.swift)

extension SessionTable {
    /// `expire` scans the table at most this often (and otherwise when its soonest deadline comes).
    static let expiryScanMs: UInt64 = 250
}

// MARK: - Reach: contacts, reflexive addresses, introductions, relays, direct retries

extension ContactProofs {
    /// Checks under way and results kept, each table at most this many addresses.
    static let capacity = 16
    /// A probe's zero padding, at least: its proof (≈ 100 bytes) is less than 3× the probe.
    static let minPadding = 64
    /// Proofs given per second, and in a burst (each costs a signature).
    static let proofsPerSecond = 20.0
}

extension ReflexiveAddresses {
    /// Witnesses remembered, at most (the oldest report goes first), and the distinct network
    /// groups that must report one address before it is confirmed.
    static let capacity = 16
    static let quorum = 2
}

extension IntroductionState {
    /// Pairs a member may be introduced in: a burst of 4, then one every 150 s.
    static let perMemberBurst: Double = 4
    static let perMemberPerSecond: Double = 1.0 / 150
    /// Pairs, punched addresses, members and fences tracked, each at most; a pair is not
    /// introduced again, nor an address punched again, within `againMs`.
    static let capacity = 256
    static let againMs: UInt64 = 60_000
    /// Pairs introduced per new member or interest change, at most.
    static let pairsPerChange = 2
    /// The zero padding an introduction carries, at least: its DATA frame (plaintext + 28
    /// bytes) is then over 266 bytes, and the handshake it causes toward an unproven address
    /// (a 200-byte HELLO, at most 4 tries: 800 bytes) is at most 3x its size.
    static let minPadding = 240
}

extension RelayState {
    /// Bytes relayed per second for one source, and for all (bursts of 8x).
    static let perSourceBytesPerSecond: Double = 4_000
    static let totalBytesPerSecond: Double = 32_000
    /// Sources with a bucket, at most (the least recently used goes).
    static let capacity = 64
    /// What wrapping a frame in `Relay` adds to it, at most: its own DATA frame's 28 bytes and
    /// the message's fields (an address of at most 64 bytes), rounded up.
    static let overhead = 128
}

extension DirectRetries {
    /// The first try, after the relayed link came up, and the longest wait between tries.
    static let firstRetryMs: UInt64 = 30_000
    static let maxRetryMs: UInt64 = 600_000
}

// MARK: - Pictures (Pictures.swift)

extension PictureFetches {
    /// Pictures fetched at once; the one that progressed least recently goes when full.
    static let capacity = 16
    /// Blocks in flight per picture and per peer (the origin, asked with `wait`, may take
    /// them all), and the most indexes in one `BlockWant`.
    static let inFlightPerFetch = 32
    static let inFlightWaiting = 64
    static let inFlightPerPeer = 8
    static let maxWantIndexes = 8
    /// Waiting asks (`BlockWant.wait`) kept: in all, per peer, and for how long before they
    /// are answered empty. An origin that left this many asks of ours unanswered is asked
    /// like any other link.
    static let waitCapacity = 1024
    static let waitsPerPeer = 128
    static let waitMs: UInt64 = 1000
    static let originMissLimit = 2
    /// An ask unanswered this long (at least; 4 × the fetch's smoothed answer time, at most
    /// `maxAskTimeoutMs`) goes to another peer; peers asked before, remembered per block.
    static let askTimeoutMs: UInt64 = 500
    static let maxAskTimeoutMs: UInt64 = 4000
    static let askHistory = 4
    /// A fetch that got no block for this long is given up (the node may start it again).
    static let giveUpMs: UInt64 = 60_000
    /// Who sent each post with a picture: the first peer to ask (at most `originCapacity`).
    static let originCapacity = 256
    /// Blocks answered per second per peer (and its burst): as many as a link's inbound
    /// budget of datagrams (§13) lets through, so an answer is never wasted on it.
    static let answersPerSecond = 256.0
}
