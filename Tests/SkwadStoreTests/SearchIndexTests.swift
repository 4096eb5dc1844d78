import SkwadTestTraits
import Foundation
import Testing
import SkwadModel
import SkwadReplica
@testable import SkwadStore
import SkwadTestKit

/// The FTS5 index (Schema v6) following the op log, and the inbox's local state.
@Suite(.heavy) struct SearchIndexTests {
    @Test func postsAndCommentsAreFoundByAnyWordRankedAndPrefixMatched() throws {
        var f = OpFactory(seed: 21)
        let a = f.user(), b = f.user()
        let g = f.createPack(by: a, name: "quad")
        let pizza = f.post(by: a, in: g, title: "Free pizza", body: "Gates 4th floor")
        let other = f.post(by: b, in: g, title: "Lost keys", body: "near the library")
        let reply = f.comment(by: b, in: g, on: other, text: "found them at the pizzeria")
        let store = try Store()
        try store.append([g, pizza, other, reply, f.vote(by: b, in: g, on: pizza, value: 1)])
        #expect(try store.searchIndexCount() == 0)  // not on the ingest path: the index follows the log
        try store.indexForSearch()
        #expect(try store.searchIndexCount() == 3)  // posts and comments only
        let hits = try store.search("pizz")
        #expect(Set(hits.map(\.id)) == [pizza.id, reply.id])
        #expect(hits.first { $0.id == reply.id }?.post == other.id)
        // Title words weigh more than body words: the post titled "pizza" ranks first.
        #expect(hits.first?.id == pizza.id)
        #expect(try store.search("library keys").map(\.id) == [other.id])
        // Appended after the index caught up: found, since every search catches up first.
        let late = f.comment(by: a, in: g, on: pizza, text: "library hours changed")
        try store.append([late])
        #expect(try store.search("hours").map(\.id) == [late.id])
        #expect(try store.search("keys", packs: [pizza.id]).isEmpty)
        #expect(try store.search("GATES").map(\.id) == [pizza.id])
    }

    @Test func whatUsersTypeNeverReachesTheQuerySyntax() throws {
        let store = try Store()
        for q in [
            #"""#, "AND", "a OR", "NEAR(x y)", "*", "title:x", "^x", "-x", "(", "x\"y", "'; DROP TABLE op; --",
            String(repeating: "word ", count: 500)
        ] {
            #expect(throws: Never.self) { _ = try store.search(q) }
        }
        #expect(SearchIndex.query("  !!  ") == nil)
        #expect(SearchIndex.query(#"fo"o b-ar"#) == #""fo"* "o"* "b"* "ar"*"#)
    }

    @Test func aDeleteByTheAuthorRemovesItsRowAndNobodyElsesDeleteDoes() throws {
        var f = OpFactory(seed: 22)
        let a = f.user(), b = f.user()
        let g = f.createPack(by: a, name: "quad")
        let p = f.post(by: a, in: g, title: "secret plan", body: "x")
        let store = try Store()
        try store.append([g, p])
        try store.append([f.op(.delete(Delete(target: p.id)), by: b, in: g)])  // not the author: no effect
        #expect(try store.search("secret").count == 1)
        try store.append([f.op(.delete(Delete(target: p.id)), by: a, in: g)])
        #expect(try store.search("secret").isEmpty)
    }

    @Test func buryingAPackDropsItsRows() throws {
        var f = OpFactory(seed: 23)
        let a = f.user()
        let g1 = f.createPack(by: a, name: "one"), g2 = f.createPack(by: a, name: "two")
        let store = try Store()
        try store.append([g1, g2, f.post(by: a, in: g1, title: "alpha words"), f.post(by: a, in: g2, title: "alpha other")])
        #expect(try store.search("alpha").count == 2)
        try store.bury([Tombstone(pack: g1.id, reason: .expired)])
        #expect(try store.search("alpha").map(\.pack) == [g2.id])
    }

    @Test func theIndexIsRebuiltFromTheLogWhenAnOlderStoreIsOpened() throws {
        var f = OpFactory(seed: 24)
        let a = f.user()
        let g = f.createPack(by: a, name: "quad")
        let p = f.post(by: a, in: g, title: "older store", body: "before search existed")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-fts-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/skwad.sqlite"
        do {
            // A store as v4 left it: the ops in the log, no search table yet.
            let store = try Store(path: path)
            try store.append([g, p])
            try store.db.writeWithoutTransaction { db in
                try db.execute(sql: "DROP TABLE opText; DROP TABLE inboxNotice")
                try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier LIKE 'v6%'")
            }
        }
        let reopened = try Store(path: path)
        #expect(try reopened.search("existed").map(\.id) == [p.id])
    }

    @Test func inboxStateKeepsTheMarkAndEachNoticeOnce() throws {
        var f = OpFactory(seed: 25)
        let a = f.user()
        let g = f.createPack(by: a, name: "quad")
        let store = try Store()
        try store.append([g, f.post(by: a, in: g)])
        #expect(try store.inboxMark() == 0)
        let (ops, skipped) = try store.ops(after: 0, limit: 1)
        #expect(ops.count == 1 && skipped == 1)
        let n = InboxNotice(kind: .expiring, pack: g.id, name: "quad", atMs: 10)
        try store.addNotices([n, n, InboxNotice(kind: .expired, pack: g.id, name: "quad", atMs: 20)])
        #expect(try store.unshownNotices().map(\.kind) == [.expiring, .expired])
        try store.markInboxSeen(seq: try store.lastSeq(), forgetBeforeMs: 0)
        #expect(try store.unshownNotices().isEmpty)
        try store.addNotices([n])  // already recorded (and shown): not again
        #expect(try store.unshownNotices().isEmpty)
        #expect(try store.inboxMark() == 2)
        #expect(try store.ops(after: store.inboxMark(), limit: 10).ops.isEmpty)
    }
}
