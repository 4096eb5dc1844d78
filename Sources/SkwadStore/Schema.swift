import Foundation
import GRDB
import SkwadModel

/// The store's schema and its migrations (GRDB `DatabaseMigrator`). Add a migration for
/// every change; never edit one that has shipped.
enum Schema {
    static var migrator: DatabaseMigrator {
        var m = DatabaseMigrator()
        m.registerMigration("v1") { db in
            // Lean on purpose: ingest speed is bounded by inserts into this table. The replica
            // (in memory) dedupes and indexes; the log is read back whole at start.
            try db.execute(
                sql: """
                    CREATE TABLE op (
                      seq INTEGER PRIMARY KEY,
                      id BLOB NOT NULL,
                      pack BLOB NOT NULL,
                      hlc INTEGER NOT NULL,
                      envelope BLOB NOT NULL);
                    CREATE TABLE tombstone (pack BLOB PRIMARY KEY, reason TEXT NOT NULL) WITHOUT ROWID;
                    CREATE TABLE setting (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
                    CREATE TABLE joinedPack (pack BLOB PRIMARY KEY, joinedMs INTEGER NOT NULL) WITHOUT ROWID;
                    CREATE TABLE stamp (pack BLOB PRIMARY KEY, stamp INTEGER NOT NULL) WITHOUT ROWID;
                    """)
        }
        m.registerMigration("v2: op kind, unique op id, pack index") { db in
            // The kind (for stats and inspection with the sqlite3 shell), one row per op id
            // (appends are idempotent), and an index so that burying a pack does not scan.
            try db.execute(sql: "ALTER TABLE op ADD COLUMN kind TEXT NOT NULL DEFAULT ''")
            let rows = try Row.fetchAll(db, sql: "SELECT seq, envelope FROM op")
            for row in rows {
                let seq: Int64 = row[0], data: Data = row[1]
                let kind = (try? Envelope(serialized: [UInt8](data))).flatMap { try? OpBody(serialized: $0.body) }?.kind.name ?? ""
                try db.execute(sql: "UPDATE op SET kind = ? WHERE seq = ?", arguments: [kind, seq])
            }
            try db.execute(
                sql: """
                    DELETE FROM op WHERE seq NOT IN (SELECT MIN(seq) FROM op GROUP BY id);
                    CREATE UNIQUE INDEX op_id ON op(id);
                    CREATE INDEX op_pack ON op(pack);
                    """)
        }
        m.registerMigration("v3: no unique index on op id") { db in
            // Random 32-byte keys make every insert touch a random index page, so the cost
            // grows with the store (`skwad bench ingest`). Uniqueness is kept where it
            // is cheap: an op reaches the log only when the in-memory replica (which holds
            // every stored op) has just admitted it, and reload dedupes by id.
            try db.execute(sql: "DROP INDEX IF EXISTS op_id")
        }
        m.registerMigration("v4: tombstone expiry") { db in
            // When a tombstone stops mattering: its genesis can no longer be admitted then.
            // NULL: kept for good (admin packs, and tombstones recorded before v4).
            try db.execute(sql: "ALTER TABLE tombstone ADD COLUMN expiresMs INTEGER")
        }
        m.registerMigration("v5: local moderation (blocks, mutes, dismissed reports)") { db in
            // Local only, never replicated: pseudonyms this user blocked, packs muted, reports
            // a moderator dismissed. Bounded by `LocalModeration.capacity` rows each.
            try db.execute(
                sql: """
                    CREATE TABLE blockedAuthor (author BLOB PRIMARY KEY, atMs INTEGER NOT NULL) WITHOUT ROWID;
                    CREATE TABLE mutedPack (pack BLOB PRIMARY KEY, atMs INTEGER NOT NULL) WITHOUT ROWID;
                    CREATE TABLE dismissedReport (report BLOB PRIMARY KEY, atMs INTEGER NOT NULL) WITHOUT ROWID;
                    """)
        }
        m.registerMigration("v6: full-text search, inbox") { db in
            // Search over titles, bodies, tags and comments (FTS5, ranked with bm25): one
            // row per post or comment, its rowid derived from the op id (SearchIndex.docid).
            // Filled from the log by `SearchIndex.catchUp` (before every search, and once a
            // minute), not by `append`: indexing costs more than the insert itself, and
            // ingest is the node's hot path. Views still decide what is shown: deleted,
            // hidden and expired content is filtered on the way out.
            try db.execute(
                sql: """
                    CREATE VIRTUAL TABLE opText USING fts5(
                      title, body, tags, id UNINDEXED, pack UNINDEXED, post UNINDEXED, author UNINDEXED,
                      tokenize = 'unicode61 remove_diacritics 2');
                    CREATE TABLE inboxNotice (
                      key TEXT PRIMARY KEY,
                      kind TEXT NOT NULL,
                      pack BLOB NOT NULL,
                      name TEXT NOT NULL,
                      atMs INTEGER NOT NULL,
                      shown INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;
                    DELETE FROM setting WHERE key = 'search.indexedSeq';
                    """)
        }
        m.registerMigration("i24: deletion proofs") { db in
            // A deleted pack's tombstone keeps its genesis and the deletion that counts (envelope
            // bytes as received): its directory entry until the tombstone expires (PROTOCOL §11a).
            try db.execute(sql: "ALTER TABLE tombstone ADD COLUMN genesis BLOB")
            try db.execute(sql: "ALTER TABLE tombstone ADD COLUMN deletion BLOB")
        }
        registerPlaceMigrations(&m)
        Store.registerConversationTables(&m)
        Store.registerPrivatePackTables(&m)
        registerPictureMigrations(&m)
        return m
    }
}
