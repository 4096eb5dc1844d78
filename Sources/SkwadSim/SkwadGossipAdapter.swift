import SkwadGossip
import SkwadModel
import SkwadReplica
import SkwadLab

/// Skwad's own protocol: the real SkwadGossip `GossipEngine` (sessions, HyParView + SWIM,
/// Plumtree, range-based reconciliation, the geofence rule, rate limits), driven through the
/// `SimProtocol` seam by a thin adapter. Addresses are "n<id>"; the payload is the datagram
/// exactly as the engine framed and encrypted it. The engine verifies envelopes through
/// `opener`, here the shared `SignatureMemo`.
///
/// What the adapter decides (the engine's shell decides the same things in a real node):
/// each node announces its own cell, subscribes to the unfenced packs and to the unlocked
/// packs it follows from outside their fence (known ahead of time in the simulation, where
/// a real user would join them when they appear), and joins through `seeds` bootstrap
/// nodes: one found nearby (nearest of 32 random nodes, as a campus node or LAN discovery
/// would give) and the rest uniformly at random.
public struct SkwadGossipStrategy: SimStrategy {
    public var config: GossipConfig
    public var seeds: Int
    public let memo: SignatureMemo
    public let seed: UInt64

    public init(config: GossipConfig = .init(), seeds: Int = 3, memo: SignatureMemo, seed: UInt64) {
        self.config = config; self.seeds = seeds; self.memo = memo; self.seed = seed
    }

    public var name: String { "skwad" }
    public var roundMs: UInt64? { nil }
    public var independentNodes: Bool { true }

    public func makeNode(_ id: NodeID, world: World) -> SkwadGossipNode {
        var rng = SimRandom.stream(seed, 200, UInt64(id))
        var engine = GossipEngine(config: config, seed: rng.next(), secrets: .seeded)
        engine.selfAddress = SkwadGossipNode.address(id)
        let memo = self.memo
        engine.opener = { try memo.open($0, id: $1) }
        var boot: [PeerAddress] = []
        let n = world.nodeCount
        if n > 1 {
            let here = world.location(of: id)
            var best = -1, bestDistance = Double.infinity
            for _ in 0..<32 {
                let j = rng.below(n)
                guard j != id else { continue }
                let d = here.distance(to: world.location(of: j))
                if d < bestDistance { best = j; bestDistance = d }
            }
            if best >= 0 { boot.append(SkwadGossipNode.address(best)) }
            while boot.count < min(seeds, n - 1) {
                let j = rng.below(n)
                if j != id && !boot.contains(SkwadGossipNode.address(j)) { boot.append(SkwadGossipNode.address(j)) }
            }
        }
        var subscriptions: Set<PackID> = []
        for m in world.memberships[id] where !world.isInside(node: id, pack: m.pack) {
            subscriptions.insert(world.ops[Int(world.packs[Int(m.pack)].genesis)].op.id)
        }
        return SkwadGossipNode(engine: engine, seeds: boot, subscriptions: subscriptions)
    }
}

/// One simulated node running the real engine.
public struct SkwadGossipNode: SimProtocol {
    public typealias Payload = [UInt8]
    /// IPv4 + UDP headers, added to each datagram's size.
    static let ipUdpBytes = 28

    var engine: GossipEngine
    /// Carries out the engine's directives (the one interpreter the node and the engine tests'
    /// `InMemoryNetwork` use too): sends by node index, the one live tick timer (a request for
    /// an earlier tick starts a new timer under a new tag; timers with an older tag are ignored
    /// when they fire).
    var interpreter = DirectiveInterpreter()
    let seeds: [PeerAddress]
    let subscriptions: Set<PackID>

    static func address(_ id: NodeID) -> PeerAddress { MemoryAddress.of(id) }
    static func node(_ a: PeerAddress) -> NodeID? { MemoryAddress.index(a) }

    public mutating func start(replica: inout Replica, _ ctx: inout SimContext<Payload>) {
        let before = engine.stats.opsSent
        var out = engine.setInterest(cell: ctx.world.cell(of: ctx.node), subscriptions: subscriptions, nowMs: ctx.wallMs)
        out += engine.start(seeds: seeds, nowMs: ctx.wallMs)
        apply(out, opsBefore: before, &ctx)
    }

    public mutating func receive(_ datagram: [UInt8], from: NodeID, replica: inout Replica, _ ctx: inout SimContext<Payload>) {
        let before = engine.stats.opsSent
        let out = engine.receive(datagram: datagram, from: Self.address(from), nowMs: ctx.wallMs, replica: &replica)
        apply(out, opsBefore: before, &ctx)
    }

    public mutating func timer(_ tag: UInt32, replica: inout Replica, _ ctx: inout SimContext<Payload>) {
        guard interpreter.timer.fire(tag) else { return }
        let before = engine.stats.opsSent
        let out = engine.tick(nowMs: ctx.wallMs, replica: &replica)
        apply(out, opsBefore: before, &ctx)
    }

    public mutating func localUpdate(_ op: OpRef, replica: inout Replica, _ ctx: inout SimContext<Payload>) {
        let before = engine.stats.opsSent
        let out = engine.publish(ctx.world.ops[Int(op)].op, nowMs: ctx.wallMs, replica: replica)
        apply(out, opsBefore: before, &ctx)
    }

    /// The engine's directives, one to one, through the shared `DirectiveInterpreter` into the
    /// context; op copies sent in this call are charged to its first datagram (totals are what
    /// the report uses).
    mutating func apply(_ out: [GossipDirective], opsBefore: Int, _ ctx: inout SimContext<Payload>) {
        ctx.opsToCharge = engine.stats.opsSent - opsBefore
        interpreter.carry(out, nowMs: ctx.nowMs, into: &ctx)
        ctx.opsToCharge = 0
    }
}

/// The simulator's context is the engine's sink: a send to an address that names no node is
/// dropped (as an unreachable address would be), peer changes and picture directives are not
/// simulated.
extension SimContext: DirectiveSink where Payload == [UInt8] {
    public mutating func send(_ bytes: [UInt8], to: PeerAddress) {
        guard let j = MemoryAddress.index(to) else { return }
        send(bytes, to: j, bytes: bytes.count + SkwadGossipNode.ipUdpBytes, ops: opsToCharge)
        opsToCharge = 0
    }
    public mutating func scheduleTick(generation: UInt32, afterMs: UInt64) { schedule(afterMs: afterMs, tag: generation) }
    public mutating func admitted(_ ops: [SignedOp]) { for op in ops { admitted(op) } }
    public mutating func peer(_ peer: PeerAddress, up: Bool) {}
    public mutating func picture(_ directive: GossipDirective) {}
}
