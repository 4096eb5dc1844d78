import SkwadModel
import SkwadReplica

/// The classic strategies of Demers et al., "Epidemic Algorithms for Replicated Database
/// Maintenance" (PODC 1987), applied per pack: each pack is one replicated database whose
/// sites are the pack's eligible nodes. Every `roundMs` each node, for each of its packs,
/// contacts one member chosen uniformly at random (full membership knowledge, as in the
/// paper). Never sends a pack's ops to a non-member, so the geofence holds by construction
/// (and the simulator checks it independently).
public struct BaselineStrategy: SimStrategy {
    public let kind: StrategyKind
    public let round: UInt64
    public let phase: Scenario.RoundPhase
    public let k: Int
    public let seed: UInt64

    public init(kind: StrategyKind, roundMs: UInt64, phase: Scenario.RoundPhase, k: Int, seed: UInt64) {
        self.kind = kind; round = roundMs; self.phase = phase; self.k = k; self.seed = seed
    }

    public var name: String { kind.description }
    public var roundMs: UInt64? { round }
    public var independentNodes: Bool { true }

    public func makeNode(_ id: NodeID, world: World) -> BaselineNode {
        BaselineNode(
            strategy: self, id: id, memberships: world.memberships[id].count,
            rng: SimRandom.stream(seed, 100, UInt64(id)))
    }
}

/// One node running a baseline strategy. Its state: per pack, the ops it holds (a bit per
/// op) and, for rumor mongering, its hot rumors with their counters.
public struct BaselineNode: SimProtocol {
    public typealias Payload = BaselineMessage

    struct Slot {
        var known = OpBits()
        var hot = OpBits()
        var counters: [Int32: UInt16] = [:]
    }

    let strategy: BaselineStrategy
    let id: NodeID
    var rng: SimRandom
    var slots: [Slot]

    init(strategy: BaselineStrategy, id: NodeID, memberships: Int, rng: SimRandom) {
        self.strategy = strategy; self.id = id; self.rng = rng
        slots = Array(repeating: Slot(), count: memberships)
    }

    var isRumor: Bool { if case .rumor = strategy.kind { true } else { false } }

    public mutating func start(replica: inout Replica, _ ctx: inout SimContext<Payload>) {
        let world = ctx.world
        let ms = world.memberships[id]
        guard !ms.isEmpty else { return }
        if replica.count > 0 {
            for (i, m) in ms.enumerated() {
                for ref in world.packs[Int(m.pack)].ops where replica.contains(world.ops[Int(ref)].op.id) {
                    slots[i].known.insert(world.ops[Int(ref)].local)
                }
            }
        }
        let round = strategy.round
        switch strategy.phase {
        case .aligned: ctx.schedule(afterMs: round - ctx.nowMs % round)
        case .random: ctx.schedule(afterMs: 1 + UInt64(rng.below(Int(round))))
        }
    }

    public mutating func localUpdate(_ op: OpRef, replica: inout Replica, _ ctx: inout SimContext<Payload>) {
        let o = ctx.world.ops[Int(op)]
        guard let i = ctx.world.membershipIndex(node: id, pack: o.pack) else { return }
        slots[i].known.insert(o.local)
        if isRumor { slots[i].hot.insert(o.local); slots[i].counters[o.local] = 0 }
    }

    public mutating func timer(_ tag: UInt32, replica: inout Replica, _ ctx: inout SimContext<Payload>) {
        let world = ctx.world
        let ms = world.memberships[id]
        for i in ms.indices {
            let pack = world.packs[Int(ms[i].pack)]
            guard pack.members.count > 1 else { continue }
            switch strategy.kind {
            case .push:
                guard !slots[i].known.isEmpty else { continue }
                send(.push, slots[i].known, pack: ms[i], to: peer(ms[i], pack), ctx: &ctx)
            case .pull:
                let known = slots[i].known
                ctx.send(
                    BaselineMessage(kind: .pullRequest, pack: ms[i].pack, ops: known), to: peer(ms[i], pack),
                    bytes: ctx.headerBytes + BaselineMessage.packTagBytes + known.count * BaselineMessage.digestEntryBytes)
            case .pushPull:
                send(.pushPull, slots[i].known, pack: ms[i], to: peer(ms[i], pack), ctx: &ctx)
            case .rumor(let feedback, let coin):
                guard !slots[i].hot.isEmpty else { continue }
                send(.rumor, slots[i].hot, pack: ms[i], to: peer(ms[i], pack), ctx: &ctx)
                if !feedback { loseInterest(slot: i, in: slots[i].hot, coin: coin) }
            case .skwad:
                continue  // not a baseline: runs through SkwadGossipStrategy
            }
        }
        ctx.schedule(afterMs: strategy.round)
    }

