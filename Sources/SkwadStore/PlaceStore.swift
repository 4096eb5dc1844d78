import Foundation
import GRDB
import SkwadModel

extension Schema {
    /// Issue 27's tables, after every other migration.
    static func registerPlaceMigrations(_ m: inout DatabaseMigrator) {
        m.registerMigration("i27: places") { db in
            // Search over places (FTS5, bm25): one row per `Place` op (a new place or a record
            // for one), `place` naming the place. Filled from the log like `opText`
            // (PlaceSearch.catchUp); the node's views decide what is shown.
            // `swipe`: what this user did with a place in swipe mode (local only, never
            // replicated): 1 favourite, 0 passed; `seq` orders undo.
            try db.execute(
                sql: """
                    CREATE VIRTUAL TABLE placeText USING fts5(
                      address, city, zip, landlord, id UNINDEXED, pack UNINDEXED, place UNINDEXED,
                      tokenize = 'unicode61 remove_diacritics 2');
                    CREATE TABLE swipe (
                      place BLOB PRIMARY KEY,
                      fav INTEGER NOT NULL,
                      seq INTEGER NOT NULL,
                      atMs INTEGER NOT NULL) WITHOUT ROWID;
                    CREATE INDEX swipeSeq ON swipe (seq);
                    """)
        }
    }
}

/// The place search index (table `placeText`): follows the op log by position as `SearchIndex`
/// does for posts (setting `places.indexedSeq`).
enum PlaceSearch {
    static let insertSQL = """
        INSERT INTO placeText (rowid, address, city, zip, landlord, id, pack, place)
        SELECT ?, ?, ?, ?, ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM placeText WHERE rowid = ?)
        """

    @discardableResult
    static func catchUp(in db: Database, limit: Int) throws -> Int {
        let from = Int64(try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = 'places.indexedSeq'") ?? "0") ?? 0
        let rows = try Row.fetchAll(
            db, sql: "SELECT seq, kind, envelope FROM op WHERE seq > ? ORDER BY seq LIMIT ?",
            arguments: [from, limit])
        guard let last = rows.last else { return 0 }
        for row in rows {
            let kind: String = row[1]
            guard kind == "place" else { continue }
            let data: Data = row[2]
            guard let env = try? Envelope(serialized: [UInt8](data)), let op = try? SignedOp(trusted: env),
                case .place(let p) = op.body.kind
            else { continue }
            let rowid = SearchIndex.docid(op.id)
            try db.cachedStatement(sql: insertSQL).execute(arguments: [
                rowid, p.address, p.city, p.zip, p.landlord, Data(op.id.bytes), Data(op.packID.bytes),
                Data((p.target ?? op.id).bytes), rowid
            ])
        }
        let seq: Int64 = last[0]
        try db.execute(sql: "INSERT OR REPLACE INTO setting (key, value) VALUES ('places.indexedSeq', ?)", arguments: [String(seq)])
        return rows.count
    }

    static func forget(pack: PackID, in db: Database) throws {
        try db.execute(sql: "DELETE FROM placeText WHERE pack = ?", arguments: [Data(pack.bytes)])
    }
}

/// One swipe decision (local only).
public struct SwipeMark: Sendable, Equatable {
    public let place: OpID
    public let favourite: Bool
    public let atMs: UInt64
    public init(place: OpID, favourite: Bool, atMs: UInt64) { self.place = place; self.favourite = favourite; self.atMs = atMs }
}

extension Store {
    /// Places (by place id) whose address, city, zip or landlord in any of their records
    /// matches every word of `text` as a prefix, best first, at most `limit`.
    public func searchPlaces(_ text: String, limit: Int = 500) throws -> [OpID] {
        guard let q = SearchIndex.query(text) else { return [] }
        do {
            try db.write { db in while try PlaceSearch.catchUp(in: db, limit: 10_000) == 10_000 {} }
            return try db.read { db in
                let rows = try Row.fetchCursor(
                    db,
                    sql: """
                        SELECT place, bm25(placeText, 3.0, 2.0, 2.0, 2.0) AS rank FROM placeText
                        WHERE placeText MATCH ? ORDER BY rank LIMIT ?
                        """, arguments: [q, limit * 4])
                var out: [OpID] = [], seen = Set<OpID>()
                while let row = try rows.next(), out.count < limit {
                    let d: Data = row[0]
                    guard let id = try? OpID(bytes: [UInt8](d)), seen.insert(id).inserted else { continue }
                    out.append(id)
                }
                return out
            }
        } catch { throw StoreError("cannot search places", error) }
    }

    /// Records a swipe (replacing an earlier one of the same place).
    public func swipe(_ mark: SwipeMark) throws {
        do {
            try db.write { db in
                let seq = (try Int64.fetchOne(db, sql: "SELECT MAX(seq) FROM swipe") ?? 0) + 1
                try db.execute(
                    sql: "INSERT OR REPLACE INTO swipe (place, fav, seq, atMs) VALUES (?, ?, ?, ?)",
                    arguments: [Data(mark.place.bytes), mark.favourite ? 1 : 0, seq, Int64(clamping: mark.atMs)])
            }
        } catch { throw StoreError("cannot record the swipe", error) }
    }

    /// Takes back the latest swipe; returns it (nil when there is none).
    public func undoSwipe() throws -> SwipeMark? {
        do {
            return try db.write { db in
                let last = "SELECT place, fav, atMs FROM swipe ORDER BY seq DESC LIMIT 1"
                guard let row = try Row.fetchOne(db, sql: last) else { return nil }
                let d: Data = row[0], fav: Int = row[1], at: Int64 = row[2]
                try db.execute(sql: "DELETE FROM swipe WHERE place = ?", arguments: [d])
                guard let id = try? OpID(bytes: [UInt8](d)) else { return nil }
                return SwipeMark(place: id, favourite: fav != 0, atMs: UInt64(max(0, at)))
            }
        } catch { throw StoreError("cannot undo the swipe", error) }
    }

    /// Every swipe, oldest first.
    public func swipes() throws -> [SwipeMark] {
        do {
            return try db.read { db in
                try Row.fetchAll(db, sql: "SELECT place, fav, atMs FROM swipe ORDER BY seq").compactMap { row in
                    let d: Data = row[0], fav: Int = row[1], at: Int64 = row[2]
                    return (try? OpID(bytes: [UInt8](d))).map { SwipeMark(place: $0, favourite: fav != 0, atMs: UInt64(max(0, at))) }
                }
            }
        } catch { throw StoreError("cannot read swipes", error) }
    }
}
