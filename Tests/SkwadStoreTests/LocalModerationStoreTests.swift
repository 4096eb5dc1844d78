import SkwadTestTraits
import Foundation
import Testing
import SkwadCrypto
import SkwadModel
@testable import SkwadStore
import SkwadTestKit
import GRDB

/// Issue 11, part A: blocks, mutes and dismissed reports are local state that survives a
/// reopen, toggles idempotently, and is bounded.
@Suite(.heavy) struct LocalModerationStoreTests {
    @Test func blocksMutesAndDismissalsSurviveAReopen() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-localmod-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("skwad.sqlite").path
        let author = SigningKeyPair.generate().publicKey
        let pack = OpID.of(body: [1, 2, 3]), report = OpID.of(body: [4, 5, 6])
        do {
            let s = try Store(path: path)
            #expect(try s.setLocalModeration(.blockedAuthor, key: author.bytes, on: true, atMs: 10))
            #expect(try s.setLocalModeration(.blockedAuthor, key: author.bytes, on: true, atMs: 11) == false)  // already there
            #expect(try s.setLocalModeration(.mutedPack, key: pack.bytes, on: true, atMs: 12))
            #expect(try s.setLocalModeration(.dismissedReport, key: report.bytes, on: true, atMs: 13))
        }
        let s = try Store(path: path)
        let m = try s.localModeration()
        #expect(m.blocked == [author: 10] && m.muted == [pack: 12] && m.dismissed == [report: 13])
        #expect(try s.setLocalModeration(.mutedPack, key: pack.bytes, on: false, atMs: 20))
        #expect(try s.setLocalModeration(.mutedPack, key: pack.bytes, on: false, atMs: 21) == false)
        #expect(try s.localModeration().muted.isEmpty)
        #expect(try s.localModeration().blocked == [author: 10])
    }

    @Test func eachTableIsBounded() throws {
        let s = try Store()
        for i in 0..<LocalModeration.capacity {
            let k = [UInt8](repeating: 0, count: 28) + withUnsafeBytes(of: UInt32(i).bigEndian) { Array($0) }
            try s.setLocalModeration(.dismissedReport, key: k, on: true, atMs: 1)
        }
        #expect(throws: StoreError.self) {
            try s.setLocalModeration(.dismissedReport, key: [UInt8](repeating: 9, count: 32), on: true, atMs: 1)
        }
        #expect(try s.localModeration().dismissed.count == LocalModeration.capacity)
        // The other tables have their own room.
        #expect(try s.setLocalModeration(.mutedPack, key: [UInt8](repeating: 9, count: 32), on: true, atMs: 1))
    }

    @Test func evictedReportsAreDeletedFromTheLog() throws {
        var f = OpFactory(seed: 5)
        let u = f.user()
        let g = f.createPack(by: u)
        let ops = [g, f.post(by: u, in: g), f.post(by: u, in: g)]
        let s = try Store()
        try s.append(ops)
        try s.deleteOps([(g.id, ops[1].id)])
        #expect(try s.loadOps().ops.map(\.id) == [ops[0].id, ops[2].id])
        // The delete goes through the pack index, not a scan of the log.
        let plan = try s.db.read { db in
            try Row.fetchAll(
                db, sql: "EXPLAIN QUERY PLAN DELETE FROM op WHERE pack = ? AND id = ?", arguments: [Data(g.id.bytes), Data(ops[1].id.bytes)]
            )
            .map { $0["detail"] as String? ?? "" }.joined(separator: " ")
        }
        #expect(plan.contains("op_pack"), "\(plan)")
    }
}
