import Testing
import SkwadCrypto
import SkwadModel
import SkwadReplica
@testable import SkwadGossip
import SkwadTestKit

/// The directory's messages from a peer that does not play by the rules (PROTOCOL §11a).
@Suite struct DirectoryAbuseTests {
    /// Two linked nodes; node 1 is the hostile one and speaks through its real session.
    static func linked(packs: [SignedOp], nowMs: UInt64) -> Harness {
        var config = GossipConfig()
        config.spread.directoryIntervalMs = 3_600_000
        var h = Harness(count: 2, config: config, cells: [DirectoryTests.cell, DirectoryTests.cell])
        h.nowMs = nowMs
        h.start { i in i == 0 ? [] : [0] }
        h.run(ms: 1000)
        DirectoryTests.plant(packs, in: &h, at: 0)
        return h
    }

    static func say(_ m: WireMessage, in h: inout Harness) {
        var out: [GossipDirective] = []
        h.nodes[1].engine.send(m, to: Harness.address(0), nowMs: h.nowMs, into: &out)
        h.nodes[1].engine.finish(nowMs: h.nowMs, into: &out)
        h.apply(1, out)
    }

    /// The initiator of a directory pull that lacks many entries asks for them in Wants that
    /// fit a datagram (64 ids in one Want would not, and were dropped).
    @Test func aPullMissingManyEntriesWantsThemInDatagramSizedPieces() throws {
        var f = OpFactory(seed: 17, floors: false)
        let alpha = f.user()
        let packs = (0..<100).map { f.createPack(by: alpha, name: "q\($0)") }
        var h = Self.linked(packs: packs, nowMs: f.nowMs)
        DirectoryTests.plant(Array(packs.prefix(20)), in: &h, at: 1)
        var out: [GossipDirective] = []
        h.nodes[1].engine.sendDirectory(to: Harness.address(0), nowMs: h.nowMs, replica: h.nodes[1].replica, into: &out)
        h.nodes[1].engine.finish(nowMs: h.nowMs, into: &out)
        h.apply(1, out)
        h.run(ms: 100)
        #expect(h.nodes[1].replica.packIDs().count == 100)
        #expect(h.nodes[1].engine.stats.drops["tooLarge"] == nil)
    }

    @Test func anOversizedFindPackQueryIsDroppedAndCounted() throws {
        var f = OpFactory(seed: 15, floors: false)
        let p = f.createPack(by: f.user(), name: String(repeating: "x", count: 64))
        var h = Self.linked(packs: [p], nowMs: f.nowMs)
        var m = WireMessage(); var q = Skwad_Gossip_V1_FindPack(); q.query = String(repeating: "x", count: 65); m.findPack = q
        let before = h.nodes[0].engine.stats.drops["malformedMessage"] ?? 0
        Self.say(m, in: &h)
        h.run(ms: 200)
        #expect((h.nodes[0].engine.stats.drops["malformedMessage"] ?? 0) == before + 1)
        #expect(!h.nodes[1].replica.contains(p.id))
    }

    /// "Send me your whole directory" (an empty id list over everything) gets at most 64 ops
    /// per request, not hundreds.
    @Test func aDirectoryPullIsAnsweredWithAtMost64OpsPerRequest() throws {
        var f = OpFactory(seed: 16, floors: false)
        let alpha = f.user()
        let packs = (0..<150).map { f.createPack(by: alpha, name: "p\($0)") }
        var h = Self.linked(packs: packs, nowMs: f.nowMs)
        var m = WireMessage(); var r = Skwad_Gossip_V1_Reconcile()
        r.directory = true; r.initiator = true; r.lower = Reconciliation.Bound.zero.wire
        r.asker = NodeInfo(cell: DirectoryTests.cell).wire
        r.ranges = [Reconciliation.RangeMessage(upper: .infinity, mode: .ids([])).wire]
        m.reconcile = r
        Self.say(m, in: &h)
        h.run(ms: 100)
        #expect(h.nodes[1].replica.count == 64)
    }
}
