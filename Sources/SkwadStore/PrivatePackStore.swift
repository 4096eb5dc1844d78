import Foundation
import GRDB
import SkwadCrypto
import SkwadModel

/// Keys of invite-only packs (PROTOCOL.md §3b): local only, never replicated; they survive
/// restarts so a member reads its packs after one, and go with the pack's other rows when it
/// is purged (`bury`). At most `Limits.maxPackEpoch` + 1 keys per
/// pack; the node bounds the packs (`Node.privatePackCapacity`).
extension Store {
    static func registerPrivatePackTables(_ m: inout DatabaseMigrator) {
        m.registerMigration("i26: private packs") { db in
            try db.execute(
                sql: """
                    CREATE TABLE packKey (pack BLOB NOT NULL, epoch INTEGER NOT NULL, key BLOB NOT NULL,
                      PRIMARY KEY (pack, epoch)) WITHOUT ROWID;
                    CREATE TABLE removedMember (pack BLOB NOT NULL, author BLOB NOT NULL,
                      PRIMARY KEY (pack, author)) WITHOUT ROWID;
                    """)
        }
    }

    /// Every pack key held, by pack and epoch.
    public func packKeys() throws -> [PackID: [UInt32: [UInt8]]] {
        do {
            return try db.read { db in
                var out: [PackID: [UInt32: [UInt8]]] = [:]
                for row in try Row.fetchAll(db, sql: "SELECT pack, epoch, key FROM packKey") {
                    let pack: Data = row[0], epoch: Int64 = row[1], key: Data = row[2]
                    guard let id = try? OpID(bytes: [UInt8](pack)), let e = UInt32(exactly: epoch),
                        key.count == Limits.packKeyBytes
                    else { continue }
                    out[id, default: [:]][e] = [UInt8](key)
                }
                return out
            }
        } catch { throw StoreError("cannot read pack keys", error) }
    }

    /// Pseudonyms removed from a pack by this node (its Alpha).
    public func removedMembers(_ pack: PackID) throws -> Set<PublicKey> {
        do {
            return try db.read { db in
                var out: Set<PublicKey> = []
                for row in try Row.fetchAll(db, sql: "SELECT author FROM removedMember WHERE pack = ?", arguments: [Data(pack.bytes)]) {
                    let a: Data = row[0]
                    if let k = try? PublicKey(bytes: [UInt8](a)) { out.insert(k) }
                }
                return out
            }
        } catch { throw StoreError("cannot read removed members", error) }
    }
}
