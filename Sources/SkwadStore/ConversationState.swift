import Foundation
import GRDB
import SkwadCrypto
import SkwadModel

/// A direct message this user sent, kept here only: the box is sealed to its recipient, so
/// the sender cannot read its own op back (PROTOCOL.md §3a). Never replicated.
public struct SentLetter: Sendable, Equatable {
    public let id: OpID
    public let pack: PackID
    public let peer: PublicKey
    public let text: String
    public let atMs: UInt64
    public init(id: OpID, pack: PackID, peer: PublicKey, text: String, atMs: UInt64) {
        self.id = id; self.pack = pack; self.peer = peer; self.text = text; self.atMs = atMs
    }
}

/// Local conversation state (issue 26): sent letters and the pseudonyms this user verified.
public struct ConversationState: Sendable, Equatable {
    public var sent: [SentLetter] = []
    /// (pack, pseudonym) pairs whose safety number the user confirmed.
    public var verified: Set<[UInt8]> = []
    /// (pack, pseudonym) pairs the user follows, with when.
    public var followed: [[UInt8]: UInt64] = [:]
    /// Sent letters kept at most (the oldest go first); verified pseudonyms at most.
    public static let sentCapacity = 10_000
    public static let verifiedCapacity = 10_000
    public static let followedCapacity = 10_000
    public init() {}

    public static func verifiedKey(pack: PackID, peer: PublicKey) -> [UInt8] { pack.bytes + peer.bytes }
}

extension Store {
    static func registerConversationTables(_ m: inout DatabaseMigrator) {
        m.registerMigration("i26: conversations") { db in
            // Local only: the text of direct messages this user sent, and verified pseudonyms.
            try db.execute(
                sql: """
                    CREATE TABLE sentLetter (
                      id BLOB PRIMARY KEY, pack BLOB NOT NULL, peer BLOB NOT NULL, text TEXT NOT NULL, atMs INTEGER NOT NULL) WITHOUT ROWID;
                    CREATE TABLE verifiedPeer (pack BLOB NOT NULL, peer BLOB NOT NULL, atMs INTEGER NOT NULL,
                      PRIMARY KEY (pack, peer)) WITHOUT ROWID;
                    """)
        }
        m.registerMigration("i26: follows") { db in
            // Local only: pseudonyms (of one pack each) the user follows.
            try db.execute(
                sql: """
                    CREATE TABLE followedAuthor (pack BLOB NOT NULL, author BLOB NOT NULL, atMs INTEGER NOT NULL,
                      PRIMARY KEY (pack, author)) WITHOUT ROWID;
                    """)
        }
    }

    /// Follows (or unfollows) a pseudonym of a pack. Returns false when nothing changed.
    /// Refuses beyond `followedCapacity`.
    @discardableResult
    public func setFollowed(pack: PackID, author: PublicKey, on: Bool, atMs: UInt64) throws -> Bool {
        defer { conversationCache.withLock { $0 = ($0.generation &+ 1, nil) } }
        do {
            return try db.write { db in
                if on {
                    let n = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM followedAuthor") ?? 0
                    guard n < ConversationState.followedCapacity else { throw StoreError("followedAuthor holds \(n) entries, its limit") }
                    try db.execute(
                        sql: "INSERT OR IGNORE INTO followedAuthor (pack, author, atMs) VALUES (?, ?, ?)",
                        arguments: [Data(pack.bytes), Data(author.bytes), Int64(clamping: atMs)])
                } else {
                    try db.execute(
                        sql: "DELETE FROM followedAuthor WHERE pack = ? AND author = ?",
                        arguments: [
                            Data(pack.bytes),
                            Data(author.bytes)
                        ])
                }
                return db.changesCount > 0
            }
        } catch let e as StoreError { throw e } catch { throw StoreError("cannot save a follow", error) }
    }

    /// Settings whose key starts with `prefix`.
    public func settings(prefix: String) throws -> [String: String] {
        do {
            return try db.read { db in
                var out: [String: String] = [:]
                for r in try Row.fetchAll(
                    db, sql: "SELECT key, value FROM setting WHERE substr(key, 1, ?) = ?",
                    arguments: [prefix.count, prefix])
                {
                    out[r[0]] = r[1]
                }
                return out
            }
        } catch { throw StoreError("cannot read settings", error) }
    }

