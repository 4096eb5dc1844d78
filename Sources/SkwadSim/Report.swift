import Foundation

/// The JSON summary of a simulation: the world, then one entry per strategy run over it.
/// Deterministic: same scenario, seed and binary give the same bytes (`json()`); wall-clock
/// figures are deliberately not in it (the CLI prints them apart).
public struct SimReport: Codable, Equatable, Sendable {
    public var scenario: String
    public var seed: UInt64
    public var nodes: Int
    public var packs: Int
    public var lockedPacks: Int
    public var adminPacks: Int
    public var ops: Int
    /// Workload events dropped (over the cap, or no online node to make them).
    public var opsSkipped: Int
    /// Mean number of nodes eligible for an op (members of its pack).
    public var meanEligiblePerOp: Double
    public var durationMs: UInt64
    /// Ed25519 verifications actually done, and checks answered from the memo.
    public var signatureChecks: Int
    public var signatureChecksMemoized: Int
    public var runs: [StrategyReport]

    /// Pretty, key-sorted JSON.
    public func json() -> Data {
        let enc = JSONEncoder()
        enc.outputFormatting = [.prettyPrinted, .sortedKeys]
        enc.keyEncodingStrategy = .convertToSnakeCase
        return (try? enc.encode(self)) ?? Data("{}".utf8)
    }
}

/// A distribution summary (values in the unit its name says).
public struct Distribution: Codable, Equatable, Sendable {
    public var count: Int
    public var mean: Double
    public var p50: Double
    public var p90: Double
    public var p99: Double
    public var max: Double

    public static func of(_ values: [Double]) -> Distribution {
        guard !values.isEmpty else { return Distribution(count: 0, mean: 0, p50: 0, p90: 0, p99: 0, max: 0) }
        let v = values.sorted()
        func q(_ p: Double) -> Double { v[min(v.count - 1, Int((p * Double(v.count - 1)).rounded()))] }
        return Distribution(
            count: v.count, mean: rounded(v.reduce(0, +) / Double(v.count)), p50: q(0.5), p90: q(0.9),
            p99: q(0.99), max: v[v.count - 1])
    }
}

/// Totals and per-node figures of one kind of traffic.
public struct Traffic: Codable, Equatable, Sendable {
    public var total: Int
    public var perNodeMean: Double
    public var perNodeMax: Int
}

public struct HealReport: Codable, Equatable, Sendable {
    public var healMs: UInt64
    /// Time from the heal until every eligible node held every op created before it; nil if never.
    public var convergedAfterMs: UInt64?
}

/// What one strategy did over the world.
/// A pack whose members do not all hold the same ops at the end of a run.
public struct DivergentPack: Codable, Equatable, Sendable {
    public var pack: Int
    public var radiusM: Double?
    public var locked: Bool
    public var members: Int
    public var ops: Int
    /// Members holding every op of the pack that anyone holds.
    public var completeMembers: Int
    /// (member, op) pairs missing, against the union of what the members hold.
    public var missingPairs: Int = 0
    /// Members that do not know the pack at all (no genesis).
    public var membersWithoutGenesis: Int = 0
    /// Creation times (virtual ms) of the oldest and newest op some member misses.
    public var oldestMissingCreatedMs: UInt64? = nil
    public var newestMissingCreatedMs: UInt64? = nil
    /// Incomplete members that also hold ops in the pending buffer (ops waiting for a genesis).
    public var incompleteWithPending: Int = 0
    /// Of up to 8 incomplete members: how far inside the fence their cell lies, in metres
    /// (fence radius − centre distance − cell radius; nil entries for unfenced packs).
    public var incompleteSlackM: [Double] = []
    /// The same incomplete members: node ids, and (Skwad's engine) how many active links
    /// each has at the end, and how many of those are members of this pack.
    public var incompleteNodes: [Int] = []
    public var incompleteLinks: [Int]? = nil
    public var incompleteLinksInPack: [Int]? = nil
    /// Hostile runs: how many of those active links adversaries hold.
    public var incompleteLinksHostile: [Int]? = nil
}

public struct StrategyReport: Codable, Equatable, Sendable {
    public var strategy: String
    public var events: Int
    public var opsCreated: Int
    /// Held (op, eligible node) pairs over all such pairs at the end.
    public var coverage: Double
    /// Ops held by every eligible node at some point, and their share.
    public var opsFullyCovered: Int
    public var fullyCoveredFraction: Double
    /// Eligible nodes missing an op at the end, averaged over ops (Demers' residue).
    public var residue: Double
    /// Delay from an op's creation to its first arrival at each other eligible node, ms.
    public var deliveryLatencyMs: Distribution
    /// Per fully covered op: time from creation to the last eligible node, ms.
    public var timeToFullCoverageMs: Distribution
    /// Per fully covered op: round boundaries between creation and full coverage (round strategies).
    public var roundsToFullCoverage: Distribution?
    public var messages: Traffic
    public var bytes: Traffic
    /// Op envelopes carried in all messages.
    public var opCopiesSent: Int
    /// Arrivals of an op at a node other than its origin that admitted it.
    public var deliveries: Int
    /// Relative message redundancy (Leitão et al. 2007): op copies sent / deliveries - 1.
    public var relativeMessageRedundancy: Double
    public var duplicatesReceived: Int
    public var droppedLoss: Int
    public var droppedPartition: Int
    public var droppedOffline: Int
    public var rejected: [String: Int]
    public var pendingHeld: Int
    /// Ops of locked packs admitted by an honest node outside the pack's fence. Must be 0.
    public var geofenceLeaks: Int
    public var heals: [HealReport]
    /// Packs whose members all hold the same op set at the end (same ids, same order).
    public var packsIdentical: Int
    public var packsChecked: Int
    /// The packs whose members disagree at the end (at most 10, fewest holders first).
    public var divergentPacks: [DivergentPack] = []
    /// Late joiners only (`nodes.late`): of the (node, pack) pairs where the pack is in the
    /// node's directory at the end (PROTOCOL §11a), the share whose genesis the node holds.
    public var directoryCoverage: Double?
    /// Of the ops that reached a spy (`strategy.spies` of the nodes, colluding) before any
    /// spy made them, the share whose author the spies guess right by taking the first
    /// node that handed one of them the op for its author (Dandelion++'s precision). Nil
    /// without spies or without such ops.
    public var originPrecision: Double?
    public var samples: Int
    /// Hostile runs only (`[hostile]`): what the adversaries did and got.
    public var hostile: HostileReport? = nil
    /// Skwad's engine only: messages and plaintext bytes sent, by message kind, summed over
    /// the nodes up at the end (`sent.<kind>`, `sent_bytes.<kind>`; a node that restarted
    /// counts from its restart). Where the traffic goes, for tuning.
    public var engineSent: [String: Int]? = nil
    /// Skwad's engine only: fenced packs, live at the end, whose members up at the end fall
    /// into more than one part over their links (either end's link counts): ops made in one
    /// part reach another only through a member's other links, if at all (PROTOCOL §9).
    public var splitPacks: Int? = nil
}

func rounded(_ x: Double, _ digits: Double = 1e6) -> Double { (x * digits).rounded() / digits }
