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

    var sessions: [PeerAddress: Session] = [:]
    var limits: [PeerAddress: (datagrams: TokenBucket, bytes: TokenBucket)] = [:]
    var pseudonymLimits: [PublicKey: TokenBucket] = [:]
    /// New packs accepted per source address (Dissemination.swift, `takeGenesis`).
    var genesisLimits: [PeerAddress: TokenBucket] = [:]
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
    /// Ops announced to us (by 8-byte id prefix) that we have not received yet.
    var missing: [UInt64: Missing] = [:]
    /// Lazy push queue: ids to announce to each lazy neighbour at the next tick.
    var lazyQueue: [PeerAddress: [OpID]] = [:]
    /// Recently seen ops by 8-byte id prefix, to answer prefix Wants.
    var recentByPrefix: [UInt64: OpID] = [:]
    var recentOrder: [UInt64] = []
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
        var lazy = false
    }

    struct Missing: Sendable {
        var announcers: [PeerAddress]
        var deadlineMs: UInt64
        var tries = 0
    }

    public init(config: GossipConfig = .init(), seed: UInt64) {
        self.config = config
        rng = SplitMix(seed: seed)
    }

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
        stats.datagramsIn += 1
        stats.bytesIn += datagram.count
        guard datagram.count <= Frame.maxDatagram else { stats.drop(.tooLarge); return [] }
        guard datagram.count >= 4, datagram[0] == Frame.magic[0], datagram[1] == Frame.magic[1] else { stats.drop(.malformedFrame); return [] }
        guard datagram[2] == Frame.version else { stats.drop(.badVersion); return [] }
        if limits[from] == nil {
            limits[from] = (TokenBucket(rate: config.peerDatagramsPerSecond, burst: config.peerDatagramsPerSecond, nowMs: nowMs),
                            TokenBucket(rate: config.peerBytesPerSecond, burst: config.peerBytesPerSecond, nowMs: nowMs))
        }
        guard limits[from]!.datagrams.take(1, nowMs: nowMs), limits[from]!.bytes.take(Double(datagram.count), nowMs: nowMs) else {
            stats.drop(.rateLimited); return []
        }
        var out: [GossipDirective] = []
        switch datagram[3] {
        case Frame.hello:
            guard datagram.count == Frame.helloSize else { stats.drop(.malformedFrame); return [] }
            let clientKey = Array(datagram[4..<36])
            // Both sides said hello at once: the lower public key stays initiator.
            if let mine = sessions[from], mine.role == .initiator, !mine.established,
               mine.localKx.publicKey.lexicographicallyPrecedes(clientKey) { return [] }
            var s = Session(role: .responder, localKx: newKx())
            guard s.completeAsResponder(clientKey: clientKey) else { stats.drop(.malformedFrame); return [] }
            s.bytesReceivedUnverified = datagram.count
            if let old = sessions[from], !old.established { s.queued = old.queued }   // both sides said hello at once
            let welcome = Frame.header(Frame.welcome) + s.localKx.publicKey + Blake2b.hash(clientKey, outputCount: 16)
            guard s.mayAmplify(welcome.count) else { stats.drop(.amplification); return [] }
            s.bytesSentUnverified += welcome.count
            sessions[from] = s
            stats.handshakes += 1
            emit(welcome, to: from, into: &out)
            flushQueue(from, into: &out)
        case Frame.welcome:
            guard datagram.count == 4 + 32 + 16, var s = sessions[from], s.role == .initiator, !s.established else {
                stats.drop(.noSession); return []
            }
            guard Array(datagram[36..<52]) == Blake2b.hash(s.localKx.publicKey, outputCount: 16),
                  s.completeAsInitiator(serverKey: Array(datagram[4..<36])) else { stats.drop(.malformedFrame); return [] }
            sessions[from] = s
            stats.handshakes += 1
            flushQueue(from, into: &out)
        case Frame.data:
            guard var s = sessions[from], s.established else {
                stats.drop(.noSession)
                // The peer lost its session (restart): offer a new handshake if we know it.
                if isLink(from) || passive[from] != nil { sessions[from] = nil; send(pingMessage(for: from), to: from, nowMs: nowMs, into: &out) }
                return out
            }
            switch s.open(datagram) {
            case .failed: stats.drop(.decryptFailed); return []
            case .replay: stats.drop(.replay); return []
            case .plaintext(let pt):
                sessions[from] = s
                guard let m = try? WireMessage(serializedBytes: pt), m.body != nil else { stats.drop(.malformedMessage); return [] }
                handle(m, from: from, nowMs: nowMs, replica: &replica, into: &out)
            }
        default:
            stats.drop(.malformedFrame)
        }
        promptTickIfBusy(nowMs: nowMs, into: &out)
        return out
    }

    // MARK: - timers

    public mutating func tick(nowMs: UInt64, replica: inout Replica) -> [GossipDirective] {
        var out: [GossipDirective] = []
        tickDueMs = .max
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
    var busy: Bool { !lazyQueue.isEmpty || !newLinks.isEmpty || !stem.embargo.isEmpty || !missing.isEmpty || !handshaking.isEmpty || pendingNeighbor != nil }

    /// Asks the shell for a tick `afterMs` from now unless one is due sooner.
    mutating func requestTick(afterMs: UInt64, nowMs: UInt64, into out: inout [GossipDirective]) {
        guard nowMs + afterMs < tickDueMs else { return }
        tickDueMs = nowMs + afterMs
        out.append(.scheduleTick(afterMs: afterMs))
    }

    mutating func promptTickIfBusy(nowMs: UInt64, into out: inout [GossipDirective]) {
        if started && busy { requestTick(afterMs: config.tickMs, nowMs: nowMs, into: &out) }
    }

    // MARK: - sending

    mutating func newKx() -> KxKeyPair {
        let seed = keySeeds?() ?? rng.bytes(32)
        return (try? KxKeyPair(seed: seed)) ?? (try! KxKeyPair(seed: rng.bytes(32)))
    }

    mutating func emit(_ bytes: [UInt8], to: PeerAddress, into out: inout [GossipDirective]) {
        stats.datagramsOut += 1
        stats.bytesOut += bytes.count
        out.append(.send(bytes, to: to))
    }

    /// Encrypts and sends, or queues behind a handshake it starts.
    mutating func send(_ m: WireMessage, to: PeerAddress, nowMs: UInt64, into out: inout [GossipDirective]) {
        guard let pt = try? m.serializedBytes() as [UInt8], pt.count <= Frame.maxPlaintext else { stats.drop(.tooLarge); return }
        stats.messagesSent[m.kind, default: 0] += 1
        if var s = sessions[to], s.established {
            guard s.mayAmplify(pt.count + Frame.dataHeader + AEAD.tagCount) else {
                if s.queued.count < config.maxQueuedPerPeer { s.queued.append(pt) } else { stats.drop(.amplification) }
                sessions[to] = s; return
            }
            guard let frame = s.seal(pt) else { return }
            if !s.verified { s.bytesSentUnverified += frame.count }
            sessions[to] = s
            emit(frame, to: to, into: &out)
            return
        }
        var s = sessions[to] ?? Session(role: .initiator, localKx: newKx())
        guard s.queued.count < config.maxQueuedPerPeer else { stats.drop(.queueFull); return }
        s.queued.append(pt)
        if s.helloAttempts == 0 {
            s.helloBytes = Frame.header(Frame.hello) + s.localKx.publicKey
            s.helloBytes += [UInt8](repeating: 0, count: Frame.helloSize - s.helloBytes.count)
            s.helloAttempts = 1
            s.helloSentAtMs = nowMs
            handshaking.insert(to)
            emit(s.helloBytes, to: to, into: &out)
        }
        sessions[to] = s
    }

    mutating func flushQueue(_ to: PeerAddress, into out: inout [GossipDirective]) {
        guard var s = sessions[to], s.established else { return }
        var keep: [[UInt8]] = []
        for pt in s.queued {
            guard s.mayAmplify(pt.count + Frame.dataHeader + AEAD.tagCount), let frame = s.seal(pt) else { keep.append(pt); continue }
            if !s.verified { s.bytesSentUnverified += frame.count }
            emit(frame, to: to, into: &out)
        }
        s.queued = keep
        sessions[to] = s
    }

    mutating func retryHandshakes(nowMs: UInt64, into out: inout [GossipDirective]) {
        for addr in handshaking.sorted() {
            guard var s = sessions[addr], s.role == .initiator, !s.established else { handshaking.remove(addr); continue }
            guard nowMs >= s.helloSentAtMs + config.helloRetryMs else { continue }
            if s.helloAttempts >= config.helloAttempts {
                sessions[addr] = nil
                handshaking.remove(addr)
                stats.drop(.unreachable)
                if active.removeValue(forKey: addr) != nil { out.append(.peerDown(addr)) }
                markDead(addr, cell: cell(of: addr), nowMs: nowMs)
                passive[addr] = nil
                vicinity[addr] = nil
                remote[addr] = nil
                if pendingNeighbor?.address == addr { pendingNeighbor = nil }
                continue
            }
            s.helloAttempts += 1
            s.helloSentAtMs = nowMs
            sessions[addr] = s
            emit(s.helloBytes, to: addr, into: &out)
        }
    }
}
