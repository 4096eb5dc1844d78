import Foundation
import GRDB
import Synchronization

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
    /// The conversation tables as last read (`conversationState()`), dropped by each write to
    /// them: every batch of admitted ops asks for it, and a read of up to 10,000 sent letters
    /// per batch cost more than the rest of the batch's commit.
    /// A write counts up `generation`, so a read that raced one is not kept.
    let conversationCache = Mutex<(generation: UInt64, state: ConversationState?)>((0, nil))

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
        spareOnDeinit = nil
    }

    /// An in-memory store's connection, handed on to the next `Store()` when this one goes;
    /// nil for a file store.
    private let spareOnDeinit: DatabaseQueue?

    /// A private in-memory store, for tests and the REPL fuzzer (`NodeConfig.store = .memory`,
    /// a fresh node per input): a copy (SQLite backup) of one empty database migrated once
    /// per process, so opening one costs a page copy rather than the migrations. The copy goes
    /// into the connection of an in-memory store already gone when there is one: the backup
    /// overwrites every page, resets SQLite's schema and clears GRDB's schema cache, so the
    /// store starts as empty as on a new connection, and GRDB's connection set-up is skipped.
    public init() throws {
        do {
            let queue: DatabaseQueue
            if let spare = Store.spareQueues.withLock({ $0.popLast() }) { queue = spare } else { queue = try DatabaseQueue() }
            // The template is never written after its migration: the copy reads it without
            // the read transaction `backup(to:)` wraps around it (four statements per copy).
            let template = try Store.migratedEmpty.get()
            try queue.writeWithoutTransaction { copy in try template.unsafeRead { try $0.backup(to: copy) } }
            db = queue
            spareOnDeinit = queue
        } catch { throw StoreError("cannot open in-memory store", error) }
    }

    deinit {
        if let queue = spareOnDeinit { Store.spareQueues.withLock { if $0.count < 4 { $0.append(queue) } } }
    }

    /// Connections of in-memory stores that are gone (at most 4), for `init()`.
    private static let spareQueues = Mutex<[DatabaseQueue]>([])

    private static let migratedEmpty = Result<DatabaseQueue, any Error> {
        let queue = try DatabaseQueue()
        try Schema.migrator.migrate(queue)
        return queue
    }

    /// The SQLite journal mode in use ("wal" for a file store).
    public func journalMode() throws -> String {
        do { return try db.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") ?? "" } } catch {
            throw StoreError("cannot read the journal mode", error)
        }
    }
}
