import Foundation
import GRDB
import SkwadModel

extension Schema {
    /// Issue 28's tables, after every other migration.
    static func registerPictureMigrations(_ m: inout DatabaseMigrator) {
        m.registerMigration("i28: pictures") { db in
            // A picture by the root of its manifest (PROTOCOL §10b), one row per pack that has a
            // post carrying it (deleted with that pack): its ref, the blocks held and their bytes
            // (the same in every row of a root), when it was last used (LRU eviction of pictures
            // none of whose packs this node is a member of). `pictureBlock`: each block checked
            // against the manifest before it is stored, kept while a row of its root is.
            try db.execute(
                sql: """
                    CREATE TABLE picture (
                      root BLOB NOT NULL,
                      pack BLOB NOT NULL,
                      type INTEGER NOT NULL,
                      size INTEGER NOT NULL,
                      chunks INTEGER NOT NULL,
                      held INTEGER NOT NULL DEFAULT 0,
                      bytes INTEGER NOT NULL DEFAULT 0,
                      usedMs INTEGER NOT NULL,
                      PRIMARY KEY (root, pack)) WITHOUT ROWID;
                    CREATE INDEX picturePack ON picture (pack);
                    CREATE TABLE pictureBlock (
                      root BLOB NOT NULL,
                      idx INTEGER NOT NULL,
                      data BLOB NOT NULL,
                      PRIMARY KEY (root, idx)) WITHOUT ROWID;
                    """)
        }
    }
}

/// A picture the store holds (some or all of its blocks).
public struct StoredPicture: Sendable, Equatable {
    public let ref: PictureRef
    public let pack: PackID
    public let held: Int
    public let bytes: Int
    public var isComplete: Bool { held == ref.blockCount }
}

