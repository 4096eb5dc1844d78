import SkwadTestTraits
import Testing
import SkwadModel
import SkwadReplica
@testable import SkwadSim

/// The real engine among adversaries that speak the real wire protocol (`Adversary`):
/// eclipse attempts, floods, lying cells, silent dropping and relays of locked ops. Honest
/// nodes still all get every op of their packs, and no honest node outside a locked fence
/// holds one of its ops.
@Suite(.heavy) struct HostileSimTests {
    static let hostile = """

        [hostile]
        fraction = 0.1
        eclipse_targets = 3
        contacts = 4
        round_ms = 500
        flood_per_second = 50
        lie = true
        """

    func run(seed: UInt64) throws -> SimulationResult {
        let s = try scenario(
            smallCampus + Self.hostile,
            [
                "strategy.strategies=[\"skwad\"]", "duration_ms=30000", "nodes.count=100",
                "workload.max_ops=200"
            ])
        return simulate(scenario: s, seed: seed)
    }

    @Test func adversariesAreDrawnAmongNonAuthorsAndTargetsAreHonest() throws {
        let world = World.build(try scenario(smallCampus + Self.hostile), seed: 30)
        #expect(world.hostile.filter { $0 }.count == 16)
        for o in world.ops { #expect(!world.hostile[Int(o.origin)]) }
        #expect(world.eclipseTargets.count == 3)
        for t in world.eclipseTargets { #expect(world.isHonest(t)) }
    }

    @Test func honestCoverageIsOneAndNothingLeaks() throws {
        let result = try run(seed: 31)
        let r = result.report.runs[0]
        let h = try #require(r.hostile)
        // The attack happened: sessions, eclipse messages, junk, locked ops obtained by lying and relayed.
        #expect(h.adversaries == 10)
        #expect(h.sessions > 0 && h.eclipseMessages > 1000 && h.junk > 5_000)
        #expect(h.envelopesReceived > 0)
        #expect(h.lockedRelayed > 0)
        // It did not work.
        #expect(r.coverage == 1)
        #expect(r.fullyCoveredFraction == 1)
        #expect(r.geofenceLeaks == 0)
        #expect(r.packsIdentical == r.packsChecked)
        // Relayed locked ops were refused on receipt by honest outsiders (the fence rule on receipt).
        #expect(h.honestOpsRejected["lockedOutsideUs", default: 0] > 0)
        // And the replicas agree with the metric: no honest node outside a locked fence holds its ops.
        let world = result.world, replicas = result.outcomes[0].replicas
        for p in world.packs where p.locked {
            let ids = p.ops.map { world.ops[Int($0)].op.id }
            let pack = world.ops[Int(p.genesis)].pack
            for n in 0..<world.nodeCount where world.isHonest(n) && world.isLeak(node: n, pack: pack) {
                #expect(!ids.contains { replicas[n].contains($0) })
            }
        }
    }
}
