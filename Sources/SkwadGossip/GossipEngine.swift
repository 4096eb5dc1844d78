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
    /// Its settings, one group per part (GossipConfig.swift).
    public let config: GossipConfig
    var rng: SplitMix
    public internal(set) var stats = GossipStats()
    public internal(set) var info = NodeInfo()
    /// Secure sessions, handshakes and per-address limits, all bounded (SecureChannels.swift,
    /// SessionTable.swift, §8, §13).
    var channels: SecureChannels
    /// Every peer we know, one record each with its roles and what we know of it, each role
    /// bounded (PeerTable.swift, PROTOCOL §9).
    var peers: PeerTable
    /// Ops per pseudonym, packs per address (EngineState.swift).
    var limits = RateLimits()
    /// When each round runs next, and the shell's next tick (Rounds.swift).
    var rounds: Rounds
    /// Plumtree, the stem, reconciliation's turn, the pack views (EngineState.swift).
    var spread: Spread
    /// HyParView: seeds, a neighbour request under way, re-joins, the join guard (HyParView.swift).
    var membership = HyParView()
    /// SWIM: our ping sequence, pings relayed for others (FailureDetector.swift).
    var swim = FailureDetector()
    /// Reflexive addresses, introductions, relays (Reach.swift, §9).
    var reach = Reach()
    /// Name failures, the fences needing a contact, the strangers' budgets (Vicinity.swift, §9).
    var vicinity = Vicinity()
    /// Whom the pack directory pulls next, new links owed a pull (Directory.swift, §11a).
    var directory = PackDirectory()
    /// Pictures being fetched, who sent their posts, answer budgets, counters (Pictures.swift, §10b).
    var pictures = PictureFetches()
    // What the engine asks of its parts, each in turn, is in Parts.swift (`EnginePart`).

    /// Our own address as others reach us, so we never add ourselves to a view.
    public var selfAddress: PeerAddress? {
        get { peers.me }
        set { peers.me = newValue }
    }

    /// Our own addresses (each interface's, with the port), set by the shell: a link that
    /// sees us from another is behind a NAT of ours (§9 "Introductions"). Nil (the
    /// simulator): never behind a NAT.
    public var localAddresses: [PeerAddress]? {
        get { reach.localAddresses }
        set { reach.localAddresses = newValue }
    }

    /// Verifies an envelope (decoded, with its id: the engine has both already). The
    /// simulator swaps in a memoized one.
    public var opener: @Sendable (Envelope, OpID) throws -> SignedOp {
        get { spread.opener }
        set { spread.opener = newValue }
    }

    /// What the picture fetches did (Pictures.swift).
    public internal(set) var pictureStats: PictureStats {
        get { pictures.stats }
        set { pictures.stats = newValue }
    }

    /// Accepts or refuses a peer address before any state is kept for it. Nil: any string
    /// (the simulator's names); a real node accepts canonical IP literals only (§8).
    public var addressFilter: (@Sendable (PeerAddress) -> Bool)? {
        get { channels.addressFilter }
        set { channels.addressFilter = newValue }
    }
    /// The session table (read by `stats` and by this module's tests).
    var sessions: SessionTable { channels.sessions }

    /// `secrets`: where session keys and the cookie secret come from. No default: a node on
    /// a network passes `.secure(random:)`; simulations and tests say `.seeded` on purpose.
    public init(config: GossipConfig = .init(), seed: UInt64, secrets: EngineSecrets) {
        self.config = config
        rng = SplitMix(seed: seed)
        peers = PeerTable(config: config)
        rounds = Rounds(config: config)
        spread = Spread(config: config)
        var cookieRandom = SplitMix(seed: seed ^ 0xC00C_1E5E_C7E7_0001)  // not the engine's own sequence
        channels = SecureChannels(config: config, cookieMaster: secrets.cookieSecret ?? cookieRandom.bytes(32))
        channels.keySeeds = secrets.keySeeds
    }

    /// Table sizes, for tests and `stats`.
    public var sessionCount: Int { channels.count }
    /// Peers the engine keeps a record of (any role or fact: PeerTable).
    public var peerRecordCount: Int { peers.records.count }
    public var addressLimitCount: Int { channels.addressLimitCount }

    // MARK: - public surface

    public var activePeers: [PeerAddress] { peers.active.keys.sorted() }
    public var passivePeers: [PeerAddress] { peers.passive.keys.sorted() }
    /// The peers ops travel on (active, heard vicinity, remote: PROTOCOL §9), sorted.
    public var linkPeers: [PeerAddress] { peers.links }
    public func cell(of peer: PeerAddress) -> String? { peers.cell(of: peer) }

    /// Joins through the given seeds. Returns the first directives (handshakes, joins, tick).
    public mutating func start(seeds: [PeerAddress], nowMs: UInt64) -> [GossipDirective] {
        membership.seeds = seeds
        rounds.started = true
        var out: [GossipDirective] = []
        for s in seeds { send(joinMessage, to: s, nowMs: nowMs, into: &out) }
        membership.nextRejoinMs = nowMs + config.membership.rejoinIntervalMs
        rounds.start(nowMs: nowMs)
        requestTick(afterMs: config.ticks.tickMs, nowMs: nowMs, into: &out)
        finish(nowMs: nowMs, into: &out)
        return out
    }

    /// Our location cell and subscriptions changed: tell the neighbours.
    public mutating func setInterest(cell: String?, subscriptions: Set<PackID>, nowMs: UInt64) -> [GossipDirective] {
        var new = NodeInfo(cell: cell, subscriptions: Set(subscriptions.map(NodeInfo.prefix)))
        new.behindNat = info.behindNat
        guard new != info else { return [] }
        let moved = new.cell != info.cell
        info = new
        if moved { remeasureVicinity(); rounds[.vicinity].poke(nowMs: nowMs) }
        rounds[.reconcile].poke(nowMs: nowMs)
        rounds[.directory].poke(nowMs: nowMs)
        var out: [GossipDirective] = []
        for p in links where isProven(p) { send(.interest(info), to: p, nowMs: nowMs, into: &out) }
        finish(nowMs: nowMs, into: &out)
        return out
    }

    /// A local op was admitted (and committed): push it to interested neighbours.
    public mutating func publish(_ op: SignedOp, nowMs: UInt64, replica: Replica) -> [GossipDirective] {
        var out: [GossipDirective] = []
        somethingNew(op, own: true, nowMs: nowMs)
        stemOrFluff(op, except: nil, nowMs: nowMs, replica: replica, into: &out)
        promptTickIfBusy(nowMs: nowMs, into: &out)
        finish(nowMs: nowMs, into: &out)
        return out
    }

    // MARK: - datagrams

    public mutating func receive(datagram: [UInt8], from: PeerAddress, nowMs: UInt64, replica: inout Replica) -> [GossipDirective] {
        var out: [GossipDirective] = []
        receive(datagram, from: from, nowMs: nowMs, replica: &replica, into: &out)
        finish(nowMs: nowMs, into: &out)
        return out
    }

    /// One datagram (from the network, or a frame a relay passed on), into `out`.
    mutating func receive(
        _ datagram: [UInt8], from: PeerAddress, nowMs: UInt64, replica: inout Replica, into out: inout [GossipDirective]
    ) {
        let (received, actions) = channels.receive(datagram, from: from, nowMs: nowMs, rng: &rng, stats: &stats)
        perform(actions, nowMs: nowMs, into: &out)
        switch received {
        case .dropped: return
        case .handled: break
        case .noSession:
            // The peer lost its session (restart): offer a new handshake if we know it. A peer
            // we gave up on counts too: it may only have lost a few datagrams, and its own
            // session to us would otherwise stay a black hole.
            if peers.knows(from) || membership.seeds.contains(from) {
                channels.sealEarly(stats: &stats)
                channels.drop(from)
                send(pingMessage().0, to: from, nowMs: nowMs, into: &out)
            }
            return
        case .message(let pt):
            guard let wire = try? WireMessage(serializedBytes: pt) else { stats.drop(.malformedMessage); return }
            if case .bundle(let b)? = wire.body {
                receiveBundle(b, from: from, nowMs: nowMs, replica: &replica, into: &out)
            } else {
                handle(wire, from: from, nowMs: nowMs, replica: &replica, into: &out)
            }
        }
        promptTickIfBusy(nowMs: nowMs, into: &out)
    }

    /// One message as it came (alone, or in a bundle): decoded, every address it names judged
    /// before any handler sees it (AddressScreen.swift), then handled.
    mutating func handle(_ wire: WireMessage, from: PeerAddress, nowMs: UInt64, replica: inout Replica, into out: inout [GossipDirective]) {
        guard let m = Message(wire: wire) else { stats.drop(.malformedMessage); return }
        guard let m = screened(m) else { return }
        handle(m, from: from, nowMs: nowMs, replica: &replica, into: &out)
    }

    // MARK: - timers

    /// Each part's due work, in `EnginePart`'s order (Parts.swift), then the next tick: at
    /// once when a part is `busy`, else at the soonest deadline (`idleWait`).
    public mutating func tick(nowMs: UInt64, replica: inout Replica) -> [GossipDirective] {
        var out: [GossipDirective] = []
        rounds.tickDueMs = .max
        for part in EnginePart.allCases { tick(part, nowMs: nowMs, replica: &replica, into: &out) }
        requestTick(afterMs: busy ? config.ticks.tickMs : idleWait(nowMs: nowMs), nowMs: nowMs, into: &out)
        finish(nowMs: nowMs, into: &out)
        return out
    }

    /// A delay in [0, `fillingTickMs`) drawn from a time stamp (a multiplicative hash).
    static func spread(_ t: UInt64) -> UInt64 { ((t &* 0x9E37_79B9_7F4A_7C15) >> 40) % fillingTickMs }

    /// Asks the shell for a tick `afterMs` from now unless one is due sooner.
    mutating func requestTick(afterMs: UInt64, nowMs: UInt64, into out: inout [GossipDirective]) {
        guard nowMs + afterMs < rounds.tickDueMs else { return }
        rounds.tickDueMs = nowMs + afterMs
        out.append(.scheduleTick(afterMs: afterMs))
    }

    /// An op new to us: our own brings reconciliation back to its base pace at once (and for
    /// a pack's genesis or edit, the directory); one admitted from a peer only stops the
    /// rounds from backing off further (the push and its lazy notices deliver it; a round
    /// at once on every node for every op would cost bytes on every node for every post).
    /// Pushed ops still count (PROTOCOL §9): otherwise repair would slow to minutes for
    /// nodes with many packs.
    mutating func somethingNew(_ op: SignedOp, own: Bool, nowMs: UInt64) {
        if own { rounds[.reconcile].poke(nowMs: nowMs) } else { rounds[.reconcile].unsettled() }
        if op.isDirectoryEntry { rounds[.directory].poke(nowMs: nowMs) }
    }

    /// `busy` is asked only when a tick is not already due that soon: this runs after every
    /// datagram, and `busy` asks every part.
    mutating func promptTickIfBusy(nowMs: UInt64, into out: inout [GossipDirective]) {
        if rounds.started && nowMs + config.ticks.tickMs < rounds.tickDueMs && busy {
            requestTick(afterMs: config.ticks.tickMs, nowMs: nowMs, into: &out)
        }
    }

    // MARK: - sending

    /// Encodes, seals and sends one message (or queues it behind a handshake).
    mutating func send(_ m: Message, to: PeerAddress, nowMs: UInt64, into out: inout [GossipDirective]) {
        let m = toldTo(m, to: to)
        guard let pt = m.handEncoded else {
            send(m.wire, kind: m.kind, solicits: m.solicitsAnswer, to: to, nowMs: nowMs, into: &out); return
        }
        send(plaintext: pt, kind: m.kind, solicits: m.solicitsAnswer, to: to, nowMs: nowMs, into: &out)
    }

    /// Sends a protobuf message as it is: what a hostile peer in a test says may not even
    /// decode to a `Message`.
    mutating func send(
        _ wire: WireMessage, kind: MessageKind = .raw, solicits: Bool = true, to: PeerAddress, nowMs: UInt64,
        into out: inout [GossipDirective]
    ) {
        guard let pt = try? wire.serializedBytes() as [UInt8] else { stats.drop(.tooLarge); return }
        send(plaintext: pt, kind: kind, solicits: solicits, to: to, nowMs: nowMs, into: &out)
    }

    /// Checks the address, counts, seals and sends an encoded message.
    mutating func send(
        plaintext pt: [UInt8], kind: MessageKind, solicits: Bool, to: PeerAddress, nowMs: UInt64, into out: inout [GossipDirective]
    ) {
        if let accept = addressFilter, !accept(to.filtered) { stats.drop(to.filtered.refusal); return }
        guard pt.count <= to.maxPlaintext else { stats.drop(.tooLarge); return }
        stats.countSent(kind, bytes: pt.count)
        perform(channels.send(pt, to: to, solicits: solicits, nowMs: nowMs, rng: &rng, stats: &stats), nowMs: nowMs, into: &out)
    }

    /// Carries out what the session layer asked for.
    mutating func perform(_ actions: [SecureChannels.Action], nowMs: UInt64, into out: inout [GossipDirective]) {
        for a in actions {
            switch a {
            case .emit(let bytes, let to):
                if let (target, relay) = to.relayParts {
                    emitRelayed(bytes, target: target, relay: relay, nowMs: nowMs, into: &out); continue
                }
                stats.datagramsOut += 1
                stats.bytesOut += bytes.count
                out.append(.send(bytes, to: to))
            case .unreachable(let peer):
                // The member that introduced it, read before `forget` drops it: the relay to fall back on.
                let introducer = reach.introductions.introducer[peer]
                forget(peer, .unreachable, nowMs: nowMs, into: &out)
                if let introducer { punchFailed(peer, via: introducer, nowMs: nowMs, into: &out) }
            }
        }
    }
}
