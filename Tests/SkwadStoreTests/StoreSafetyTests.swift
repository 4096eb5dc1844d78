import SkwadTestTraits
import Foundation
import GRDB
import Testing
import SkwadModel
import SkwadReplica
@testable import SkwadStore
import SkwadTestKit

func tempStorePath() -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-store-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir.appendingPathComponent("skwad.sqlite").path
}

func removeStore(_ path: String) { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }

@Suite(.heavy) struct StoreSafetyTests {
    @Test func fileStoreRunsInWALMode() throws {
        let path = tempStorePath()
        defer { removeStore(path) }
        #expect(try Store(path: path).journalMode() == "wal")
    }

    @Test func theLogRecordsKindsAndReloadReturnsEachOpOnce() throws {
        var f = OpFactory(seed: 21)
        let a = f.user()
        let g = f.createPack(by: a)
        let p = f.post(by: a, in: g)
        let v = f.vote(by: a, in: g, on: p, value: 1)
        let store = try Store()
        try store.append([g, p])
        try store.append([p, v])  // a caller's mistake: the log keeps the row...
        #expect(try store.opCount() == 4)
        #expect(try store.opCountsByKind() == ["create_pack": 1, "post": 2, "vote": 1])
        #expect(try store.loadOps().ops.map(\.id) == [g.id, p.id, v.id])  // ...reload does not repeat it
    }

    @Test func opsAndLocalChangesCommitTogether() throws {
        var f = OpFactory(seed: 22)
        let g = f.createPack(by: f.user())
        let store = try Store()
        try store.append([g], with: [.joined(g.id, true, atMs: 7), .stamp(g.id, 99), .setting("location", "1,2")])
        #expect(try store.joinedPacks() == [g.id: 7] && store.stamps() == [g.id: 99] && store.setting("location") == "1,2")
        // Joining again keeps the first join time; leaving removes it; a nil setting deletes it.
        try store.apply([.joined(g.id, true, atMs: 9), .setting("location", nil)])
        #expect(try store.joinedPacks() == [g.id: 7] && store.setting("location") == nil)
        try store.apply([.joined(g.id, false, atMs: 10)])
        #expect(try store.joinedPacks().isEmpty)
    }

    /// A full disk (simulated with SQLite's page limit) fails the transaction with a
    /// one-line reason; what was committed before stays, and the store works again once
    /// there is room.
    @Test func fullDiskIsAOneLineErrorAndKeepsCommittedData() throws {
        var f = OpFactory(seed: 23)
        let a = f.user()
        let g = f.createPack(by: a)
        let first = (0..<20).map { f.post(by: a, in: g, title: "early \($0)") }
        let path = tempStorePath()
        defer { removeStore(path) }
        do {
            let store = try Store(path: path)
            try store.append([g] + first)
            let pages = try store.db.read { try Int.fetchOne($0, sql: "PRAGMA page_count") ?? 0 }
            try store.db.writeWithoutTransaction { try $0.execute(sql: "PRAGMA max_page_count = \(pages)") }
            let big = (0..<400).map { f.post(by: a, in: g, title: "late \($0)", body: String(repeating: "x", count: 500)) }
            #expect { try store.append(big, with: [.setting("k", "v")]) } throws: { e in
                let s = "\(e)"
                return s.hasPrefix("cannot save 400 op(s): disk full") && !s.contains("\n")
            }
            #expect(try store.opCount() == 21)
            #expect(try store.setting("k") == nil)  // the local change rolled back with the ops
            try store.db.writeWithoutTransaction { try $0.execute(sql: "PRAGMA max_page_count = 1073741823") }
            try store.append(Array(big.prefix(3)))
            #expect(try store.opCount() == 24)
        }
        let reopened = try Store(path: path)
        #expect(try reopened.loadOps().ops.count == 24)
    }

    /// A store written by the first schema opens with the current one: kinds filled in,
    /// duplicate rows dropped, only the pack index left.
    @Test func migratesAFirstVersionStore() throws {
        var f = OpFactory(seed: 24)
        let a = f.user()
        let g = f.createPack(by: a)
        let p = f.post(by: a, in: g)
        let path = tempStorePath()
        defer { removeStore(path) }
        do {
            let pool = try DatabasePool(path: path)
            try Schema.migrator.migrate(pool, upTo: "v1")
            try pool.write { db in
                for op in [g, p, p] {
                    try db.execute(
                        sql: "INSERT INTO op (id, pack, hlc, envelope) VALUES (?, ?, ?, ?)",
                        arguments: [Data(op.id.bytes), Data(op.packID.bytes), Int64(bitPattern: op.hlc.raw), Data(op.envelope.serialized())]
                    )
                }
            }
        }
        let store = try Store(path: path)
        #expect(try store.opCountsByKind() == ["create_pack": 1, "post": 1])
        let indexes = try store.db.read {
            try String.fetchAll($0, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'op'")
        }
        #expect(indexes == ["op_pack"])
    }
}
