import SkwadGossip
import SkwadReplica

/// Skwad's engine among adversaries: honest nodes run `SkwadGossipStrategy`'s node (the
/// real `GossipEngine`), the `world.hostile` nodes run an `Adversary`. Same name as the
/// engine's strategy: it is the engine that is measured.
public struct HostileStrategy: SimStrategy {
    public let honest: SkwadGossipStrategy
    public init(honest: SkwadGossipStrategy) { self.honest = honest }

    public var name: String { honest.name }
    public var roundMs: UInt64? { nil }

    public func makeNode(_ id: NodeID, world: World) -> HostileMixedNode {
        world.hostile[id]
            ? HostileMixedNode(adversary: Adversary(id, world: world, seed: honest.seed))
            : HostileMixedNode(honest: honest.makeNode(id, world: world))
    }
}

/// One node of a hostile run: exactly one of the two is set (optionals, so that the
/// engine is mutated in place, never copied).
public struct HostileMixedNode: SimProtocol {
    public typealias Payload = [UInt8]
    var honest: SkwadGossipNode?
    var adversary: Adversary?

    init(honest: SkwadGossipNode) { self.honest = honest }
    init(adversary: Adversary) { self.adversary = adversary }

    public mutating func start(replica: inout Replica, _ ctx: inout SimContext<Payload>) {
        honest?.start(replica: &replica, &ctx)
        adversary?.start(&ctx)
    }
    public mutating func receive(_ d: [UInt8], from: NodeID, replica: inout Replica, _ ctx: inout SimContext<Payload>) {
        honest?.receive(d, from: from, replica: &replica, &ctx)
        adversary?.receive(d, from: from, world: ctx.world, &ctx)
    }
    public mutating func timer(_ tag: UInt32, replica: inout Replica, _ ctx: inout SimContext<Payload>) {
        honest?.timer(tag, replica: &replica, &ctx)
        adversary?.timer(tag, &ctx)
    }
    public mutating func localUpdate(_ op: OpRef, replica: inout Replica, _ ctx: inout SimContext<Payload>) {
        honest?.localUpdate(op, replica: &replica, &ctx)
    }
}

/// What a hostile run shows beyond coverage and leaks (`StrategyReport.hostile`).
public struct HostileReport: Codable, Equatable, Sendable {
    public var adversaries: Int
    public var eclipseTargets: Int
    /// At the end, the share of each eclipse target's active links held by adversaries: mean and worst.
    public var targetActiveHostileMean: Double
    public var targetActiveHostileMax: Double
    /// The same share over every honest node (what the random overlay gives them).
    public var honestActiveHostileMean: Double
    /// Sent by adversaries: all datagrams, junk among them, eclipse messages (Join, Neighbor,
    /// ForwardJoin, Shuffle, Interest), sessions they got, op envelopes pushed to them,
    /// locked packs' envelopes they relayed.
    public var datagrams: Int
    public var junk: Int
    public var eclipseMessages: Int
    public var sessions: Int
    public var envelopesReceived: Int
    public var lockedRelayed: Int
    /// Honest engines' drops and op rejections by reason, summed.
    public var honestDrops: [String: Int]
    public var honestOpsRejected: [String: Int]
}

extension HostileReport {
    static func of(_ nodes: [HostileMixedNode], world: World) -> HostileReport {
        var stats = AdversaryStats(), drops: [String: Int] = [:], rejected: [String: Int] = [:]
        var targetShares: [Double] = [], honestShares: [Double] = []
        for (i, n) in nodes.enumerated() {
            if let a = n.adversary { stats = stats + a.stats }
            guard let h = n.honest else { continue }
            let active = h.engine.activePeers
            let bad = active.filter { SkwadGossipNode.node($0).map { world.hostile[$0] } ?? false }.count
            let share = active.isEmpty ? 0 : Double(bad) / Double(active.count)
            honestShares.append(share)
            if world.eclipseTargets.contains(i) { targetShares.append(share) }
            for (k, v) in h.engine.stats.drops { drops[k, default: 0] += v }
            for (k, v) in h.engine.stats.opsRejected { rejected[k, default: 0] += v }
        }
        return HostileReport(
            adversaries: world.hostile.filter { $0 }.count, eclipseTargets: world.eclipseTargets.count,
            targetActiveHostileMean: rounded(targetShares.reduce(0, +) / Double(max(1, targetShares.count))),
            targetActiveHostileMax: targetShares.max() ?? 0,
            honestActiveHostileMean: rounded(honestShares.reduce(0, +) / Double(max(1, honestShares.count))),
            datagrams: stats.datagrams, junk: stats.junk, eclipseMessages: stats.eclipseMessages,
            sessions: stats.sessions, envelopesReceived: stats.envelopesReceived, lockedRelayed: stats.relayed,
            honestDrops: drops, honestOpsRejected: rejected)
    }
}
