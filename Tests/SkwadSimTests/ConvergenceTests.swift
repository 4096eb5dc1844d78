import SkwadTestTraits
import Testing
import SkwadModel
import SkwadReplica
@testable import SkwadSim

/// Multi-node runs over real replicas: after partitions, heavy loss and churn, every member
/// of every pack ends with the same, complete view, and no locked pack leaks.
@Suite(.heavy) struct ConvergenceTests {
    @Test func partitionHeals() throws {
        let s = try scenario(smallCampus + "\n[[partition]]\nstart_ms = 2000\nheal_ms = 25000\nby = \"longitude\"\n")
        let result = simulate(scenario: s, seed: 3)
        let run = result.report.runs[0]
        #expect(run.droppedPartition > 0)
        #expect(run.heals.count == 1)
        let healed = try #require(run.heals[0].convergedAfterMs)
        #expect(healed > 0 && healed < 35_000)
        #expect(run.packsIdentical == run.packsChecked)
        let views = packViewsIdentical(result.world, result.outcomes[0].replicas)
        #expect(views.identical == views.total && views.total == result.world.packs.count)
        #expect(run.geofenceLeaks == 0)
    }

    @Test func thirtyPercentLoss() throws {
        let s = try scenario(smallCampus, ["network.loss=0.3"])
        let result = simulate(scenario: s, seed: 4)
        let run = result.report.runs[0]
        #expect(run.droppedLoss > 0)
        let dropped = Double(run.droppedLoss) / Double(run.messages.total)
        #expect(dropped > 0.25 && dropped < 0.35)
        #expect(run.coverage == 1)
        let views = packViewsIdentical(result.world, result.outcomes[0].replicas)
        #expect(views.identical == views.total)
        #expect(run.geofenceLeaks == 0)
    }

    @Test func churnWithAndWithoutData() throws {
        let s = try scenario(
            smallCampus,
            [
                "churn.fraction=0.3", "churn.start_ms=2000", "churn.end_ms=30000",
                "churn.mean_up_ms=6000", "churn.mean_down_ms=4000", "churn.keep_data=0.5"
            ])
        let result = simulate(scenario: s, seed: 5)
        let changes = result.world.churn.changes
        #expect(changes.contains { $0.up && !$0.keepData } && changes.contains { $0.up && $0.keepData })
        let run = result.report.runs[0]
        #expect(run.droppedOffline > 0)
        let views = packViewsIdentical(result.world, result.outcomes[0].replicas, complete: false)
        #expect(views.identical == views.total)
        #expect(run.packsIdentical == run.packsChecked)
        // An op is gone only if its origin came back without its data before passing it on
        // (and then no replica holds it at all).
        for ref in views.lost {
            let o = result.world.ops[Int(ref)]
            #expect(changes.contains { Int($0.node) == Int(o.origin) && $0.up && !$0.keepData && $0.timeMs > o.createdMs })
            #expect(!result.outcomes[0].replicas.contains { $0.contains(o.op.id) })
        }
        #expect(views.lost.count * 10 < result.world.ops.count)
    }

    /// Locked packs exist, most nodes stand outside them, and not one of their ops reached
    /// such a node: checked by the metrics and again by scanning every replica.
    @Test func noGeofenceLeakage() throws {
        let s = try scenario(smallCampus, ["network.loss=0.1", "strategy.strategies=[\"push\", \"push-pull\", \"rumor-blind-coin\"]"])
        let result = simulate(scenario: s, seed: 6)
        let world = result.world
        let locked = world.packs.filter(\.locked)
        #expect(!locked.isEmpty)
        for outcome in result.outcomes {
            #expect(outcome.report.geofenceLeaks == 0)
            for p in locked {
                let ids = Set(p.ops.map { world.ops[Int($0)].op.id })
                let outside = (0..<world.nodeCount).filter { world.isLeak(node: $0, pack: world.ops[Int(p.genesis)].pack) }
                #expect(!outside.isEmpty)
                for n in outside { #expect(!ids.contains { outcome.replicas[n].contains($0) }) }
            }
        }
    }

    /// The leak detector works: a strategy that ignores fences is caught.
    @Test func aLeakyStrategyIsCaught() throws {
        let s = try scenario(smallCampus, ["packs.locked=1.0"])
        let world = World.build(s, seed: 7)
        let outcome = runStrategy(Flood(), world: world)
        #expect(outcome.report.geofenceLeaks > 0)
    }
}

/// A deliberately wrong strategy: every new op goes to 30 random nodes, members or not.
struct Flood: SimStrategy {
    var name: String { "flood" }
    var roundMs: UInt64? { nil }
    func makeNode(_ id: NodeID, world: World) -> FloodNode { FloodNode(rng: SimRandom.stream(1, 9, UInt64(id))) }
}

struct FloodNode: SimProtocol {
    var rng: SimRandom
    mutating func start(replica: inout Replica, _ ctx: inout SimContext<OpRef>) {}
    mutating func receive(_ op: OpRef, from: NodeID, replica: inout Replica, _ ctx: inout SimContext<OpRef>) { ctx.deliver(op) }
    mutating func timer(_ tag: UInt32, replica: inout Replica, _ ctx: inout SimContext<OpRef>) {}
    mutating func localUpdate(_ op: OpRef, replica: inout Replica, _ ctx: inout SimContext<OpRef>) {
        for _ in 0..<30 { ctx.send(op, to: rng.below(ctx.world.nodeCount), bytes: 300, ops: 1) }
    }
}
