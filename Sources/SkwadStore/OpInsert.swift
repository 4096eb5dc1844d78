import GRDB
import GRDBSQLite
import SkwadModel

/// The store's hot path: inserts op rows with one prepared statement per transaction,
/// binding the op's own bytes (`SQLITE_STATIC`, no `Data` or `DatabaseValue` in between).
/// Measured with `skwad bench ingest` (`commit_share`): about half the cost of binding
/// through GRDB's cached statement, which itself beats record `insert()` (TOOLCHAIN.md).
enum OpInsert {
    static let sql = "INSERT INTO op (id, pack, kind, hlc, envelope) VALUES (?, ?, ?, ?, ?)"

    static func run(_ ops: [SignedOp], in db: Database) throws {
        guard let conn = db.sqliteConnection else { throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "database is closed") }
        var stmt: OpaquePointer?
        var rc = sqlite3_prepare_v2(conn, sql, -1, &stmt, nil)
        guard rc == SQLITE_OK, let stmt else { throw failure(conn, rc) }
        defer { sqlite3_finalize(stmt) }
        for op in ops {
            let envelope = op.envelope.serialized()
            let kind = op.body.kind.name
            rc = op.id.bytes.withUnsafeBytes { id in
                op.packID.bytes.withUnsafeBytes { pack in
                    envelope.withUnsafeBytes { env in
                        kind.withCString { k in
                            sqlite3_bind_blob(stmt, 1, id.baseAddress, Int32(id.count), nil)
                            sqlite3_bind_blob(stmt, 2, pack.baseAddress, Int32(pack.count), nil)
                            sqlite3_bind_text(stmt, 3, k, -1, nil)
                            sqlite3_bind_int64(stmt, 4, Int64(bitPattern: op.hlc.raw))
                            sqlite3_bind_blob(stmt, 5, env.baseAddress, Int32(env.count), nil)
                            let step = sqlite3_step(stmt)
                            sqlite3_reset(stmt)
                            sqlite3_clear_bindings(stmt)
                            return step
                        }
                    }
                }
            }
            guard rc == SQLITE_DONE else { throw failure(conn, rc) }
        }
    }

    static func failure(_ conn: OpaquePointer, _ rc: Int32) -> DatabaseError {
        DatabaseError(resultCode: ResultCode(rawValue: rc), message: String(cString: sqlite3_errmsg(conn)), sql: sql)
    }
}
