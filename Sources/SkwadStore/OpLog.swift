import Foundation
import GRDB
import SkwadModel
import SkwadReplica

extension Store {
    /// Appends ops, and applies local-state changes, in one transaction: when this returns,
    /// all of it is committed. Append each op once: the log does not look ops up (no index
    /// on ids, see Schema v3); the node appends only ops its replica has just admitted.
    public func append(_ ops: [SignedOp], with changes: [LocalChange] = []) throws {
        guard !ops.isEmpty || !changes.isEmpty else { return }
        do {
            try db.write { db in
                if !ops.isEmpty { try OpInsert.run(ops, in: db) }
                for c in changes { try c.apply(db) }
            }
        } catch {
            throw StoreError(ops.isEmpty ? "cannot save local state" : "cannot save \(ops.count) op(s)", error)
        }
    }

    /// Every stored op, in the order stored, decoded without signature checks
    /// (`SignedOp(trusted:)`): they were verified before they were stored. Rows that no
    /// longer decode are skipped and counted in `skipped`; a repeated id is returned once.
    public func loadOps() throws -> (ops: [SignedOp], skipped: Int) {
        do {
            return try db.read { db in
                var ops: [SignedOp] = [], skipped = 0, seen = Set<OpID>()
                let rows = try Row.fetchCursor(db, sql: "SELECT envelope FROM op ORDER BY seq")
                while let row = try rows.next() {
                    let data: Data = row[0]
                    if let env = try? Envelope(serialized: [UInt8](data)), let op = try? SignedOp(trusted: env) {
                        if seen.insert(op.id).inserted { ops.append(op) }
                    } else {
                        skipped += 1
                    }
                }
                return (ops, skipped)
            }
        } catch { throw StoreError("cannot read the op log", error) }
    }

    public func opCount() throws -> Int {
        do { return try db.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM op") ?? 0 } } catch {
            throw StoreError("cannot count ops", error)
        }
    }

    /// Stored ops by kind name ("post", "vote", ...).
    public func opCountsByKind() throws -> [String: Int] {
        do {
            return try db.read { db in
                var out: [String: Int] = [:]
                for row in try Row.fetchAll(db, sql: "SELECT kind, COUNT(*) FROM op GROUP BY kind") { out[row[0]] = row[1] }
                return out
            }
        } catch { throw StoreError("cannot count ops", error) }
    }

    // MARK: tombstones

    /// Records tombstones and deletes the ops of those packs, in one transaction.
    public func bury(_ tombstones: [Tombstone]) throws {
        guard !tombstones.isEmpty else { return }
        do {
            try db.write { db in
                for t in tombstones {
                    try db.execute(
                        sql: "INSERT OR REPLACE INTO tombstone (pack, reason, expiresMs, genesis, deletion) VALUES (?, ?, ?, ?, ?)",
                        arguments: [
                            Data(t.pack.bytes), t.reason.rawValue, t.expiresMs.map { Int64(clamping: $0) },
                            t.proof.map { Data($0.genesis.envelope.serialized()) },
                            t.proof.map { Data($0.deletion.envelope.serialized()) }
                        ])
                    try db.execute(sql: "DELETE FROM op WHERE pack = ?", arguments: [Data(t.pack.bytes)])
                    try db.execute(sql: "DELETE FROM joinedPack WHERE pack = ?", arguments: [Data(t.pack.bytes)])
                    try db.execute(sql: "DELETE FROM stamp WHERE pack = ?", arguments: [Data(t.pack.bytes)])
                    try db.execute(sql: "DELETE FROM packKey WHERE pack = ?", arguments: [Data(t.pack.bytes)])
                    try db.execute(sql: "DELETE FROM removedMember WHERE pack = ?", arguments: [Data(t.pack.bytes)])
                    try SearchIndex.forget(pack: t.pack, in: db)
                    try PlaceSearch.forget(pack: t.pack, in: db)
                    try Store.forgetPictures(pack: t.pack, in: db)
                }
            }
        } catch { throw StoreError("cannot record tombstones", error) }
    }

    public func loadTombstones() throws -> [Tombstone] {
        do {
            return try db.read { db in
                try Row.fetchAll(db, sql: "SELECT pack, reason, expiresMs, genesis, deletion FROM tombstone").compactMap { row in
                    let pack: Data = row[0], reason: String = row[1], expires: Int64? = row[2]
                    guard let id = try? OpID(bytes: [UInt8](pack)), let r = Tombstone.Reason(rawValue: reason) else { return nil }
                    // A proof that no longer opens is dropped: the tombstone still blocks the pack.
                    var proof: DeletionProof?
                    if let g: Data = row[3], let d: Data = row[4],
                        let genesis = try? SignedOp.open(Envelope(serialized: [UInt8](g))),
                        let deletion = try? SignedOp.open(Envelope(serialized: [UInt8](d))),
                        genesis.id == id, deletion.body.packID == id
                    {
                        proof = DeletionProof(genesis: genesis, deletion: deletion)
                    }
                    return Tombstone(pack: id, reason: r, expiresMs: expires.map { UInt64(max(0, $0)) }, proof: proof)
                }
            }
        } catch { throw StoreError("cannot read tombstones", error) }
    }

    /// Forgets tombstones that no longer block anything (PROTOCOL.md §6).
    public func dropTombstones(_ packs: [PackID]) throws {
        guard !packs.isEmpty else { return }
        do {
            try db.write { db in
                for p in packs { try db.execute(sql: "DELETE FROM tombstone WHERE pack = ?", arguments: [Data(p.bytes)]) }
            }
        } catch { throw StoreError("cannot drop tombstones", error) }
    }
}
