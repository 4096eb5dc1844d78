import Foundation
import GRDB
import SkwadModel

/// Something about a pack the user is in that the op log cannot say after the fact (its
/// ops are dropped when it is purged): it expires soon, it expired, it was deleted. Kept in
/// `inboxNotice` (Schema v6) until `inbox` shows it.
public struct InboxNotice: Sendable, Equatable {
    /// `removed`: the Alpha of an invite-only pack removed you (its key handout said so).
    public enum Kind: String, Sendable { case expiring, expired, deleted, removed }
    public let kind: Kind
    public let pack: PackID
    /// The pack's name when the notice was made (shown through SafeText).
    public let name: String
    /// When it expires (expiring) or when the notice was made.
    public let atMs: UInt64
    public init(kind: Kind, pack: PackID, name: String, atMs: UInt64) {
        self.kind = kind; self.pack = pack; self.name = name; self.atMs = atMs
    }

    /// One notice per pack and kind ("expired" and "deleted" share one: a pack goes once).
    var key: String {
        switch kind {
        case .expiring: "expiring:" + pack.hex
        case .removed: "removed:" + pack.hex
        case .expired, .deleted: "gone:" + pack.hex
        }
    }
}

extension Store {
    /// Notices kept at most (unshown and shown); beyond it new ones are dropped.
    public static let maxInboxNotices = 1_000

    /// The inbox mark: the log position (`op.seq`) up to which the user has looked.
    public func inboxMark() throws -> Int64 {
        Int64(try setting("inbox.seen") ?? "0") ?? 0
    }

    /// The newest log position.
    public func lastSeq() throws -> Int64 {
        do { return try db.read { try Int64.fetchOne($0, sql: "SELECT MAX(seq) FROM op") ?? 0 } } catch {
            throw StoreError("cannot read the op log", error)
        }
    }

    /// Ops appended after `seq` (trusted decode, as at load), oldest first: at most `limit`,
    /// the newest ones; `skipped` counts the older rows left out.
    public func ops(after seq: Int64, limit: Int) throws -> (ops: [SignedOp], skipped: Int) {
        do {
            return try db.read { db in
                let total = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM op WHERE seq > ?", arguments: [seq]) ?? 0
                let rows = try Row.fetchAll(
                    db, sql: "SELECT envelope FROM op WHERE seq > ? ORDER BY seq DESC LIMIT ?",
                    arguments: [seq, limit])
                let ops = rows.reversed().compactMap { row -> SignedOp? in
                    let data: Data = row[0]
                    return (try? Envelope(serialized: [UInt8](data))).flatMap { try? SignedOp(trusted: $0) }
                }
                return (ops, max(0, total - rows.count))
            }
        } catch { throw StoreError("cannot read the op log", error) }
    }

    /// Records notices not recorded before (by pack and kind).
    public func addNotices(_ notices: [InboxNotice]) throws {
        guard !notices.isEmpty else { return }
        do {
            try db.write { db in
                var count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM inboxNotice") ?? 0
                for n in notices where count < Self.maxInboxNotices {
                    try db.execute(
                        sql: "INSERT OR IGNORE INTO inboxNotice (key, kind, pack, name, atMs) VALUES (?, ?, ?, ?, ?)",
                        arguments: [n.key, n.kind.rawValue, Data(n.pack.bytes), n.name, Int64(clamping: n.atMs)])
                    count += db.changesCount
                }
            }
        } catch { throw StoreError("cannot save inbox notices", error) }
    }

    /// Notices not shown yet, oldest first.
    public func unshownNotices() throws -> [InboxNotice] {
        do {
            return try db.read { db in
                try Row.fetchAll(db, sql: "SELECT kind, pack, name, atMs FROM inboxNotice WHERE shown = 0 ORDER BY atMs, key").compactMap {
                    row in
                    let kind: String = row[0], pack: Data = row[1], name: String = row[2], at: Int64 = row[3]
                    guard let k = InboxNotice.Kind(rawValue: kind), let id = try? OpID(bytes: [UInt8](pack)) else { return nil }
                    return InboxNotice(kind: k, pack: id, name: name, atMs: UInt64(max(0, at)))
                }
            }
        } catch { throw StoreError("cannot read inbox notices", error) }
    }

    /// The user looked: moves the mark to `seq`, marks every notice shown and forgets shown
    /// notices older than `forgetBeforeMs`, in one transaction.
    public func markInboxSeen(seq: Int64, forgetBeforeMs: UInt64) throws {
        do {
            try db.write { db in
                try db.execute(sql: "INSERT OR REPLACE INTO setting (key, value) VALUES ('inbox.seen', ?)", arguments: [String(seq)])
                try db.execute(sql: "UPDATE inboxNotice SET shown = 1 WHERE shown = 0")
                try db.execute(sql: "DELETE FROM inboxNotice WHERE shown = 1 AND atMs < ?", arguments: [Int64(clamping: forgetBeforeMs)])
            }
        } catch { throw StoreError("cannot save the inbox mark", error) }
    }
}
