import Testing
import SkwadGossip
import SkwadReplica
@testable import SkwadSim

/// `split_packs` (the report of Skwad's engine): fenced packs whose members' links fall into
/// more than one part. Checked on a world's real packs with links made up for the test.
@Suite struct SplitPacksTests {
    @Test func aMemberNoLinkReachesSplitsEveryFencedPackItBelongsTo() throws {
        let world = World.build(try scenario(), seed: 20)
        var replicas = Array(repeating: Replica(config: world.replicaConfig), count: world.nodeCount)
        for p in world.packs {
            let genesis = world.ops[Int(p.genesis)]
            for m in p.members { _ = replicas[Int(m)].admit(genesis.op, nowMs: world.scenario.epochMs &+ genesis.createdMs) }
        }
        let up = Array(repeating: true, count: world.nodeCount)
        // Each member links to the first member of each of its packs: every pack is one piece.
        var links = (0..<world.nodeCount).map { n in
            world.memberships[n].compactMap { world.packs[Int($0.pack)].members.first.map { SkwadGossipNode.address(Int($0)) } }
        }
        #expect(splitPacks(world: world, replicas: replicas, up: up) { links[$0] } == 0)

        // A member that is no pack's first, with its links cut: alone in each fenced pack it is in.
        let firsts = Set(world.packs.compactMap(\.members.first))
        let loner = try #require(
            world.packs.lazy.filter { $0.fence != nil }.flatMap(\.members).first { !firsts.contains($0) }.map(Int.init))
        links[loner] = []
        let expected = world.packs.filter { $0.fence != nil && $0.members.contains(Int32(loner)) }.count
        #expect(expected >= 1)
        #expect(splitPacks(world: world, replicas: replicas, up: up) { links[$0] } == expected)
        // Down, it no longer counts as a member.
        var down = up
        down[loner] = false
        #expect(splitPacks(world: world, replicas: replicas, up: down) { links[$0] } == 0)
    }
}