    public mutating func receive(_ m: BaselineMessage, from: NodeID, replica: inout Replica, _ ctx: inout SimContext<Payload>) {
        guard let i = ctx.world.membershipIndex(node: id, pack: m.pack) else { return }
        let before = slots[i].known
        switch m.kind {
        case .push, .pullReply:
            learn(m.ops.subtracting(before), slot: i, pack: m.pack, ctx: &ctx)
        case .pullRequest:
            let reply = before.subtracting(m.ops)
            if !reply.isEmpty { send(.pullReply, reply, pack: ctx.world.memberships[id][i], to: from, ctx: &ctx) }
        case .pushPull:
            learn(m.ops.subtracting(before), slot: i, pack: m.pack, ctx: &ctx)
            let reply = before.subtracting(m.ops)
            if !reply.isEmpty { send(.pullReply, reply, pack: ctx.world.memberships[id][i], to: from, ctx: &ctx) }
        case .rumor:
            let fresh = m.ops.subtracting(before)
            learn(fresh, slot: i, pack: m.pack, ctx: &ctx)
            fresh.forEach {
                slots[i].hot.insert($0); slots[i].counters[$0] = 0
            }
            if case .rumor(true, let coin) = strategy.kind {
                // Feedback names the contact's unnecessary rumors; the counter variant also
                // names the necessary ones, whose counters the sender resets (Demers §1.4).
                let already = m.ops.intersection(before)
                let news = coin ? OpBits() : fresh
                if !already.isEmpty || !news.isEmpty {
                    ctx.send(
                        BaselineMessage(kind: .feedback, pack: m.pack, ops: already, fresh: news), to: from,
                        bytes: ctx.headerBytes + BaselineMessage.packTagBytes
                            + (already.count + news.count) * BaselineMessage.digestEntryBytes)
                }
            }
        case .feedback:
            if case .rumor(_, let coin) = strategy.kind {
                loseInterest(slot: i, in: m.ops.intersection(slots[i].hot), coin: coin)
                if !coin { m.fresh.intersection(slots[i].hot).forEach { slots[i].counters[$0] = 0 } }
            }
        }
    }

    // MARK: - helpers

    /// A member of the pack other than this node, uniformly at random.
    mutating func peer(_ m: Membership, _ pack: SimPack) -> NodeID {
        var j = rng.below(pack.members.count - 1)
        if j >= Int(m.position) { j += 1 }
        return Int(pack.members[j])
    }

    mutating func send(_ kind: BaselineMessage.Kind, _ ops: OpBits, pack m: Membership, to: NodeID, ctx: inout SimContext<Payload>) {
        let world = ctx.world
        let packOps = world.packs[Int(m.pack)].ops
        var bytes = ctx.headerBytes + BaselineMessage.packTagBytes
        ops.forEach { bytes += world.ops[Int(packOps[Int($0)])].envelope.count }
        ctx.send(BaselineMessage(kind: kind, pack: m.pack, ops: ops), to: to, bytes: bytes, ops: ops.count)
    }

    mutating func learn(_ fresh: OpBits, slot i: Int, pack: Int32, ctx: inout SimContext<Payload>) {
        guard !fresh.isEmpty else { return }
        let packOps = ctx.world.packs[Int(pack)].ops
        slots[i].known.formUnion(fresh)
        fresh.forEach { ctx.deliver(packOps[Int($0)]) }
    }

    /// Rumor mongering's loss of interest (Demers §1.4): counter — after k contacts that
    /// count with no necessary contact between them (with feedback, a necessary contact
    /// resets the counter); coin — with probability 1/k at each one.
    mutating func loseInterest(slot i: Int, in rumors: OpBits, coin: Bool) {
        let k = strategy.k
        rumors.forEach { r in
            if coin {
                if rng.below(k) == 0 { slots[i].hot.remove(r); slots[i].counters[r] = nil }
            } else {
                let c = (slots[i].counters[r] ?? 0) + 1
                if Int(c) >= k { slots[i].hot.remove(r); slots[i].counters[r] = nil } else { slots[i].counters[r] = c }
            }
        }
    }
}
