import Foundation
import GRDB
import SkwadCrypto
import SkwadModel

/// The user's own moderation, local only (never replicated): blocked pseudonyms, muted
/// packs, dismissed reports (schema v5).
public struct LocalModeration: Sendable, Equatable {
    public var blocked: [PublicKey: UInt64] = [:]
    public var muted: [PackID: UInt64] = [:]
    public var dismissed: [OpID: UInt64] = [:]
    /// At most this many rows in each table: a block, mute or dismissal beyond it is refused.
    public static let capacity = 10_000
    public init() {}
}

extension Store {
    public enum LocalModerationTable: String, Sendable { case blockedAuthor, mutedPack, dismissedReport }

    static func column(_ t: LocalModerationTable) -> String {
        switch t {
        case .blockedAuthor: "author";
        case .mutedPack: "pack";
        case .dismissedReport: "report"
        }
    }

    /// Adds (`on`) or removes a 32-byte key in one of the local moderation tables. Returns
    /// false when nothing changed (already there, or not there). Refuses to grow a table
    /// past `LocalModeration.capacity`.
    @discardableResult
    public func setLocalModeration(_ table: LocalModerationTable, key: [UInt8], on: Bool, atMs: UInt64) throws -> Bool {
        let col = Self.column(table)
        do {
            return try db.write { db in
                if on {
                    let n = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table.rawValue)") ?? 0
                    guard n < LocalModeration.capacity else { throw StoreError("\(table.rawValue) holds \(n) entries, its limit") }
                    try db.execute(
                        sql: "INSERT OR IGNORE INTO \(table.rawValue) (\(col), atMs) VALUES (?, ?)",
                        arguments: [Data(key), Int64(clamping: atMs)])
                } else {
                    try db.execute(sql: "DELETE FROM \(table.rawValue) WHERE \(col) = ?", arguments: [Data(key)])
                }
                return db.changesCount > 0
            }
        } catch let e as StoreError { throw e } catch { throw StoreError("cannot save \(table.rawValue)", error) }
    }

    /// Everything in the three tables (rows that do not decode are skipped).
    public func localModeration() throws -> LocalModeration {
        do {
            return try db.read { db in
                var out = LocalModeration()
                func rows(_ t: LocalModerationTable) throws -> [([UInt8], UInt64)] {
                    try Row.fetchAll(db, sql: "SELECT \(Self.column(t)), atMs FROM \(t.rawValue)").map { r in
                        let d: Data = r[0], ms: Int64 = r[1]
                        return ([UInt8](d), UInt64(max(0, ms)))
                    }
                }
                for (k, ms) in try rows(.blockedAuthor) { if let key = try? PublicKey(bytes: k) { out.blocked[key] = ms } }
                for (k, ms) in try rows(.mutedPack) { if let id = try? OpID(bytes: k) { out.muted[id] = ms } }
                for (k, ms) in try rows(.dismissedReport) { if let id = try? OpID(bytes: k) { out.dismissed[id] = ms } }
                return out
            }
        } catch { throw StoreError("cannot read local moderation", error) }
    }

    /// Deletes ops (reports evicted by the replica's report rule, PROTOCOL.md §4 rule 8a).
    /// Each delete goes through the pack index (`op_pack`), so it reads that pack's rows
    /// only, not the whole log (op ids have no index, Schema v3).
    public func deleteOps(_ ops: [(pack: PackID, id: OpID)]) throws {
        guard !ops.isEmpty else { return }
        do {
            try db.write { db in
                for op in ops {
                    try db.execute(sql: "DELETE FROM op WHERE pack = ? AND id = ?", arguments: [Data(op.pack.bytes), Data(op.id.bytes)])
                }
            }
        } catch { throw StoreError("cannot delete \(ops.count) op(s)", error) }
    }
}

extension StoreError {
    init(_ description: String) { self.description = description }
}
