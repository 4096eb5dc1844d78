import Foundation
import GRDB
import SkwadModel
import SkwadReplica

/// A storage failure, with a one-line reason. Committed data is never lost by one: SQLite
/// rolls the failed transaction back and everything committed before stays.
public struct StoreError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ what: String, _ error: Error) {
        if let e = error as? DatabaseError {
            switch e.resultCode {
            case .SQLITE_FULL: description = "\(what): disk full"
            case .SQLITE_READONLY: description = "\(what): database is read-only"
            case .SQLITE_CORRUPT, .SQLITE_NOTADB: description = "\(what): database file is corrupt or not a Skwad store"
            default: description = "\(what): \(e.message ?? "\(e.resultCode)")"
            }
        } else {
            description = "\(what): \(error)"
        }
    }
}

/// The node's SQLite file (GRDB, WAL). It holds the append-only op log, tombstones of
/// purged packs and local-only state (settings, joined packs, pseudonym stamps). The
/// replica is rebuilt from it at start without re-verifying signatures (DESIGN §7).
public final class Store: Sendable {
    private let db: any DatabaseWriter

    /// Opens (creating if needed) the store at `path`, in WAL mode.
    public init(path: String) throws {
        do {
            var config = Configuration()
            config.prepareDatabase { db in
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
            }
            db = try DatabasePool(path: path, configuration: config)
            try Self.migrator.migrate(db)
        } catch { throw StoreError("cannot open store \(path)", error) }
    }

    /// A private in-memory store, for tests and simulations of the shell.
    public init() throws {
        do {
            db = try DatabaseQueue()
            try Self.migrator.migrate(db)
        } catch { throw StoreError("cannot open in-memory store", error) }
    }

    static var migrator: DatabaseMigrator {
        var m = DatabaseMigrator()
        m.registerMigration("v1") { db in
            // Lean on purpose: ingest speed is bounded by inserts into this table. The replica
            // (in memory) dedupes and indexes; the log is only read back whole at start.
            try db.execute(sql: """
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
        return m
    }

    // MARK: op log

    /// Appends ops in one transaction. When this returns, they are committed.
    public func append(_ ops: [SignedOp]) throws {
        guard !ops.isEmpty else { return }
        do {
            try db.write { db in
                let st = try db.cachedStatement(sql: "INSERT INTO op (id, pack, hlc, envelope) VALUES (?, ?, ?, ?)")
                for op in ops {
                    try st.execute(arguments: [Data(op.id.bytes), Data(op.packID.bytes),
                                               Int64(bitPattern: op.hlc.raw), Data(op.envelope.serialized())])
                }
            }
        } catch { throw StoreError("cannot save \(ops.count) op(s)", error) }
    }

    /// Every stored op, in the order stored, decoded without signature checks.
    /// Rows that no longer decode are skipped and counted in `skipped`.
    public func loadOps() throws -> (ops: [SignedOp], skipped: Int) {
        do {
            return try db.read { db in
                var ops: [SignedOp] = [], skipped = 0
                let rows = try Row.fetchCursor(db, sql: "SELECT envelope FROM op ORDER BY seq")
                while let row = try rows.next() {
                    let data: Data = row[0]
                    if let env = try? Envelope(serialized: [UInt8](data)), let op = try? SignedOp(trusted: env) { ops.append(op) }
                    else { skipped += 1 }
                }
                return (ops, skipped)
            }
        } catch { throw StoreError("cannot read the op log", error) }
    }

    public func opCount() throws -> Int {
        do { return try db.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM op") ?? 0 } }
        catch { throw StoreError("cannot count ops", error) }
    }

    // MARK: tombstones

    /// Records tombstones and deletes the ops of those packs, in one transaction.
    public func bury(_ tombstones: [Tombstone]) throws {
        guard !tombstones.isEmpty else { return }
        do {
            try db.write { db in
                for t in tombstones {
                    try db.execute(sql: "INSERT OR REPLACE INTO tombstone (pack, reason) VALUES (?, ?)",
                                   arguments: [Data(t.pack.bytes), t.reason.rawValue])
                    try db.execute(sql: "DELETE FROM op WHERE pack = ?", arguments: [Data(t.pack.bytes)])
                }
            }
        } catch { throw StoreError("cannot record tombstones", error) }
    }

    public func loadTombstones() throws -> [Tombstone] {
        do {
            return try db.read { db in
                try Row.fetchAll(db, sql: "SELECT pack, reason FROM tombstone").compactMap { row in
                    let pack: Data = row[0], reason: String = row[1]
                    guard let id = try? OpID(bytes: [UInt8](pack)), let r = Tombstone.Reason(rawValue: reason) else { return nil }
                    return Tombstone(pack: id, reason: r)
                }
            }
        } catch { throw StoreError("cannot read tombstones", error) }
    }

    // MARK: local state

    public func setting(_ key: String) throws -> String? {
        do { return try db.read { try String.fetchOne($0, sql: "SELECT value FROM setting WHERE key = ?", arguments: [key]) } }
        catch { throw StoreError("cannot read setting \(key)", error) }
    }

    public func setSetting(_ key: String, _ value: String?) throws {
        do {
            try db.write { db in
                if let value {
                    try db.execute(sql: "INSERT OR REPLACE INTO setting (key, value) VALUES (?, ?)", arguments: [key, value])
                } else {
                    try db.execute(sql: "DELETE FROM setting WHERE key = ?", arguments: [key])
                }
            }
        } catch { throw StoreError("cannot save setting \(key)", error) }
    }

    public func joinedPacks() throws -> [PackID: UInt64] {
        do {
            return try db.read { db in
                var out: [PackID: UInt64] = [:]
                for row in try Row.fetchAll(db, sql: "SELECT pack, joinedMs FROM joinedPack") {
                    let pack: Data = row[0], ms: Int64 = row[1]
                    if let id = try? OpID(bytes: [UInt8](pack)) { out[id] = UInt64(max(0, ms)) }
                }
                return out
            }
        } catch { throw StoreError("cannot read joined packs", error) }
    }

    public func setJoined(_ pack: PackID, _ joined: Bool, nowMs: UInt64) throws {
        do {
            try db.write { db in
                if joined {
                    try db.execute(sql: "INSERT OR IGNORE INTO joinedPack (pack, joinedMs) VALUES (?, ?)",
                                   arguments: [Data(pack.bytes), Int64(nowMs)])
                } else {
                    try db.execute(sql: "DELETE FROM joinedPack WHERE pack = ?", arguments: [Data(pack.bytes)])
                }
            }
        } catch { throw StoreError("cannot save membership of pack \(pack.short())", error) }
    }

    public func stamps() throws -> [PackID: UInt64] {
        do {
            return try db.read { db in
                var out: [PackID: UInt64] = [:]
                for row in try Row.fetchAll(db, sql: "SELECT pack, stamp FROM stamp") {
                    let pack: Data = row[0], s: Int64 = row[1]
                    if let id = try? OpID(bytes: [UInt8](pack)) { out[id] = UInt64(bitPattern: s) }
                }
                return out
            }
        } catch { throw StoreError("cannot read stamps", error) }
    }

    public func saveStamp(_ stamp: UInt64, for pack: PackID) throws {
        do {
            try db.write { db in
                try db.execute(sql: "INSERT OR REPLACE INTO stamp (pack, stamp) VALUES (?, ?)",
                               arguments: [Data(pack.bytes), Int64(bitPattern: stamp)])
            }
        } catch { throw StoreError("cannot save stamp", error) }
    }
}