    /// Keeps the text of a sent letter; beyond `sentCapacity` the oldest rows go.
    public func addSentLetter(_ s: SentLetter) throws {
        defer { conversationCache.withLock { $0 = ($0.generation &+ 1, nil) } }
        do {
            try db.write { db in
                try db.execute(
                    sql: "INSERT OR IGNORE INTO sentLetter (id, pack, peer, text, atMs) VALUES (?, ?, ?, ?, ?)",
                    arguments: [Data(s.id.bytes), Data(s.pack.bytes), Data(s.peer.bytes), s.text, Int64(clamping: s.atMs)])
                let n = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sentLetter") ?? 0
                if n > ConversationState.sentCapacity {
                    try db.execute(
                        sql: "DELETE FROM sentLetter WHERE id IN (SELECT id FROM sentLetter ORDER BY atMs, id LIMIT ?)",
                        arguments: [n - ConversationState.sentCapacity])
                }
            }
        } catch { throw StoreError("cannot save a sent message", error) }
    }

    /// Marks (or unmarks) a pseudonym of a pack as verified. Refuses beyond `verifiedCapacity`.
    public func setVerified(pack: PackID, peer: PublicKey, on: Bool, atMs: UInt64) throws {
        defer { conversationCache.withLock { $0 = ($0.generation &+ 1, nil) } }
        do {
            try db.write { db in
                if on {
                    let n = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM verifiedPeer") ?? 0
                    guard n < ConversationState.verifiedCapacity else { throw StoreError("verifiedPeer holds \(n) entries, its limit") }
                    try db.execute(
                        sql: "INSERT OR IGNORE INTO verifiedPeer (pack, peer, atMs) VALUES (?, ?, ?)",
                        arguments: [Data(pack.bytes), Data(peer.bytes), Int64(clamping: atMs)])
                } else {
                    try db.execute(
                        sql: "DELETE FROM verifiedPeer WHERE pack = ? AND peer = ?",
                        arguments: [
                            Data(pack.bytes),
                            Data(peer.bytes)
                        ])
                }
            }
        } catch let e as StoreError { throw e } catch { throw StoreError("cannot save a verification", error) }
    }

    /// Sent letters (oldest first) and verified pseudonyms; rows that do not decode are skipped.
    public func conversationState() throws -> ConversationState {
        let (generation, cached) = conversationCache.withLock { $0 }
        if let cached { return cached }
        do {
            let state = try db.read { db in
                var out = ConversationState()
                for r in try Row.fetchAll(db, sql: "SELECT id, pack, peer, text, atMs FROM sentLetter ORDER BY atMs, id") {
                    let id: Data = r[0], pack: Data = r[1], peer: Data = r[2], text: String = r[3], ms: Int64 = r[4]
                    guard let i = try? OpID(bytes: [UInt8](id)), let p = try? OpID(bytes: [UInt8](pack)),
                        let k = try? PublicKey(bytes: [UInt8](peer))
                    else { continue }
                    out.sent.append(SentLetter(id: i, pack: p, peer: k, text: text, atMs: UInt64(max(0, ms))))
                }
                for r in try Row.fetchAll(db, sql: "SELECT pack, author, atMs FROM followedAuthor") {
                    let pack: Data = r[0], author: Data = r[1], ms: Int64 = r[2]
                    guard pack.count == 32, author.count == 32 else { continue }
                    out.followed[[UInt8](pack) + [UInt8](author)] = UInt64(max(0, ms))
                }
                for r in try Row.fetchAll(db, sql: "SELECT pack, peer FROM verifiedPeer") {
                    let pack: Data = r[0], peer: Data = r[1]
                    guard pack.count == 32, peer.count == 32 else { continue }
                    out.verified.insert([UInt8](pack) + [UInt8](peer))
                }
                return out
            }
            conversationCache.withLock { if $0.generation == generation { $0.state = state } }
            return state
        } catch { throw StoreError("cannot read conversations", error) }
    }
}
