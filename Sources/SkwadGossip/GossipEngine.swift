import Foundation
import SwiftProtobuf
import SkwadCrypto
import SkwadModel
import SkwadReplica

/// The Skwad gossip protocol as a pure state machine (after apple/swift-cluster-membership's
/// SWIM.Instance): inputs are a datagram, a tick or a local op, each with the current time;
/// outputs are directives the shell carries out. No sockets, no clock, no global randomness.
///
/// Layers (PROTOCOL.md §8–13): secure sessions per address; HyParView membership (active and
/// passive views) with SWIM failure detection; Plumtree dissemination (eager push, pruned to
/// lazy IHAVE, graft by Want); range-based reconciliation per shared pack; the geofence
/// rule on every op sent; token buckets per peer and per pseudonym.
public struct GossipEngine: Sendable {
    public let config: GossipConfig
    var rng: SplitMix
    /// Seeds for ephemeral session keys. Nil: drawn from the engine's seeded generator
    /// (simulations, tests); a real node injects secure randomness here.
    public var keySeeds: (@Sendable () -> [UInt8])?
    /// Decodes and verifies an envelope. The simulator swaps in a memoized one.
    public var opener: @Sendable ([UInt8]) throws -> SignedOp = { try SignedOp.open($0) }
    public internal(set) var stats = GossipStats()
    /// Our own address as others reach us, so we never add ourselves to a view.
    public var selfAddress: PeerAddress?

    /// Accepts or refuses a peer address before any state is kept for it. Nil: any string
    /// (the simulator's names); a real node accepts canonical IP literals only (§8).
    public var addressFilter: (@Sendable (PeerAddress) -> Bool)?
    /// Secure sessions and per-address limits, both bounded (SessionTable.swift, §8, §13).
    var sessions: SessionTable
    var limits: AddressLimits
    /// Handshakes per second done without a cookie; past it, HELLOs get a COOKIE (§8).
    var handshakeBudget: TokenBucket
    var cookies: CookieJar
    var pseudonymLimits: [PublicKey: TokenBucket] = [:]
    /// New packs accepted per source address (Dissemination.swift, `takeGenesis`).
    var genesisLimits: [PeerAddress: TokenBucket] = [:]
    var nextPseudonymSweepMs: UInt64 = 0
    var active: [PeerAddress: PeerState] = [:]
    var passive: [PeerAddress: String] = [:]
    var vicinity: [PeerAddress: VicinityEntry] = [:]
    /// Peers given up on (dead, unreachable, silent), with their cell and when: retried now
    /// and then so that an overlay split by a partition joins up again after it heals.
    var dead: [PeerAddress: (cell: String?, sinceMs: UInt64)] = [:]
    var nextReviveMs: UInt64 = 0
    var reconCursor = 0
    /// Peers inside the fences of packs we follow from outside (PROTOCOL §9, remote contacts).
    var remote: [PeerAddress: VicinityEntry] = [:]
    /// Those fences, as of the last remote round.
    var farFences: [Geofence] = []
    /// What peers that are not our links told us of themselves in a `Vicinity` (we are near
    /// them, they are not among our nearest): enough to answer their reconciliations and Wants.
    var inbound: [PeerAddress: (info: NodeInfo, heardMs: UInt64)] = [:]
    var pendingNeighbor: (address: PeerAddress, sinceMs: UInt64)?
    /// Join limits, newcomers on trial, the eviction budget (MembershipGuard.swift).
    var guardState = MembershipGuard()
    /// Dandelion++ stem: this epoch's stem link and the ops under embargo (Stem.swift).
    var stem = StemState()
    var seeds: [PeerAddress] = []
    public internal(set) var info = NodeInfo()
    /// Plumtree: lazy links, announced ids not yet received, IHAVEs owed (Plumtree.swift).
    var plumtree: Plumtree
    var indirect: [UInt64: (requester: PeerAddress, seq: UInt64, target: PeerAddress)] = [:]
    var nextPingSeq: UInt64 = 1
    var nextShuffleMs: UInt64 = 0
    var nextReconMs: UInt64 = 0
    var nextRejoinMs: UInt64 = 0
    var nextEagerShuffleMs: UInt64 = 0
    var nextVicinityMs: UInt64 = 0
    var nextDirectoryMs: UInt64 = 0
    /// Links that came up since the last tick: their directory is reconciled at once (§11a).
    var newLinks: Set<PeerAddress> = []
    /// When we last asked the shell to tick us (shells keep the earliest request).
    var tickDueMs: UInt64 = .max
    /// Initiator sessions whose handshake is under way (a superset; checked when retried).
    var handshaking: Set<PeerAddress> = []
    var started = false

