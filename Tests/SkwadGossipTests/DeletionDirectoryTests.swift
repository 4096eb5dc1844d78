import Testing
import SkwadCrypto
import SkwadModel
import SkwadReplica
@testable import SkwadGossip
import SkwadTestKit

/// Issue 24, finding 1: a pack's deletion travels in the directory (PROTOCOL §11a), so every
/// node that knows the genesis learns it — members or not, before or after the deleting node
/// purged the pack — and a late joiner never lists the pack.
@Suite struct DeletionDirectoryTests {
    static let cell = Geohash.encode(try! GeoPoint(lat: 40.4433, lon: -79.9436), precision: 7)

    static func plant(_ ops: [SignedOp], in h: inout Harness, at i: Int) {
        for op in ops { _ = h.nodes[i].replica.admit(op, nowMs: h.nowMs) }
    }

    @Test func aDeletionReachesNodesThatNeverJoinedAndLateJoinersNeverListThePack() throws {
        var f = OpFactory(seed: 2401, floors: false)
        let alpha = f.user(), carol = f.user()
        let doomed = f.createPack(by: alpha, name: "doomed")
        let kept = f.createPack(by: alpha, name: "kept")
        let deletion = f.op(.delete(Delete(target: doomed.id)), by: alpha, in: doomed)
        // Carol (node 2) posted in the pack before she could learn of its deletion.
        let late = f.post(by: carol, in: doomed, title: "still here?")
        var h = Harness(count: 4, cells: [Self.cell, Self.cell, Self.cell, Self.cell])
        h.nowMs = f.nowMs
        for i in 0..<3 { Self.plant([doomed, kept], in: &h, at: i) }
        // Only the Alpha's node has the deletion (as if its push reached no one), and it has
        // purged the pack already: what remains is its tombstone.
        Self.plant([deletion], in: &h, at: 0)
        Self.plant([late], in: &h, at: 2)
        let stones = h.nodes[0].replica.purge(nowMs: h.nowMs)
        #expect(stones.map(\.pack) == [doomed.id])
        #expect(stones.first?.proof?.deletion.id == deletion.id)
        for i in 0..<3 { h.apply(i, h.nodes[i].engine.start(seeds: i == 0 ? [] : [Harness.address(0)], nowMs: h.nowMs)) }
        h.run(ms: 8000)
        for i in 0..<3 {
            let live = h.nodes[i].replica.isLive(doomed.id, nowMs: h.nowMs)
            #expect(!live, "node \(i) still lists the deleted pack")
            #expect(h.nodes[i].replica.isLive(kept.id, nowMs: h.nowMs))
        }
        // Carol's post is held nowhere else: the deletion came first everywhere.
        for i in [0, 1] { #expect(!h.nodes[i].replica.contains(late.id)) }
        // A fresh node joins after everyone purged: it learns of the deletion, never a live pack.
        for i in 0..<3 { _ = h.nodes[i].replica.purge(nowMs: h.nowMs) }
        h.apply(3, h.nodes[3].engine.start(seeds: [Harness.address(1)], nowMs: h.nowMs))
        h.run(ms: 8000)
        let fresh = h.nodes[3].replica
        #expect(fresh.isLive(kept.id, nowMs: h.nowMs))
        let freshLists = fresh.isLive(doomed.id, nowMs: h.nowMs)
        #expect(!freshLists)
        #expect(!fresh.packs(nowMs: h.nowMs).contains { $0.id == doomed.id })
        // No op is admitted into the pack there either.
        var r = fresh
        let after = f.post(by: carol, in: doomed, title: "after")
        #expect(!r.admit(after, nowMs: h.nowMs).isAdmitted)
        // Every node's directory settled on the same items (nothing left to pull).
        let items = (0..<4).map { i in
            h.nodes[i].replica.directoryItems(nowMs: h.nowMs, capacity: 1024) { _ in true }.map(\.id)
        }
        for i in 1..<4 { #expect(items[i] == items[0], "node \(i)'s directory differs") }
        #expect(items[0].contains(deletion.id))
    }
}
