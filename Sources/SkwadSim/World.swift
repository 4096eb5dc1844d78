import SkwadCrypto
import SkwadModel
import SkwadReplica

/// A reference to one op of the world's schedule (its index in `World.ops`).
public typealias OpRef = Int32
public typealias NodeID = Int

/// One op of the schedule: a real signed op, when and where it is created.
public struct SimOp: Sendable {
    public let op: SignedOp
    /// The serialized envelope, exactly as it travels.
    public let envelope: [UInt8]
    public let createdMs: UInt64
    public let origin: Int32
    public let pack: Int32
    /// Its index among its pack's ops (genesis = 0).
    public let local: Int32
}

/// One pack: its fence, and the nodes eligible to hold it (inside the fence, or subscribed).
public struct SimPack: Sendable {
    public let genesis: OpRef
    public let fence: Geofence?
    public let locked: Bool
    public let isAdmin: Bool
    /// Eligible nodes, ascending.
    public let members: [Int32]
    /// Its ops in creation order (genesis first).
    public internal(set) var ops: [OpRef]
}

/// A node's membership of one pack, with its own position in the pack's member list.
public struct Membership: Sendable {
    public let pack: Int32
    public let position: Int32
}

/// Everything fixed before the run starts, built once per (scenario, seed) and shared by
/// every strategy compared: node positions, packs and their members, the signed op
/// schedule, churn and partitions. Immutable.
public final class World: Sendable {
    public let scenario: Scenario
    public let seed: UInt64
    public let replicaConfig: ReplicaConfig
    public let ops: [SimOp]
    public let packs: [SimPack]
    /// Per node, its packs in ascending order.
    public let memberships: [[Membership]]
    /// Workload events dropped because no online node could make them (or the cap).
    public let skippedOps: Int
    let geography: Geography
    let churn: ChurnSchedule
    let partitions: PartitionPlan
    let opIndex: [OpID: OpRef]
    /// Misbehaving nodes (`scenario.hostile`), and the honest nodes they try to eclipse.
    public let hostile: [Bool]
    public let eclipseTargets: [NodeID]

    public var nodeCount: Int { scenario.nodes.count }
    public func location(of node: NodeID) -> GeoPoint { geography.locations[node] }
    public func cell(of node: NodeID) -> String { geography.cells[node] }
    public func ref(of id: OpID) -> OpRef? { opIndex[id] }

    /// Index of `pack` among `node`'s memberships, if it is a member.
    public func membershipIndex(node: NodeID, pack: Int32) -> Int? {
        let ms = memberships[node]
        var lo = 0, hi = ms.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if ms[mid].pack < pack { lo = mid + 1 } else { hi = mid }
        }
        return lo < ms.count && ms[lo].pack == pack ? lo : nil
    }

    /// Does `node`'s announced cell lie inside the fence of `pack`? (False for unfenced packs.)
    public func isInside(node: NodeID, pack: Int32) -> Bool {
        guard let fence = packs[Int(pack)].fence else { return false }
        return geography.inside(node, fence)
    }

    /// Is `node` outside the fence of locked pack `pack`? (Such a node must never hold its ops.)
    public func isLeak(node: NodeID, pack: Int32) -> Bool {
        let p = packs[Int(pack)]
        guard p.locked, let fence = p.fence else { return false }
        return !geography.inside(node, fence)
    }

    init(
        scenario: Scenario, seed: UInt64, replicaConfig: ReplicaConfig, ops: [SimOp], packs: [SimPack],
        memberships: [[Membership]], skippedOps: Int, geography: Geography, churn: ChurnSchedule, partitions: PartitionPlan
    ) {
        self.scenario = scenario; self.seed = seed; self.replicaConfig = replicaConfig; self.ops = ops; self.packs = packs
        self.memberships = memberships; self.skippedOps = skippedOps; self.geography = geography; self.churn = churn
        self.partitions = partitions
        var index: [OpID: OpRef] = [:]
        index.reserveCapacity(ops.count)
        for (i, o) in ops.enumerated() { index[o.op.id] = OpRef(i) }
        opIndex = index
        (hostile, eclipseTargets) = HostilePlan.draw(scenario, seed: seed, nodes: scenario.nodes.count, ops: ops)
    }

    public func isHonest(_ node: NodeID) -> Bool { !hostile[node] }

    /// Builds the world of a scenario: places nodes, draws churn and partitions, then the
    /// workload, signing every op for real.
    public static func build(_ s: Scenario, seed: UInt64) -> World {
        let geo = Geography.place(s, seed: seed)
        let churn = ChurnSchedule.draw(s, seed: seed)
        let parts = PartitionPlan.draw(s, geography: geo, seed: seed)
        var gen = WorkloadGenerator(scenario: s, seed: seed, geography: geo, churn: churn)
        gen.run()
        return World(
            scenario: s, seed: seed, replicaConfig: Self.replicaConfig(admin: gen.adminKey.publicKey),
            ops: gen.ops, packs: gen.packs, memberships: gen.memberships, skippedOps: gen.skipped,
            geography: geo, churn: churn, partitions: parts)
    }
}

extension World {
    /// The replicas' rules in a simulation: the protocol's, except the price on identity
    /// (stamp floors, cap on packs from others), which the simulator does not model: its
    /// workload stamps pseudonyms with the scenario's own `pow_bits` and may hold many packs.
    static func replicaConfig(admin: PublicKey) -> ReplicaConfig {
        ReplicaConfig(adminKeys: [admin], pseudonymPowFloor: 0, genesisPowFloor: 0, maxRemotePacks: .max)
    }
}
