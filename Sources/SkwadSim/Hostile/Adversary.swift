import SkwadGossip
import SkwadModel
import SkwadLab

/// A misbehaving node of a hostile scenario. It runs no engine: it speaks the wire protocol
/// through `HostilePeer` sessions (real handshakes, real AEAD frames, `Message`s written
/// from the .proto by `WireForge`) to the honest nodes it attacks, and it never forwards
/// anything. Every `roundMs`, to each of them:
/// - eclipse: `Join`, a high-priority `Neighbor` whose `origin` is an ally, a `ForwardJoin`
///   planting an ally with a huge TTL, a `Shuffle` listing only allies;
/// - lying cell: all of this claims a cell inside a locked pack's fence it is not in (its
///   own cell when `lie` is off), and it answers `Ping`s to stay an active link;
/// - relay: every locked pack's op it got is pushed as `Ops` to each node it has a session
///   with, inside the fence or not (a leak if an honest outsider admits it);
/// and every 100 ms a flood of junk (`floodPerSecond` per node): random bytes, HELLOs with
/// fresh keys, DATA frames that fail the AEAD, sealed garbage, sealed `Ops` with replayed
/// and corrupted envelopes, `IHave`s of random ids. Silent dropping: ops pushed to it stop here.
struct Adversary {
    let me: NodeID
    let claimedCell: String
    let allies: [PeerAddress]
    let targets: [NodeID]
    let roundMs: UInt64
    let floodPerTick: Int
    var rng: SimRandom
    var peers: [NodeID: HostilePeer] = [:]
    /// Envelopes pushed to it (bounded), for replays; locked packs' ones, for relays.
    var seen: [[UInt8]] = []
    var locked: [[UInt8]] = []
    var lockedIDs: Set<OpID> = []
    /// Per peer, how many of `locked` it was sent already.
    var relayed: [NodeID: Int] = [:]
    var stats = AdversaryStats()

    static let roundTag: UInt32 = 1, floodTag: UInt32 = 2, floodEveryMs: UInt64 = 100
    static let memory = 512

    init(_ id: NodeID, world: World, seed: UInt64) {
        me = id
        rng = SimRandom.stream(seed, 301, UInt64(id))
        let h = world.scenario.hostile
        roundMs = h.roundMs
        floodPerTick = Int((h.floodPerSecond * Double(Self.floodEveryMs) / 1000).rounded())
        let adversaries = (0..<world.nodeCount).filter { world.hostile[$0] }
        allies = adversaries.filter { $0 != id }.map { SkwadGossipNode.address($0) }
        // The lie: the cell at the centre of a locked pack's fence (one a cell fits in).
        var cell = world.cell(of: id)
        var insiders: [NodeID] = []
        let lockedPacks = world.packs.indices.filter { p in
            guard world.packs[p].locked, let f = world.packs[p].fence else { return false }
            return f.contains(geohash: Geohash.encode(f.center, precision: world.scenario.geohashPrecision))
        }
        if h.lie, !lockedPacks.isEmpty {
            let p = lockedPacks[rng.below(lockedPacks.count)]
            cell = Geohash.encode(world.packs[p].fence!.center, precision: world.scenario.geohashPrecision)
            insiders = world.packs[p].members.map(Int.init).filter { world.isHonest($0) && world.isInside(node: $0, pack: Int32(p)) }
        }
        claimedCell = cell
        var t: [NodeID] = []
        if let index = adversaries.firstIndex(of: id), !world.eclipseTargets.isEmpty {
            t.append(world.eclipseTargets[index % world.eclipseTargets.count])
        }
        let honest = (0..<world.nodeCount).filter(world.isHonest)
        for i in 0..<h.contacts {
            let pool = i % 2 == 0 && !insiders.isEmpty ? insiders : honest
            let pick = pool[rng.below(pool.count)]
            if !t.contains(pick) { t.append(pick) }
        }
        targets = t
        for n in t { peers[n] = HostilePeer(address: SkwadGossipNode.address(id), seed: rng.next()) }
    }

    mutating func start(_ ctx: inout SimContext<[UInt8]>) {
        for n in targets { send(peers[n]!.hello(), to: n, &ctx) }
        ctx.schedule(afterMs: roundMs, tag: Self.roundTag)
        if floodPerTick > 0 { ctx.schedule(afterMs: Self.floodEveryMs, tag: Self.floodTag) }
    }

    mutating func send(_ d: [UInt8], to n: NodeID, _ ctx: inout SimContext<[UInt8]>) {
        stats.datagrams += 1
        ctx.send(d, to: n, bytes: d.count + SkwadGossipNode.ipUdpBytes)
    }

    mutating func sealed(_ message: [UInt8], to n: NodeID, _ ctx: inout SimContext<[UInt8]>) {
        guard peers[n]?.hasSession == true else { return }
        let frame = peers[n]!.seal(message)
        send(frame, to: n, &ctx)
    }