extension Store {
    /// Records a picture of `pack` (nothing when known; a picture known in another pack shares
    /// its blocks) and stores `blocks` (checked by the caller against the manifest).
    public func putPicture(
        _ ref: PictureRef, pack: PackID, blocks: [(index: Int, data: [UInt8])], nowMs: UInt64
    ) throws {
        do {
            try db.write { db in
                // A root already held in another pack starts with its blocks.
                let held = try Row.fetchOne(db, sql: "SELECT held, bytes FROM picture WHERE root = ? LIMIT 1", arguments: [Data(ref.root)])
                try db.execute(
                    sql:
                        "INSERT OR IGNORE INTO picture (root, pack, type, size, chunks, held, bytes, usedMs) "
                        + "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    arguments: [
                        Data(ref.root), Data(pack.bytes), Int64(ref.type), Int64(ref.size), Int64(ref.chunks),
                        held?["held"] as Int? ?? 0, held?["bytes"] as Int? ?? 0, Int64(clamping: nowMs)
                    ])
                for b in blocks { try Self.insertBlock(root: ref.root, index: b.index, data: b.data, in: db) }
            }
        } catch { throw StoreError("cannot store picture", error) }
    }

    /// Stores checked blocks of known pictures in one transaction (nothing for a block held
    /// already or of a picture the store does not know).
    public func putPictureBlocks(_ blocks: [(root: [UInt8], index: Int, data: [UInt8])]) throws {
        do { try db.write { db in for b in blocks { try Self.insertBlock(root: b.root, index: b.index, data: b.data, in: db) } } } catch {
            throw StoreError("cannot store picture blocks", error)
        }
    }

    static func insertBlock(root: [UInt8], index: Int, data: [UInt8], in db: Database) throws {
        guard try Bool.fetchOne(db, sql: "SELECT 1 FROM picture WHERE root = ?", arguments: [Data(root)]) == true else { return }
        try db.execute(
            sql: "INSERT OR IGNORE INTO pictureBlock (root, idx, data) VALUES (?, ?, ?)", arguments: [Data(root), index, Data(data)])
        guard db.changesCount > 0 else { return }
        try db.execute(
            sql: "UPDATE picture SET held = held + 1, bytes = bytes + ? WHERE root = ?", arguments: [data.count, Data(root)])
    }

    /// The pictures some of whose blocks are missing, with the packs they are kept for (a
    /// fetch cut short by a restart: `Node.resumePictures`).
    public func incompletePictures() throws -> [(root: [UInt8], pack: PackID)] {
        do {
            return try db.read { db in
                // Blocks in all: the head, a page per 32 chunks, the chunks (PROTOCOL §10b).
                let sql = "SELECT root, pack FROM picture WHERE held < 1 + (chunks + 31) / 32 + chunks ORDER BY usedMs DESC, root, pack"
                return try Row.fetchAll(db, sql: sql).compactMap { row in
                    guard let pack = try? PackID(bytes: [UInt8](row["pack"] as Data)) else { return nil }
                    return ([UInt8](row["root"] as Data), pack)
                }
            }
        } catch { throw StoreError("cannot read pictures", error) }
    }

    /// The picture with this root, if the store knows it (in one of its packs).
    public func picture(root: [UInt8]) throws -> StoredPicture? {
        do {
            return try db.read { db in
                try Row.fetchOne(
                    db, sql: "SELECT pack, type, size, chunks, held, bytes FROM picture WHERE root = ? ORDER BY pack LIMIT 1",
                    arguments: [Data(root)]
                ).flatMap { row in
                    guard let pack = try? PackID(bytes: [UInt8](row["pack"] as Data)) else { return nil }
                    let ref = PictureRef(
                        root: root, size: UInt32(clamping: row["size"] as Int64), type: UInt32(clamping: row["type"] as Int64),
                        chunks: UInt32(clamping: row["chunks"] as Int64))
                    return StoredPicture(ref: ref, pack: pack, held: row["held"], bytes: row["bytes"])
                }
            }
        } catch { throw StoreError("cannot read picture", error) }
    }

    /// Blocks of a picture: those of `indexes` held (nil: all), and marks it used at `nowMs`
    /// unless `touch` is false (answering a peer: a read, not a use of this node's).
    public func pictureBlocks(root: [UInt8], indexes: [Int]? = nil, nowMs: UInt64, touch: Bool = true) throws -> [Int: [UInt8]] {
        do {
            if !touch { return try db.read { db in try Self.blocks(root: root, indexes: indexes, in: db) } }
            return try db.write { db in
                try db.execute(sql: "UPDATE picture SET usedMs = ? WHERE root = ?", arguments: [Int64(clamping: nowMs), Data(root)])
                return try Self.blocks(root: root, indexes: indexes, in: db)
            }
        } catch { throw StoreError("cannot read picture blocks", error) }
    }

    static func blocks(root: [UInt8], indexes: [Int]?, in db: Database) throws -> [Int: [UInt8]] {
        var out: [Int: [UInt8]] = [:]
        if let indexes {
            for i in indexes {
                if let d = try Data.fetchOne(
                    db, sql: "SELECT data FROM pictureBlock WHERE root = ? AND idx = ?", arguments: [Data(root), i])
                {
                    out[i] = [UInt8](d)
                }
            }
        } else {
            for row in try Row.fetchAll(db, sql: "SELECT idx, data FROM pictureBlock WHERE root = ?", arguments: [Data(root)]) {
                out[row["idx"]] = [UInt8](row["data"] as Data)
            }
        }
        return out
    }

    /// Deletes the pictures of a pack (deleted or expired, §6), and the blocks of those no
    /// other pack holds.
    static func forgetPictures(pack: PackID, in db: Database) throws {
        let roots = try Data.fetchAll(db, sql: "SELECT root FROM picture WHERE pack = ?", arguments: [Data(pack.bytes)])
        try db.execute(sql: "DELETE FROM picture WHERE pack = ?", arguments: [Data(pack.bytes)])
        for root in roots where try Bool.fetchOne(db, sql: "SELECT 1 FROM picture WHERE root = ?", arguments: [root]) != true {
            try db.execute(sql: "DELETE FROM pictureBlock WHERE root = ?", arguments: [root])
        }
    }

    /// Deletes one picture and its blocks.
    public func deletePicture(root: [UInt8]) throws {
        do {
            try db.write { db in
                try db.execute(sql: "DELETE FROM pictureBlock WHERE root = ?", arguments: [Data(root)])
                try db.execute(sql: "DELETE FROM picture WHERE root = ?", arguments: [Data(root)])
            }
        } catch { throw StoreError("cannot delete picture", error) }
    }

    /// Bytes of picture blocks held in all.
    public func pictureBytes() throws -> Int {
        do { return try db.read { db in try Int.fetchOne(db, sql: Self.totalPictureBytesSQL) ?? 0 } } catch {
            throw StoreError("cannot count picture bytes", error)
        }
    }

    /// Bytes of blocks held, each root once.
    static let totalPictureBytesSQL = "SELECT COALESCE(SUM(b), 0) FROM (SELECT MAX(bytes) AS b FROM picture GROUP BY root)"

    /// While the pictures' bytes exceed `capBytes`, deletes the least recently used picture none
    /// of whose packs is in `members` (the pictures of one's own packs are never evicted).
    /// Returns the roots deleted.
    @discardableResult
    public func evictPictures(capBytes: Int, members: Set<PackID>) throws -> [[UInt8]] {
        do {
            return try db.write { db in
                var total = try Int.fetchOne(db, sql: Self.totalPictureBytesSQL) ?? 0
                guard total > capBytes else { return [] }
                var gone: [[UInt8]] = []
                let sql =
                    "SELECT root, GROUP_CONCAT(HEX(pack)) AS packs, MAX(bytes) AS bytes FROM picture "
                    + "GROUP BY root ORDER BY MAX(usedMs), root"
                for row in try Row.fetchAll(db, sql: sql) {
                    guard total > capBytes else { break }
                    let packs = (row["packs"] as String? ?? "").lowercased().split(separator: ",")
                    guard !packs.contains(where: { p in members.contains { $0.hex == p } }) else { continue }
                    let root = row["root"] as Data
                    try db.execute(sql: "DELETE FROM pictureBlock WHERE root = ?", arguments: [root])
                    try db.execute(sql: "DELETE FROM picture WHERE root = ?", arguments: [root])
                    total -= row["bytes"] as Int
                    gone.append([UInt8](root))
                }
                return gone
            }
        } catch { throw StoreError("cannot evict pictures", error) }
    }
}
