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
    /// Verifies an envelope (decoded, with its id: the engine has both already). The
    /// simulator swaps in a memoized one.
    public var opener: @Sendable (Envelope, OpID) throws -> SignedOp = { envelope, _ in try SignedOp.open(envelope) }
    public internal(set) var stats = GossipStats()
    /// Our own address as others reach us, so we never add ourselves to a view.
    public var selfAddress: PeerAddress? { didSet { peers.me = selfAddress } }

    /// Accepts or refuses a peer address before any state is kept for it. Nil: any string
    /// (the simulator's names); a real node accepts canonical IP literals only (§8).
    public var addressFilter: (@Sendable (PeerAddress) -> Bool)? {
        get { channels.addressFilter }
        set { channels.addressFilter = newValue }
    }
    /// Secure sessions, handshakes and per-address limits, all bounded (SecureChannels.swift,
    /// SessionTable.swift, §8, §13).
    var channels: SecureChannels
    /// The session table (read by `stats` and by this module's tests).
    var sessions: SessionTable { channels.sessions }
    var pseudonymLimits: [PublicKey: TokenBucket] = [:]
    /// New packs accepted per source address (Dissemination.swift, `takeGenesis`).
    var genesisLimits: [PeerAddress: TokenBucket] = [:]
    var nextPseudonymSweepMs: UInt64 = 0
    /// Every peer we know, by role, each role bounded (PeerTable.swift, PROTOCOL §9).
    var peers: PeerTable
    var nextReviveMs: UInt64 = 0
    var reconCursor = 0
    /// This round's reconciliations not answered yet (AntiEntropy.swift).
    var reconUnanswered: Set<ReconAsked> = []
    /// Reconciliations each link left unanswered since it last answered one (links only:
    /// pruned with Plumtree's marks every remote round). Links with the fewest are asked.
    /// No entry: the link never sent us a reconciliation message (pack or directory, either
    /// side), so it is no contact inside a fence yet (`isContact`).
    var reconMisses: [PeerAddress: Int] = [:]
    /// Peers that have sent us a `Reconcile`, and when last: they are proven, not strangers
    /// (NeedToKnow.swift; `reconciledCapacity`).
    var reconciled: [PeerAddress: UInt64] = [:]
    /// What each network group may still ask of our vicinity (NeedToKnow.swift).
    var strangerBudget = StrangerBudget()
    /// Passive peers inside a locked fence we hold, pulled by `rimRound`, and when (`rimCapacity`).
    var rimAsked: [PeerAddress: UInt64] = [:]
    /// Peers we routed a remote-contact request through that have not answered it (§9):
    /// at most `remoteHopCapacity`, the oldest going when full.
    var remoteHops: [PeerAddress: HopAsk] = [:]
    /// Vicinity entries asked before they had ever exchanged with us and dropped unanswered,
    /// in a row (reset when such an entry answers): from `nameFailuresForTurns` on, vicinity
    /// rounds take turns (`vicinityCautiousTurn`) between names and peers that spoke to us.
    var vicinityNameFailures = 0
    var vicinityCautiousTurn = false
    /// The fences of packs we follow from outside, as of the last remote round (§9).
    var farFences: [Geofence] = []
    /// Live packs and directory views, until the replica's packs change (PackViews.swift).
    var packViews = PackViewCache()
    var pendingNeighbor: (address: PeerAddress, sinceMs: UInt64)?
    /// A declined or unanswered neighbour request delays the next low-priority one (§9):
    /// the current delay (doubling from `helloRetryMs` to `quietMaxMs`) and when it ends.
    var neighborRetryMs: UInt64 = 0
    var nextLowNeighborMs: UInt64 = 0
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
    /// Rounds that back off while nothing changes (Backoff.swift), and what they last saw.
    var shuffleRounds: Backoff
    var reconRounds: Backoff
    var vicinityRounds: Backoff
    var directoryRounds: Backoff
    var seenVersions = PeerTable.Versions()
    /// Remote contacts and Plumtree's link set are kept up at the base vicinity interval.
    var nextRemoteMs: UInt64 = 0
    var nextRejoinMs: UInt64 = 0
    /// Re-joins through the seeds since the last time a link was up: each waits twice as
    /// long as the one before (from `rejoinIntervalMs` up to `rejoinMaxMs`).
    var rejoinAttempts = 0
    var nextEagerShuffleMs: UInt64 = 0
    /// Links that came up since the last tick: their directory is reconciled at once (§11a).
    var newLinks: Set<PeerAddress> = []
    /// When we last asked the shell to tick us (shells keep the earliest request).
    var tickDueMs: UInt64 = .max
    var started = false

    /// `secrets`: where session keys and the cookie secret come from. No default: a node on
    /// a network passes `.secure(random:)`; simulations and tests say `.seeded` on purpose.
    public init(config: GossipConfig = .init(), seed: UInt64, secrets: EngineSecrets) {
        self.config = config
        rng = SplitMix(seed: seed)
        plumtree = Plumtree(missingCapacity: config.missingCapacity)
        peers = PeerTable(config: config)
        shuffleRounds = Backoff(baseMs: config.shuffleIntervalMs, maxMs: config.quietMaxMs)
        reconRounds = Backoff(baseMs: config.reconIntervalMs, maxMs: config.reconQuietMaxMs)
        vicinityRounds = Backoff(baseMs: config.vicinityIntervalMs, maxMs: config.quietMaxMs)
        directoryRounds = Backoff(baseMs: config.directoryIntervalMs, maxMs: config.quietMaxMs)
        var cookieRandom = SplitMix(seed: seed ^ 0xC00C_1E5E_C7E7_0001)   // not the engine's own sequence
        channels = SecureChannels(config: config, cookieMaster: secrets.cookieSecret ?? cookieRandom.bytes(32))
        channels.keySeeds = secrets.keySeeds
    }

    /// Table sizes, for tests and `stats`.
    public var sessionCount: Int { channels.count }
    public var addressLimitCount: Int { channels.addressLimitCount }

    // MARK: - public surface

    public var activePeers: [PeerAddress] { peers.active.keys.sorted() }
    public var passivePeers: [PeerAddress] { peers.passive.keys.sorted() }
    public func cell(of peer: PeerAddress) -> String? { peers.cell(of: peer) }

    /// Joins through the given seeds. Returns the first directives (handshakes, joins, tick).
    public mutating func start(seeds: [PeerAddress], nowMs: UInt64) -> [GossipDirective] {
        self.seeds = seeds
        started = true
        var out: [GossipDirective] = []
        for s in seeds { send(joinMessage, to: s, nowMs: nowMs, into: &out) }
        nextRejoinMs = nowMs + config.rejoinIntervalMs
        reconRounds.start(nowMs: nowMs)
        shuffleRounds.start(nowMs: nowMs)
        vicinityRounds.start(nowMs: nowMs)
        directoryRounds.start(nowMs: nowMs)
        nextRemoteMs = nowMs + config.vicinityIntervalMs
        requestTick(afterMs: config.tickMs, nowMs: nowMs, into: &out)
        return out
    }

    /// Our location cell and subscriptions changed: tell the neighbours.
    public mutating func setInterest(cell: String?, subscriptions: Set<PackID>, nowMs: UInt64) -> [GossipDirective] {
        let new = NodeInfo(cell: cell, subscriptions: Set(subscriptions.map(NodeInfo.prefix)))
        guard new != info else { return [] }
        let moved = new.cell != info.cell
        info = new
        if moved { remeasureVicinity(); vicinityRounds.poke(nowMs: nowMs) }
        reconRounds.poke(nowMs: nowMs)
        directoryRounds.poke(nowMs: nowMs)
        var out: [GossipDirective] = []
        for p in links where isProven(p) { send(.interest(info), to: p, nowMs: nowMs, into: &out) }
        return out
    }

    /// A local op was admitted (and committed): push it to interested neighbours.
    public mutating func publish(_ op: SignedOp, nowMs: UInt64, replica: Replica) -> [GossipDirective] {
        var out: [GossipDirective] = []
        somethingNew(op, own: true, nowMs: nowMs)
        stemOrFluff(op, except: nil, nowMs: nowMs, replica: replica, into: &out)
        promptTickIfBusy(nowMs: nowMs, into: &out)
        return out
    }

    // MARK: - datagrams

    public mutating func receive(datagram: [UInt8], from: PeerAddress, nowMs: UInt64, replica: inout Replica) -> [GossipDirective] {
        var out: [GossipDirective] = []
        let (received, actions) = channels.receive(datagram, from: from, nowMs: nowMs, rng: &rng, stats: &stats)
        perform(actions, nowMs: nowMs, into: &out)
        switch received {
        case .dropped: return out
        case .handled: break
        case .noSession:
            // The peer lost its session (restart): offer a new handshake if we know it. A peer
            // we gave up on counts too: it may only have lost a few datagrams, and its own
            // session to us would otherwise stay a black hole.
            if peers.knows(from) || seeds.contains(from) {
                channels.drop(from)
                send(pingMessage().0, to: from, nowMs: nowMs, into: &out)
            }
            return out
        case .message(let pt):
            guard let wire = try? WireMessage(serializedBytes: pt), let m = Message(wire: wire) else { stats.drop(.malformedMessage); return out }
            handle(m, from: from, nowMs: nowMs, replica: &replica, into: &out)
        }
        promptTickIfBusy(nowMs: nowMs, into: &out)
        return out
    }

    // MARK: - timers

    public mutating func tick(nowMs: UInt64, replica: inout Replica) -> [GossipDirective] {
        var out: [GossipDirective] = []
        tickDueMs = .max
        perform(channels.tick(nowMs: nowMs, stats: &stats), nowMs: nowMs, into: &out)
        flushLazy(nowMs: nowMs, into: &out)
        graftMissing(nowMs: nowMs, into: &out)
        stemFailsafe(nowMs: nowMs, replica: replica, into: &out)
        detectFailures(nowMs: nowMs, into: &out)
        fillActiveView(nowMs: nowMs, into: &out)
        if nowMs >= nextReviveMs { nextReviveMs = nowMs + config.reviveIntervalMs; reviveRound(nowMs: nowMs, into: &out) }
        noticeViewChanges(nowMs: nowMs)
        // A vicinity entry named by others and not asked yet is work left: no backing off (§9).
        if vicinityRounds.isDue(nowMs: nowMs), peers.hasUncontactedVicinity { vicinityRounds.unsettled() }
        if vicinityRounds.fire(nowMs: nowMs) { vicinityRound(nowMs: nowMs, into: &out) }
        if nowMs >= nextRemoteMs {
            nextRemoteMs = nowMs + config.vicinityIntervalMs
            let linkSet = Set(links)
            plumtree.retain(links: linkSet)
            reconMisses = reconMisses.filter { linkSet.contains($0.key) }
            remoteRound(nowMs: nowMs, replica: replica, into: &out)
        }
        if shuffleRounds.fire(nowMs: nowMs) { shuffle(nowMs: nowMs, into: &out) }
        flushNewLinks(nowMs: nowMs, replica: replica, into: &out)
        if directoryRounds.fire(nowMs: nowMs) {
            directoryRound(nowMs: nowMs, replica: replica, into: &out)
            rimRound(nowMs: nowMs, replica: replica, into: &out)
        }
        if !reconUnanswered.isEmpty, reconRounds.isDue(nowMs: nowMs) { reconRounds.unsettled() }
        if reconRounds.fire(nowMs: nowMs) { reconcileRound(nowMs: nowMs, replica: replica, into: &out) }
        noticeViewChanges(nowMs: nowMs)
        requestTick(afterMs: busy ? config.tickMs : idleWait(nowMs: nowMs), nowMs: nowMs, into: &out)
        return out
    }

    /// How long an engine without prompt work sleeps: until the soonest of its deadlines (a
    /// round, a ping, an ack or death timeout, a trial, a session's expiry), at least
    /// `tickMs`, at most `idleTickMs`. It used to wake every 250 ms whatever was due: in the
    /// 10,000-node city three ticks in four found nothing to do. Every deadline set between
    /// ticks is at least `idleTickMs` away (rounds poked to their base interval, a new
    /// member's first ping, a session's expiry), or comes with prompt work.
    func idleWait(nowMs: UInt64) -> UInt64 {
        var due = nowMs &+ config.idleTickMs
        func at(_ t: UInt64) { if t < due { due = t } }
        at(channels.nextExpiryMs)
        at(reconRounds.dueMs); at(shuffleRounds.dueMs); at(vicinityRounds.dueMs); at(directoryRounds.dueMs)
        at(nextRemoteMs); at(nextReviveMs)
        for m in peers.active.values {
            if m.suspectSinceMs != nil { at(m.lastHeardMs &+ config.deadAfterMs) }
            else if let sent = m.pingSentMs, m.lastHeardMs <= sent { at(sent &+ config.ackTimeoutMs) }
            // Up to `fillingTickMs` after the ping falls due, spread by when we last heard it
            // (as the old 250 ms tick spread it). Woken exactly when due, two members that
            // ping each other wake together: each one's ping crosses the other's, and twice
            // as many pings went (the 2,000-node city: +42 %).
            else { at(m.lastHeardMs &+ config.pingIntervalMs &+ Self.spread(m.lastHeardMs)) }
        }
        for c in guardState.candidates.values { at(c.sinceMs &+ MembershipGuard.candidateTimeoutMs) }
        // A view with room keeps asking passive peers (its own retry clocks): the old pace.
        if peers.hasRoom { at(nowMs &+ Self.fillingTickMs) }
        return due > nowMs ? max(config.tickMs, due - nowMs) : config.tickMs
    }

    static let fillingTickMs: UInt64 = 250

    /// A delay in [0, `fillingTickMs`) drawn from a time stamp (a multiplicative hash).
    static func spread(_ t: UInt64) -> UInt64 { ((t &* 0x9E37_79B9_7F4A_7C15) >> 40) % fillingTickMs }

    /// Work that must not wait for an idle tick: lazy notices to flush, announced ops to
    /// graft, handshakes and a neighbour request under way.
    var busy: Bool { plumtree.hasPromptWork || !newLinks.isEmpty || !stem.embargo.isEmpty || channels.handshakesUnderWay || pendingNeighbor != nil }

    /// Asks the shell for a tick `afterMs` from now unless one is due sooner.
    mutating func requestTick(afterMs: UInt64, nowMs: UInt64, into out: inout [GossipDirective]) {
        guard nowMs + afterMs < tickDueMs else { return }
        tickDueMs = nowMs + afterMs
        out.append(.scheduleTick(afterMs: afterMs))
    }

    /// Views that changed since the last look make their rounds prompt again: a new or lost
    /// member (shuffle, reconciliation, directory), a new or lost vicinity entry (vicinity).
    mutating func noticeViewChanges(nowMs: UInt64) {
        let v = peers.versions
        if v.active != seenVersions.active {
            shuffleRounds.poke(nowMs: nowMs); reconRounds.poke(nowMs: nowMs); directoryRounds.poke(nowMs: nowMs)
        }
        if v.vicinity != seenVersions.vicinity { vicinityRounds.poke(nowMs: nowMs) }
        seenVersions = v
    }

    /// An op new to us: our own brings reconciliation back to its base pace at once (and for
    /// a pack's genesis or edit, the directory); one admitted from a peer only stops the
    /// rounds from backing off further (the push and its lazy notices deliver it; a round
    /// at once on every node for every op cost ≈ 250 bytes per post per node). Letting
    /// pushed ops not count at all was tried and dropped (PROTOCOL §9): repair slowed to
    /// minutes for nodes with many packs.
    mutating func somethingNew(_ op: SignedOp, own: Bool, nowMs: UInt64) {
        if own { reconRounds.poke(nowMs: nowMs) } else { reconRounds.unsettled() }
        if op.isDirectoryEntry { directoryRounds.poke(nowMs: nowMs) }
    }

    /// `busy` is asked only when a tick is not already due that soon (it is asked after
    /// every datagram, and reading the five collections it looks at was ≈ 1 % of the city
    /// simulation's time, in cache misses).
    mutating func promptTickIfBusy(nowMs: UInt64, into out: inout [GossipDirective]) {
        if started && nowMs + config.tickMs < tickDueMs && busy { requestTick(afterMs: config.tickMs, nowMs: nowMs, into: &out) }
    }

    // MARK: - sending

    /// Encodes, seals and sends one message (or queues it behind a handshake).
    mutating func send(_ m: Message, to: PeerAddress, nowMs: UInt64, into out: inout [GossipDirective]) {
        let m = toldTo(m, to: to)
        guard let pt = m.handEncoded else { send(m.wire, kind: m.kind, solicits: m.solicitsAnswer, to: to, nowMs: nowMs, into: &out); return }
        send(plaintext: pt, kind: m.kind, solicits: m.solicitsAnswer, to: to, nowMs: nowMs, into: &out)
    }

    /// Sends a protobuf message as it is: what a hostile peer in a test says may not even
    /// decode to a `Message`.
    mutating func send(_ wire: WireMessage, kind: MessageKind = .raw, solicits: Bool = true, to: PeerAddress, nowMs: UInt64, into out: inout [GossipDirective]) {
        guard let pt = try? wire.serializedBytes() as [UInt8] else { stats.drop(.tooLarge); return }
        send(plaintext: pt, kind: kind, solicits: solicits, to: to, nowMs: nowMs, into: &out)
    }

    /// Checks the address, counts, seals and sends an encoded message.
    mutating func send(plaintext pt: [UInt8], kind: MessageKind, solicits: Bool, to: PeerAddress, nowMs: UInt64, into out: inout [GossipDirective]) {
        if let accept = addressFilter, !accept(to) { stats.drop(.badAddress); return }
        guard pt.count <= Frame.maxPlaintext else { stats.drop(.tooLarge); return }
        stats.countSent(kind, bytes: pt.count)
        perform(channels.send(pt, to: to, solicits: solicits, nowMs: nowMs, rng: &rng, stats: &stats), nowMs: nowMs, into: &out)
    }

    /// Carries out what the session layer asked for.
    mutating func perform(_ actions: [SecureChannels.Action], nowMs: UInt64, into out: inout [GossipDirective]) {
        for a in actions {
            switch a {
            case .emit(let bytes, let to):
                stats.datagramsOut += 1
                stats.bytesOut += bytes.count
                out.append(.send(bytes, to: to))
            case .unreachable(let peer):
                forget(peer, .unreachable, nowMs: nowMs, into: &out)
            }
        }
    }
}
