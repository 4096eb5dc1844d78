import SkwadModel
import SkwadReplica

/// What one run measures, as it goes. Holding is tracked per (node, pack membership) with
/// a bit per op, mirroring what each replica admitted.
struct Metrics {
    let world: World
    /// Offset of each node's first membership in the flat `held` / `everHeld` arrays.
    let membershipOffset: [Int]
    var held: [OpBits]
    var everHeld: [OpBits]
    /// Per pack, its honest members (all members without `[hostile]`): coverage is theirs.
    let honestMembers: [Int]

    // per op
    var holders: [Int32]
    var fullAtMs: [UInt64]  // UInt64.max until every eligible node held it
    var created: [Bool]
    var createdCount = 0
    var notCreated = 0
    var eligibleSum = 0  // over created ops
    var heldSum = 0  // current holders, over created ops
    var fullCount = 0  // ops every eligible node has held at some time

    // deliveries
    var latencies: [UInt32] = []
    var remoteDeliveries = 0
    var duplicates = 0
    var pendingHeld = 0
    var rejected: [Rejection: Int] = [:]
    var leaks = 0

    // traffic
    var messagesSent: [UInt32]
    var bytesSent: [UInt64]
    var messagesTotal = 0
    var bytesTotal = 0
    var opCopiesSent = 0
    var droppedLoss = 0, droppedPartition = 0, droppedOffline = 0

    // heals
    struct Heal { var healMs: UInt64; var cutoff: Int; var missing: Int; var convergedAtMs: UInt64? }
    var heals: [Heal] = []

    var samples: [CoverageSample] = []

    // origin guessing (Dandelion++): spies and their first sighting of each op
    var spy: [Bool]
    var spied: [Bool]
    var originGuesses = 0, originRight = 0

    init(world: World) {
        self.world = world
        var offsets: [Int] = []
        offsets.reserveCapacity(world.nodeCount + 1)
        var total = 0
        for ms in world.memberships { offsets.append(total); total += ms.count }
        offsets.append(total)
        membershipOffset = offsets
        held = Array(repeating: OpBits(), count: total)
        everHeld = held
        honestMembers = world.packs.map { p in p.members.reduce(0) { $0 + (world.hostile[Int($1)] ? 0 : 1) } }
        holders = Array(repeating: 0, count: world.ops.count)
        fullAtMs = Array(repeating: .max, count: world.ops.count)
        created = Array(repeating: false, count: world.ops.count)
        messagesSent = Array(repeating: 0, count: world.nodeCount)
        spied = Array(repeating: false, count: world.ops.count)
        var rng = SimRandom.stream(world.seed, 7)
        spy = (0..<world.nodeCount).map { _ in rng.chance(world.scenario.strategy.spies) }
        bytesSent = Array(repeating: 0, count: world.nodeCount)
    }

    func eligible(_ ref: OpRef) -> Int { honestMembers[Int(world.ops[Int(ref)].pack)] }

    mutating func opCreated(_ ref: OpRef) {
        created[Int(ref)] = true
        createdCount += 1
        eligibleSum += eligible(ref)
        heldSum += Int(holders[Int(ref)])
    }

    /// A spy `node` got `ref` (not its own) from `sender`: the first spy sighting of an op
    /// made by a non-spy is the spies' guess of its author.
    mutating func sighted(node: Int, ref: OpRef, sender: Int) {
        guard spy[node], !spied[Int(ref)] else { return }
        let origin = Int(world.ops[Int(ref)].origin)
        guard origin != node, !spy[origin] else { return }
        spied[Int(ref)] = true
        originGuesses += 1
        if sender == origin { originRight += 1 }
    }

    /// `node` admitted `ref` into its replica at `nowMs`.
    mutating func hold(node: Int, ref: OpRef, nowMs: UInt64) {
        guard !world.hostile[node] else { return }
        let o = world.ops[Int(ref)]
        guard let mi = world.membershipIndex(node: node, pack: o.pack) else {
            if world.isLeak(node: node, pack: o.pack) { leaks += 1 }
            return
        }
        let slot = membershipOffset[node] + mi
        guard !held[slot].contains(o.local) else { return }
        held[slot].insert(o.local)
        holders[Int(ref)] += 1
        if created[Int(ref)] { heldSum += 1 }
        if Int(o.origin) != node {
            remoteDeliveries += 1
            if !everHeld[slot].contains(o.local) {
                everHeld[slot].insert(o.local)
                latencies.append(UInt32(clamping: nowMs - min(nowMs, o.createdMs)))
            }
        }
        if Int(holders[Int(ref)]) == eligible(ref) && fullAtMs[Int(ref)] == .max { fullAtMs[Int(ref)] = nowMs; fullCount += 1 }
        for h in heals.indices where heals[h].convergedAtMs == nil && Int(ref) < heals[h].cutoff {
            heals[h].missing -= 1
            if heals[h].missing == 0 { heals[h].convergedAtMs = nowMs }
        }
    }

    /// `node` lost its data (came back from churn without it).
    mutating func dropAll(node: Int) {
        let ms = world.memberships[node]
        for (mi, m) in ms.enumerated() {
            let slot = membershipOffset[node] + mi
            let packOps = world.packs[Int(m.pack)].ops
            held[slot].forEach { local in
                let ref = packOps[Int(local)]
                holders[Int(ref)] -= 1
                if created[Int(ref)] { heldSum -= 1 }
                for h in heals.indices where heals[h].convergedAtMs == nil && Int(ref) < heals[h].cutoff { heals[h].missing += 1 }
            }
            held[slot] = OpBits()
        }
    }

    mutating func healed(atMs: UInt64) {
        var missing = 0
        for i in 0..<world.ops.count where created[i] { missing += eligible(OpRef(i)) - Int(holders[i]) }
        heals.append(Heal(healMs: atMs, cutoff: createdCount, missing: missing, convergedAtMs: missing == 0 ? atMs : nil))
    }

    mutating func sent(from: Int, bytes: Int, ops: Int) {
        messagesSent[from] &+= 1
        bytesSent[from] &+= UInt64(bytes)
        messagesTotal += 1
        bytesTotal += bytes
        opCopiesSent += ops
    }

    var coverage: Double { eligibleSum == 0 ? 1 : Double(heldSum) / Double(eligibleSum) }

    mutating func sample(atMs: UInt64, online: Int) {
        samples.append(
            CoverageSample(
                timeMs: atMs, opsCreated: createdCount, coverage: coverage, opsFullyCovered: fullCount,
                messages: messagesTotal, bytes: bytesTotal, onlineNodes: online))
    }
}

/// One point of the time series (one CSV row).
public struct CoverageSample: Codable, Equatable, Sendable {
    public var timeMs: UInt64
    public var opsCreated: Int
    /// Held (op, eligible node) pairs over all such pairs, for the ops created so far.
    public var coverage: Double
    public var opsFullyCovered: Int
    public var messages: Int
    public var bytes: Int
    public var onlineNodes: Int
}
