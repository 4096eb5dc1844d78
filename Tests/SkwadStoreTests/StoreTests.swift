import SkwadTestTraits
import Foundation
import Testing
import SkwadModel
import SkwadReplica
@testable import SkwadStore
import GRDB
import SkwadTestKit

@Suite(.heavy) struct StoreTests {
    func tempPath() -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-store-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.appendingPathComponent("skwad.sqlite").path
    }

    @Test func reopeningRestoresIdenticalViews() throws {
        var f = OpFactory(seed: 9)
        let a = f.user(), b = f.user()
        let g = f.createPack(by: a, name: "quad")
        let p = f.post(by: b, in: g)
        let ops = [g, p, f.comment(by: a, in: g, on: p), f.vote(by: a, in: g, on: p, value: 1)]
        let path = tempPath()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        var live = Replica()
        do {
            let store = try Store(path: path)
            for op in ops { _ = live.admit(op, nowMs: f.nowMs) }
            try store.append(ops)
            try store.setSetting("location", "1,2")
            try store.setJoined(g.id, true, nowMs: 5)
            try store.saveStamp(77, for: g.id)
        }
        let reopened = try Store(path: path)
        let loaded = try reopened.loadOps()
        #expect(loaded.skipped == 0 && loaded.ops.count == 4)
        var back = Replica()
        back.restore(loaded.ops.reversed(), tombstones: try reopened.loadTombstones())
        #expect(back.feed(nowMs: f.nowMs) == live.feed(nowMs: f.nowMs))
        #expect(back.thread(p.id, nowMs: f.nowMs) == live.thread(p.id, nowMs: f.nowMs))
        #expect(try reopened.setting("location") == "1,2")
        #expect(try reopened.joinedPacks() == [g.id: 5])
        #expect(try reopened.stamps() == [g.id: 77])
    }

    @Test func buryingAPackDeletesItsOpsAndKeepsTheTombstone() throws {
        var f = OpFactory(seed: 10)
        let a = f.user()
        let g = f.createPack(by: a), h = f.createPack(by: a)
        let store = try Store()
        try store.append([g, h, f.post(by: a, in: g), f.post(by: a, in: h)])
        try store.bury([Tombstone(pack: g.id, reason: .expired)])
        #expect(try store.opCount() == 2)
        #expect(try store.loadTombstones() == [Tombstone(pack: g.id, reason: .expired)])
        #expect(try store.loadOps().ops.allSatisfy { $0.packID == h.id })
    }

    @Test func aDeletedPacksTombstoneKeepsItsProofAcrossARestart() throws {
        var f = OpFactory(seed: 12, floors: false)
        let a = f.user()
        let g = f.createPack(by: a)
        let d = f.op(.delete(Delete(target: g.id)), by: a, in: g)
        var r = Replica(config: .noFloors)
        _ = r.admit(g, nowMs: f.nowMs)
        _ = r.admit(d, nowMs: f.nowMs)
        let stones = r.purge(nowMs: f.nowMs)
        let store = try Store()
        try store.append([g, d])
        try store.bury(stones)
        #expect(try store.opCount() == 0)
        let back = try store.loadTombstones()
        #expect(back.count == 1 && back.first?.proof?.genesis.id == g.id && back.first?.proof?.deletion.id == d.id)
    }

    /// An in-memory store goes into the connection of one already gone (the REPL fuzzer opens
    /// one per input): whatever the old store held, the new one starts empty, the same op
    /// appends and is found again, and the identical sequence gives identical results.
    @Test func aReusedInMemoryConnectionStartsEmpty() throws {
        var f = OpFactory(seed: 11)
        let a = f.user()
        let g = f.createPack(by: a, name: "quad")
        let p = f.post(by: a, in: g, title: "Free pizza", body: "Gates 4th floor")
        var reused = 0
        var previous: DatabaseQueue?
        for _ in 0..<8 {
            let store = try Store()
            if let previous, store.db as? DatabaseQueue === previous { reused += 1 }
            #expect(try store.opCount() == 0 && store.loadTombstones().isEmpty && store.searchIndexCount() == 0)
            #expect(try store.setting("location") == nil && store.joinedPacks().isEmpty && store.stamps().isEmpty)
            #expect(try store.lastSeq() == 0)
            try store.append([g, p], with: [.joined(g.id, true, atMs: 5), .stamp(g.id, 77), .setting("location", "1,2")])
            try store.indexForSearch()
            #expect(try store.search("pizza").map(\.id) == [p.id])
            #expect(try store.lastSeq() == 2 && store.opCount() == 2)
            try store.bury([Tombstone(pack: g.id, reason: .deleted)])
            previous = store.db as? DatabaseQueue
        }
        // Other tests open and drop in-memory stores too; most of these 7 reopenings still
        // take the connection just dropped.
        #expect(reused > 0)
    }

    @Test func corruptFileIsAClearError() throws {
        let path = tempPath()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        try Data(repeating: 0x42, count: 4096).write(to: URL(fileURLWithPath: path))
        #expect { try Store(path: path) } throws: { e in
            "\(e)".contains("cannot open store") && !"\(e)".contains("\n")
        }
    }
}
