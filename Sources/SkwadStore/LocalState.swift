import Foundation
import GRDB
import SkwadCrypto
import SkwadModel

/// A change to local-only state (never replicated). Several can be committed in the same
/// transaction as an op (`Store.append(_:with:)`), so that e.g. a new pack, its creator's
/// membership and stamp are stored together or not at all.
public enum LocalChange: Sendable, Equatable {
    /// A setting (e.g. "location"); nil removes it.
    case setting(String, String?)
    /// Membership of a pack; `atMs` is kept from the first join.
    case joined(PackID, Bool, atMs: UInt64)
    /// This node's proof-of-work stamp for its pseudonym in a pack (minted once).
    case stamp(PackID, UInt64)
    /// A key of an invite-only pack, by epoch (PrivatePackStore.swift).
    case packKey(PackID, epoch: UInt32, key: [UInt8])
    /// A pseudonym the Alpha removed from its invite-only pack (left out of later keys).
    case removedMember(PackID, PublicKey)
    /// Every key held of an invite-only pack goes (this node was removed from it, or its
    /// join code was out of date).
    case forgetPackKeys(PackID)

    func apply(_ db: Database) throws {
        switch self {
        case .setting(let key, let value?):
            try db.execute(sql: "INSERT OR REPLACE INTO setting (key, value) VALUES (?, ?)", arguments: [key, value])
        case .setting(let key, nil):
            try db.execute(sql: "DELETE FROM setting WHERE key = ?", arguments: [key])
        case .joined(let pack, true, let ms):
            try db.execute(
                sql: "INSERT OR IGNORE INTO joinedPack (pack, joinedMs) VALUES (?, ?)",
                arguments: [Data(pack.bytes), Int64(clamping: ms)])
        case .joined(let pack, false, _):
            try db.execute(sql: "DELETE FROM joinedPack WHERE pack = ?", arguments: [Data(pack.bytes)])
        case .stamp(let pack, let stamp):
            try db.execute(
                sql: "INSERT OR REPLACE INTO stamp (pack, stamp) VALUES (?, ?)",
                arguments: [Data(pack.bytes), Int64(bitPattern: stamp)])
        case .packKey(let pack, let epoch, let key):
            try db.execute(
                sql: "INSERT OR REPLACE INTO packKey (pack, epoch, key) VALUES (?, ?, ?)",
                arguments: [Data(pack.bytes), Int64(epoch), Data(key)])
        case .removedMember(let pack, let author):
            try db.execute(
                sql: "INSERT OR IGNORE INTO removedMember (pack, author) VALUES (?, ?)",
                arguments: [Data(pack.bytes), Data(author.bytes)])
        case .forgetPackKeys(let pack):
            try db.execute(sql: "DELETE FROM packKey WHERE pack = ?", arguments: [Data(pack.bytes)])
        }
    }
}

extension Store {
    /// Applies local changes in one transaction.
    public func apply(_ changes: [LocalChange]) throws { try append([], with: changes) }

    public func setting(_ key: String) throws -> String? {
        do { return try db.read { try String.fetchOne($0, sql: "SELECT value FROM setting WHERE key = ?", arguments: [key]) } } catch {
            throw StoreError("cannot read setting \(key)", error)
        }
    }

    public func setSetting(_ key: String, _ value: String?) throws { try apply([.setting(key, value)]) }

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

    public func setJoined(_ pack: PackID, _ joined: Bool, nowMs: UInt64) throws { try apply([.joined(pack, joined, atMs: nowMs)]) }

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

    public func saveStamp(_ stamp: UInt64, for pack: PackID) throws { try apply([.stamp(pack, stamp)]) }
}