    struct PeerState: Sendable {
        var info = NodeInfo()
        var lastHeardMs: UInt64
        var pingSeq: UInt64 = 0
        var pingSentMs: UInt64?
        var suspectSinceMs: UInt64?
    }

    public init(config: GossipConfig = .init(), seed: UInt64) {
        self.config = config
        rng = SplitMix(seed: seed)
        sessions = SessionTable(capacity: config.maxSessions)
        plumtree = Plumtree(missingCapacity: config.missingCapacity)
        limits = AddressLimits(capacity: config.maxAddressLimits, datagramsPerSecond: config.peerDatagramsPerSecond,
                               bytesPerSecond: config.peerBytesPerSecond)
        handshakeBudget = TokenBucket(rate: config.handshakesPerSecond, burst: config.handshakesPerSecond, nowMs: 0)
        var cookieRandom = SplitMix(seed: seed ^ 0xC00C_1E5E_C7E7_0001)   // not the engine's own sequence
        cookies = CookieJar(master: cookieRandom.bytes(32), epochMs: config.cookieEpochMs)
    }

    /// A real node keys its cookies with secure randomness.
    public mutating func setCookieSecret(_ master: [UInt8]) { cookies = CookieJar(master: master, epochMs: config.cookieEpochMs) }

    /// Table sizes, for tests and `stats`.
    public var sessionCount: Int { sessions.count }
    public var addressLimitCount: Int { limits.count }

    // MARK: - public surface

    public var activePeers: [PeerAddress] { active.keys.sorted() }
    public var passivePeers: [PeerAddress] { passive.keys.sorted() }
    public func cell(of peer: PeerAddress) -> String? { active[peer]?.info.cell ?? vicinity[peer]?.info.cell ?? passive[peer] }

    /// Joins through the given seeds. Returns the first directives (handshakes, joins, tick).
    public mutating func start(seeds: [PeerAddress], nowMs: UInt64) -> [GossipDirective] {
        self.seeds = seeds
        started = true
        var out: [GossipDirective] = []
        for s in seeds { send(joinMessage(), to: s, nowMs: nowMs, into: &out) }
        nextRejoinMs = nowMs + config.rejoinIntervalMs
        nextReconMs = nowMs + config.reconIntervalMs
        nextShuffleMs = nowMs + config.shuffleIntervalMs
        nextVicinityMs = nowMs + config.vicinityIntervalMs
        nextDirectoryMs = nowMs + config.directoryIntervalMs
        requestTick(afterMs: config.tickMs, nowMs: nowMs, into: &out)
        return out
    }

    /// Our location cell and subscriptions changed: tell the neighbours.
    public mutating func setInterest(cell: String?, subscriptions: Set<PackID>, nowMs: UInt64) -> [GossipDirective] {
        let new = NodeInfo(cell: cell, subscriptions: Set(subscriptions.map(NodeInfo.prefix)))
        guard new != info else { return [] }
        let moved = new.cell != info.cell
        info = new
        if moved { remeasureVicinity() }
        var out: [GossipDirective] = []
        var m = WireMessage(); m.interest = info.wire
        for p in links { send(m, to: p, nowMs: nowMs, into: &out) }
        return out
    }