    mutating func receive(_ d: [UInt8], from: NodeID, world: World, _ ctx: inout SimContext<[UInt8]>) {
        guard var peer = peers[from], d.count >= 4 else { return }  // it only talks to its targets
        switch d[3] {
        case 2, 4:  // WELCOME, or a COOKIE to echo
            let keyed = peer.accept(d)
            peers[from] = peer
            if keyed { stats.sessions += 1 } else if peer.cookie != nil, !peer.hasSession { send(peer.hello(), to: from, &ctx) }
        case 3:
            guard let pt = peer.open(d), let (kind, body) = WireForge.body(pt) else { return }
            switch WireForge.Body(rawValue: kind) {
            case .ping?:
                if let seq = WireForge.pingSeq(body) { sealed(WireForge.ack(seq: seq, cell: claimedCell), to: from, &ctx) }
            case .ops?, .stem?:
                for e in WireForge.envelopes(body) { keep(e, world: world) }
            default:
                break  // Want, IHave, reconciliation...: never answered, never forwarded
            }
        default:
            break
        }
    }

    mutating func keep(_ envelope: [UInt8], world: World) {
        stats.envelopesReceived += 1
        if seen.count < Self.memory { seen.append(envelope) } else { seen[rng.below(seen.count)] = envelope }
        guard locked.count < Self.memory, let env = try? Envelope(serialized: envelope), let ref = world.ref(of: env.id),
            world.packs[Int(world.ops[Int(ref)].pack)].locked, lockedIDs.insert(env.id).inserted
        else { return }
        locked.append(envelope)
    }

    mutating func timer(_ tag: UInt32, _ ctx: inout SimContext<[UInt8]>) {
        if tag == Self.roundTag {
            round(&ctx)
            ctx.schedule(afterMs: roundMs, tag: Self.roundTag)
        } else if tag == Self.floodTag {
            for n in targets { flood(n, &ctx) }
            ctx.schedule(afterMs: Self.floodEveryMs, tag: Self.floodTag)
        }
    }

    mutating func ally() -> String { allies.isEmpty ? SkwadGossipNode.address(me).value : allies[rng.below(allies.count)].value }

    mutating func round(_ ctx: inout SimContext<[UInt8]>) {
        for n in targets {
            guard peers[n]!.hasSession else { send(peers[n]!.hello(), to: n, &ctx); continue }
            sealed(WireForge.join(cell: claimedCell), to: n, &ctx)
            sealed(WireForge.neighbor(highPriority: true, cell: claimedCell, origin: ally(), ttl: 1_000), to: n, &ctx)
            sealed(WireForge.forwardJoin(joiner: ally(), cell: claimedCell, ttl: 100_000), to: n, &ctx)
            let planted = (0..<6).map { _ in (ally(), claimedCell) }
            sealed(WireForge.shuffle(origin: ally(), cell: claimedCell, ttl: 1_000, peers: planted), to: n, &ctx)
            sealed(WireForge.interest(cell: claimedCell), to: n, &ctx)
            stats.eclipseMessages += 5
            let from = relayed[n, default: 0]
            if from < locked.count {
                for chunk in stride(from: from, to: locked.count, by: 4) {
                    sealed(WireForge.ops(Array(locked[chunk..<min(locked.count, chunk + 4)])), to: n, &ctx)
                }
                stats.relayed += locked.count - from
                relayed[n] = locked.count
            }
        }
    }

    mutating func flood(_ n: NodeID, _ ctx: inout SimContext<[UInt8]>) {
        for _ in 0..<floodPerTick {
            stats.junk += 1
            let has = peers[n]!.hasSession
            switch rng.below(has ? 7 : 3) {
            case 0: send(rng.bytes(1 + rng.below(1200)), to: n, &ctx)
            case 1: send(HostilePeer.header(1) + rng.bytes(196), to: n, &ctx)  // HELLO, fresh key
            case 2: send(HostilePeer.forgedData(counter: rng.next(), payload: rng.bytes(16 + rng.below(600))), to: n, &ctx)
            case 3: sealed(rng.bytes(1 + rng.below(800)), to: n, &ctx)
            case 4:
                guard !seen.isEmpty else { continue }
                sealed(WireForge.ops([seen[rng.below(seen.count)]]), to: n, &ctx)
            case 5:
                guard !seen.isEmpty else { continue }
                var e = seen[rng.below(seen.count)]
                e[rng.below(e.count)] ^= UInt8(1 + rng.below(255))
                sealed(WireForge.ops([e]), to: n, &ctx)
            default:
                sealed(WireForge.ihave((0..<8).map { _ in rng.bytes(32) }), to: n, &ctx)
            }
        }
    }
}

/// What the adversaries did, summed.
struct AdversaryStats {
    var datagrams = 0, junk = 0, sessions = 0, eclipseMessages = 0, envelopesReceived = 0, relayed = 0
    static func + (a: Self, b: Self) -> Self {
        Self(
            datagrams: a.datagrams + b.datagrams, junk: a.junk + b.junk, sessions: a.sessions + b.sessions,
            eclipseMessages: a.eclipseMessages + b.eclipseMessages, envelopesReceived: a.envelopesReceived + b.envelopesReceived,
            relayed: a.relayed + b.relayed)
    }
}
