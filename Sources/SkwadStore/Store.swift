import Foundation
import GRDB

/// The node's SQLite file (GRDB, WAL). It holds the append-only op log, tombstones of
/// purged packs and local-only state (settings, joined packs, pseudonym stamps). The
/// replica is rebuilt from it at start without re-verifying signatures (DESIGN §7).
///
/// Every method is one transaction: when it returns, its writes are committed (WAL,
/// `synchronous = NORMAL`: a process crash loses nothing committed; a power cut may lose
/// the last transactions but never corrupts the file). A failure throws `StoreError`,
/// rolls back that transaction and leaves everything committed before in place.
public final class Store: Sendable {
    let db: any DatabaseWriter

    /// Opens (creating if needed) the store at `path`, in WAL mode (`DatabasePool`).
    public init(path: String) throws {
        do {
            var config = Configuration()
            config.prepareDatabase { db in
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
            }
            db = try DatabasePool(path: path, configuration: config)
            try Schema.migrator.migrate(db)
        } catch { throw StoreError("cannot open store \(path)", error) }
    }

    /// A private in-memory store, for tests and the REPL fuzzer (`NodeConfig.store = .memory`,
    /// a fresh node per input): a copy (SQLite backup) of one empty database migrated once
    /// per process, so opening one costs a page copy rather than the migrations.
    public init() throws {
        do {
            let queue = try DatabaseQueue()
            try Store.migratedEmpty.get().backup(to: queue)
            db = queue
        } catch { throw StoreError("cannot open in-memory store", error) }
    }

    private static let migratedEmpty = Result<DatabaseQueue, any Error> {
        let queue = try DatabaseQueue()
        try Schema.migrator.migrate(queue)
        return queue
    }

    /// The SQLite journal mode in use ("wal" for a file store).
    public func journalMode() throws -> String {
        do { return try db.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") ?? "" } }
        catch { throw StoreError("cannot read the journal mode", error) }
    }
}