    /// A local op was admitted (and committed): push it to interested neighbours.
    public mutating func publish(_ op: SignedOp, nowMs: UInt64, replica: Replica) -> [GossipDirective] {
        var out: [GossipDirective] = []
        stemOrFluff(op, except: nil, nowMs: nowMs, replica: replica, into: &out)
        promptTickIfBusy(nowMs: nowMs, into: &out)
        return out
    }

    // MARK: - datagrams

    public mutating func receive(datagram: [UInt8], from: PeerAddress, nowMs: UInt64, replica: inout Replica) -> [GossipDirective] {
        var out: [GossipDirective] = []
        switch receiveFrame(datagram, from: from, nowMs: nowMs, into: &out) {
        case .dropped: return out
        case .handled: break
        case .message(let pt):
            guard let m = try? WireMessage(serializedBytes: pt), m.body != nil else { stats.drop(.malformedMessage); return out }
            handle(m, from: from, nowMs: nowMs, replica: &replica, into: &out)
        }
        promptTickIfBusy(nowMs: nowMs, into: &out)
        return out
    }

    // MARK: - timers

    public mutating func tick(nowMs: UInt64, replica: inout Replica) -> [GossipDirective] {
        var out: [GossipDirective] = []
        tickDueMs = .max
        expireSessions(nowMs: nowMs)
        retryHandshakes(nowMs: nowMs, into: &out)
        flushLazy(nowMs: nowMs, into: &out)
        graftMissing(nowMs: nowMs, into: &out)
        stemFailsafe(nowMs: nowMs, replica: replica, into: &out)
        detectFailures(nowMs: nowMs, into: &out)
        fillActiveView(nowMs: nowMs, into: &out)
        if nowMs >= nextReviveMs { nextReviveMs = nowMs + config.reviveIntervalMs; reviveRound(nowMs: nowMs, into: &out) }
        if nowMs >= nextVicinityMs {
            nextVicinityMs = nowMs + config.vicinityIntervalMs
            vicinityRound(nowMs: nowMs, into: &out)
            plumtree.retain(links: Set(links))
            remoteRound(nowMs: nowMs, replica: replica, into: &out)
        }
        if nowMs >= nextShuffleMs { nextShuffleMs = nowMs + config.shuffleIntervalMs; shuffle(nowMs: nowMs, into: &out) }
        flushNewLinks(nowMs: nowMs, replica: replica, into: &out)
        if nowMs >= nextDirectoryMs { nextDirectoryMs = nowMs + config.directoryIntervalMs; directoryRound(nowMs: nowMs, replica: replica, into: &out) }
        if nowMs >= nextReconMs { nextReconMs = nowMs + config.reconIntervalMs; reconcileRound(nowMs: nowMs, replica: replica, into: &out) }
        requestTick(afterMs: busy ? config.tickMs : config.idleTickMs, nowMs: nowMs, into: &out)
        return out
    }

    /// Work that must not wait for an idle tick: lazy notices to flush, announced ops to
    /// graft, handshakes and a neighbour request under way.
    var busy: Bool { plumtree.hasPromptWork || !newLinks.isEmpty || !stem.embargo.isEmpty || !handshaking.isEmpty || pendingNeighbor != nil }

    /// Asks the shell for a tick `afterMs` from now unless one is due sooner.
    mutating func requestTick(afterMs: UInt64, nowMs: UInt64, into out: inout [GossipDirective]) {
        guard nowMs + afterMs < tickDueMs else { return }
        tickDueMs = nowMs + afterMs
        out.append(.scheduleTick(afterMs: afterMs))
    }

    mutating func promptTickIfBusy(nowMs: UInt64, into out: inout [GossipDirective]) {
        if started && busy { requestTick(afterMs: config.tickMs, nowMs: nowMs, into: &out) }
    }
}
