import Foundation
import GRDB
import SkwadModel

/// A post or comment that matched a search, best first (bm25: lower is better).
public struct SearchMatch: Sendable, Equatable {
    public let id: OpID
    public let post: OpID
    public let pack: PackID
    public let rank: Double
}

/// The full-text index (SQLite FTS5, table `opText`, Schema v6) over posts' titles,
/// bodies and tags and comments' bodies. It follows the op log by position: `catchUp`
/// indexes the posts and comments appended since the last time (setting
/// `search.indexedSeq`), and applies their `Delete`s (by the target's own author only), in
/// one transaction; every search catches up first, so a search sees every committed op.
/// `bury` removes a purged pack's rows. Not written by `append`, because ingest is the
/// node's hot path and FTS5 rows cost several times the insert itself (`skwad bench ingest`,
/// docs/BENCHMARKS.md). The index only proposes
/// candidates: the node's views decide what is shown (deleted, hidden, expired content
/// never is, whatever the index holds).
enum SearchIndex {
    /// The FTS rowid of an op: its id's first 8 bytes. Two ids sharing them (a 2^-64 event
    /// per pair, not something an author can aim for without breaking BLAKE2b) keep the
    /// first row; the second is not searchable.
    static func docid(_ id: OpID) -> Int64 {
        var v: UInt64 = 0
        for b in id.bytes.prefix(8) { v = v << 8 | UInt64(b) }
        return Int64(bitPattern: v)
    }

    static let insertSQL = """
        INSERT INTO opText (rowid, title, body, tags, id, pack, post, author)
        SELECT ?, ?, ?, ?, ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM opText WHERE rowid = ?)
        """
    static let deleteSQL = "DELETE FROM opText WHERE rowid = ? AND author = ? AND pack = ?"

    static func index(_ ops: [SignedOp], in db: Database) throws {
        for op in ops {
            let row: (title: String, body: String, tags: String, post: OpID)
            switch op.body.kind {
            case .post(let p): row = (p.title, p.body, p.tags.joined(separator: " "), op.id)
            case .comment(let c): row = ("", c.body, "", c.post)
            case .delete(let d):
                try db.cachedStatement(sql: deleteSQL).execute(arguments: [docid(d.target), Data(op.author.bytes), Data(op.packID.bytes)])
                continue
            default: continue
            }
            let id = docid(op.id)
            try db.cachedStatement(sql: insertSQL).execute(arguments: [
                id, row.title, row.body, row.tags, Data(op.id.bytes), Data(op.packID.bytes), Data(row.post.bytes),
                Data(op.author.bytes), id
            ])
        }
    }

    /// Indexes the log's posts, comments and deletes after the last indexed position, at
    /// most `limit` rows of the log; returns how many rows it read.
    @discardableResult
    static func catchUp(in db: Database, limit: Int) throws -> Int {
        let from = Int64(try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = 'search.indexedSeq'") ?? "0") ?? 0
        let rows = try Row.fetchAll(
            db, sql: "SELECT seq, kind, envelope FROM op WHERE seq > ? ORDER BY seq LIMIT ?",
            arguments: [from, limit])
        guard let last = rows.last else { return 0 }
        var ops: [SignedOp] = []
        for row in rows {
            let kind: String = row[1]
            guard kind == "post" || kind == "comment" || kind == "delete" else { continue }
            let data: Data = row[2]
            if let env = try? Envelope(serialized: [UInt8](data)), let op = try? SignedOp(trusted: env) { ops.append(op) }
        }
        try index(ops, in: db)
        let seq: Int64 = last[0]
        try db.execute(sql: "INSERT OR REPLACE INTO setting (key, value) VALUES ('search.indexedSeq', ?)", arguments: [String(seq)])
        return rows.count
    }

    static func forget(pack: PackID, in db: Database) throws {
        try db.execute(sql: "DELETE FROM opText WHERE pack = ?", arguments: [Data(pack.bytes)])
    }

    /// The FTS5 query for what a user typed: its words (letters and digits; everything
    /// else separates), each quoted and matched as a prefix, all required. Nothing the
    /// user types reaches FTS5's query syntax. nil when there is no word.
    static func query(_ text: String, maxWords: Int = 16) -> String? {
        var words: [String] = []
        var current = ""
        for ch in text.lowercased() {
            if ch.isLetter || ch.isNumber { current.append(ch) } else if !current.isEmpty { words.append(current); current = "" }
        }
        if !current.isEmpty { words.append(current) }
        let kept = words.prefix(maxWords).map { String($0.prefix(64)) }
        guard !kept.isEmpty else { return nil }
        return kept.map { "\"\($0)\"*" }.joined(separator: " ")
    }
}

extension Store {
    /// Posts and comments whose text matches every word of `text` (as a prefix), best
    /// first, at most `limit`; only in `packs` when given.
    public func search(_ text: String, packs: Set<PackID>? = nil, limit: Int = 200) throws -> [SearchMatch] {
        guard let q = SearchIndex.query(text) else { return [] }
        do {
            try db.write { db in while try SearchIndex.catchUp(in: db, limit: 10_000) == 10_000 {} }
            return try db.read { db in
                let rows = try Row.fetchCursor(
                    db,
                    sql: """
                        SELECT id, post, pack, bm25(opText, 3.0, 1.0, 2.0) AS rank FROM opText
                        WHERE opText MATCH ? ORDER BY rank LIMIT ?
                        """, arguments: [q, packs == nil ? limit : limit * 8])
                var out: [SearchMatch] = []
                while let row = try rows.next(), out.count < limit {
                    let id: Data = row[0], post: Data = row[1], pack: Data = row[2], rank: Double = row[3]
                    guard let i = try? OpID(bytes: [UInt8](id)), let p = try? OpID(bytes: [UInt8](post)),
                        let k = try? OpID(bytes: [UInt8](pack))
                    else { continue }
                    if let packs, !packs.contains(k) { continue }
                    out.append(SearchMatch(id: i, post: p, pack: k, rank: rank))
                }
                return out
            }
        } catch { throw StoreError("cannot search", error) }
    }

    /// Brings the search index up to the log, reading at most `limit` rows of the log (the
    /// node calls it once a minute, so that a search seldom has much to catch up).
    public func indexForSearch(limit: Int = 10_000) throws {
        do { try db.write { db in _ = try SearchIndex.catchUp(in: db, limit: limit) } } catch {
            throw StoreError("cannot update the search index", error)
        }
    }

    /// Rows in the search index (for tests and inspection).
    public func searchIndexCount() throws -> Int {
        do { return try db.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM opText") ?? 0 } } catch {
            throw StoreError("cannot count the search index", error)
        }
    }
}
