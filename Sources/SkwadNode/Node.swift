import Foundation
import SkwadCrypto
import SkwadModel
import SkwadReplica
import SkwadStore

/// Milliseconds since the Unix epoch from the wall clock. Only the shell reads it.
public func wallClockMs() -> UInt64 { UInt64(Date().timeIntervalSince1970 * 1000) }

/// One Skwad node: the replica (in memory), the store (on disk), the user's identity and
/// local state, behind the API the REPL and tests use. The wall clock is read here and
/// passed into the pure core. A local op is reported done only once its transaction has
/// committed.
public actor Node {
    public let config: NodeConfig
    let store: Store
    let master: MasterSecret
    let admin: SigningKeyPair?
    var replica: Replica
    var clock = HybridClock()
    var joined: [PackID: UInt64]
    var stamps: [PackID: UInt64]
    var keys: [PackID: SigningKeyPair] = [:]
    public private(set) var location: GeoPoint?
    let now: @Sendable () -> UInt64
    public private(set) var stats = NodeStats()
    var idLengthCache: (count: Int, length: Int) = (-1, 8)
    var eventSink: (@Sendable (NodeEvent) -> Void)?
    /// Called with every op this node commits locally (the gossip layer pushes it).
    var localOpSink: (@Sendable (SignedOp) -> Void)?

    public init(config: NodeConfig, now: @escaping @Sendable () -> UInt64 = wallClockMs) throws {
        self.config = config
        self.now = now
        master = try KeyFile.loadOrCreateMaster(dataDir: config.dataDir)
        admin = try config.adminSecretFile.map { try KeyFile.loadAdmin(path: $0) }
        do { store = try Store(path: config.dataDir + "/skwad.sqlite") } catch { throw NodeError("\(error)") }
        var adminKeys = Set(config.adminKeys)
        if let admin { adminKeys.insert(admin.publicKey) }
        replica = Replica(config: ReplicaConfig(adminKeys: adminKeys))
        do {
            let loaded = try store.loadOps()
            replica.restore(loaded.ops, tombstones: try store.loadTombstones())
            stats.storeRowsSkipped = loaded.skipped
            joined = try store.joinedPacks()
            stamps = try store.stamps()
            if let saved = try store.setting("location"), let p = try? GeoPoint(parsing: saved) { location = p }
        } catch { throw NodeError("\(error)") }
        if let loc = config.location { location = loc; try? store.setSetting("location", "\(loc.lat),\(loc.lon)") }
        let latest = replica.allOps.map(\.hlc).max() ?? .zero
        clock.observe(latest, physicalMs: now())
    }

    /// Creates the configured admin packs that do not exist yet (campus nodes).
    public func ensureAdminPacks() throws {
        guard let admin else { return }
        let existing = Set(replica.packs(nowMs: now()).filter { $0.alpha == admin.publicKey }.map(\.name))
        for name in config.adminPacks where !existing.contains(name) {
            _ = try createPack(name: name, radiusMeters: nil, locked: false, tags: ["admin"], color: "", asAdmin: true)
        }
    }

    public func setEventSink(_ sink: (@Sendable (NodeEvent) -> Void)?) { eventSink = sink }
    public func setLocalOpSink(_ sink: (@Sendable (SignedOp) -> Void)?) { localOpSink = sink }

    // MARK: identity and location

    public struct WhoAmI: Sendable {
        public let nodeID: String
        public let location: GeoPoint?
        public let cell: String?
        public let dataDir: String
        public let joinedPacks: Int
        public let ops: Int
        public let adminKey: String?
    }

    public func whoami() -> WhoAmI {
        WhoAmI(nodeID: Hex.encode(Array(Blake2b.hash256(master.subkey("node-id")).prefix(4))), location: location,
               cell: location.map { Geohash.encode($0, precision: config.geohashPrecision) }, dataDir: config.dataDir,
               joinedPacks: joined.count, ops: replica.count, adminKey: admin?.publicKey.hex)
    }

    public func locate(_ p: GeoPoint) throws {
        location = p
        do { try store.setSetting("location", "\(p.lat),\(p.lon)") } catch { throw NodeError("\(error)") }
    }

    // MARK: packs

    public func createPack(name: String, radiusMeters: Double?, locked: Bool, tags: [String], color: String,
                           asAdmin: Bool = false) throws -> PackSummary {
        var fence: Geofence?
        if let r = radiusMeters {
            guard r >= 1, r <= Double(Limits.maxRadiusMeters) else { throw NodeError("radius must be 1...\(Limits.maxRadiusMeters) metres") }
            guard let here = location else { throw NodeError("a geofenced pack is centred on you: set your location first (locate LAT,LON)") }
            fence = Geofence(center: here, radiusMeters: r.rounded())
        }
        if locked && fence == nil { throw NodeError("a locked pack needs a radius (--radius METERS)") }
        let nonce = SecureRandom.bytes(16)
        let key = asAdmin ? admin! : master.pseudonym(genesisNonce: nonce)
        let bits = config.powBits
        let stamp = ProofOfWork.mint(genesisNonce: nonce, author: key.publicKey.bytes, bits: Int(bits))
        let create = CreatePack(name: name, tags: tags, color: color, fence: fence, locked: locked, nonce: nonce, powBits: bits)
        let body = OpBody(packID: nil, author: key.publicKey, hlc: clock.tick(physicalMs: now()), stamp: stamp, kind: .createPack(create))
        let op: SignedOp
        do { op = try SignedOp.sign(body, with: key) } catch { throw NodeError("\(error)") }
        try commit(op)
        keys[op.id] = key
        stamps[op.id] = stamp
        do {
            try store.saveStamp(stamp, for: op.id)
            try store.setJoined(op.id, true, nowMs: now())
        } catch { throw NodeError("\(error)") }
        joined[op.id] = now()
        return replica.summary(replica.pack(op.id)!, from: location)
    }

    public struct PackListing: Sendable {
        public let pack: PackSummary
        public let joined: Bool
    }

    public func packs(sort: PackSort = .new, tag: String? = nil) -> [PackListing] {
        replica.packs(nowMs: now(), from: location, sort: sort, tag: tag).map { PackListing(pack: $0, joined: joined[$0.id] != nil) }
    }

    /// Resolves a pack by exact name (case-insensitive) or id prefix, among live packs.
    public func resolvePack(_ ref: String) throws -> PackSummary {
        let live = replica.packs(nowMs: now(), from: location)
        let named = live.filter { $0.name.lowercased() == ref.lowercased() }
        if named.count == 1 { return named[0] }
        if named.count > 1 {
            throw NodeError("\(named.count) packs are named '\(ref)': use an id (\(named.map { $0.id.short(displayIDLength()) }.joined(separator: ", ")))")
        }
        let hex = ref.lowercased()
        guard !hex.isEmpty, hex.allSatisfy(\.isHexDigit) else { throw NodeError("no pack named '\(ref)' (see: packs)") }
        let byID = live.filter { $0.id.hex.hasPrefix(hex) }
        if byID.count == 1 { return byID[0] }
        if byID.isEmpty { throw NodeError("no pack named or with id '\(ref)' (see: packs)") }
        throw NodeError("'\(ref)' matches \(byID.count) packs: type more of the id")
    }

    public func join(_ ref: String) throws -> PackSummary {
        let p = try resolvePack(ref)
        try setJoined(p.id, true)
        return p
    }

    public func leave(_ ref: String) throws -> PackSummary {
        let p = try resolvePack(ref)
        guard joined[p.id] != nil else { throw NodeError("you are not in pack '\(p.name)'") }
        try setJoined(p.id, false)
        return p
    }

    func setJoined(_ id: PackID, _ on: Bool) throws {
        do { try store.setJoined(id, on, nowMs: now()) } catch { throw NodeError("\(error)") }
        if on { joined[id] = joined[id] ?? now() } else { joined[id] = nil }
    }

    public func isJoined(_ id: PackID) -> Bool { joined[id] != nil }
    public var joinedPackIDs: Set<PackID> { Set(joined.keys) }

    // MARK: posting

    public func post(pack ref: String, title: String, body: String, tags: [String]) throws -> OpID {
        let p = try resolvePack(ref)
        let op = try sign(.post(Post(title: title, body: body, tags: tags)), in: p.id)
        try commit(op)
        if joined[p.id] == nil { try setJoined(p.id, true) }
        return op.id
    }

    /// Comments on a post, or replies to a comment when `ref` names one.
    public func comment(on ref: String, text: String) throws -> OpID {
        let target = try resolveOp(ref)
        let c: Comment
        switch target.body.kind {
        case .post: c = Comment(post: target.id, parent: nil, body: text)
        case .comment(let parent): c = Comment(post: parent.post, parent: target.id, body: text)
        default: throw NodeError("'\(ref)' is not a post or a comment")
        }
        let op = try sign(.comment(c), in: target.packID)
        try commit(op)
        return op.id
    }

    /// +1, -1, or 0 (withdraw) on a post or comment.
    public func vote(on ref: String, value: Int32) throws -> OpID {
        let target = try resolveOp(ref)
        switch target.body.kind {
        case .post, .comment: break
        default: throw NodeError("only posts and comments take votes")
        }
        let op = try sign(.vote(Vote(target: target.id, value: value)), in: target.packID)
        try commit(op)
        return op.id
    }

    /// Deletes your own post or comment, or a pack you are the Alpha of.
    public func delete(_ ref: String) throws -> OpID {
        if let target = try? resolveOp(ref) {
            switch target.body.kind {
            case .post, .comment:
                guard target.author == key(for: target.packID)?.publicKey else { throw NodeError("you can only delete your own posts and comments") }
                let op = try sign(.delete(Delete(target: target.id)), in: target.packID)
                try commit(op)
                return op.id
            default: break
            }
        }
        let p = try resolvePack(ref)
        guard p.alpha == key(for: p.id)?.publicKey else { throw NodeError("only the pack's Alpha can delete pack '\(p.name)'") }
        let op = try sign(.delete(Delete(target: p.id)), in: p.id)
        try commit(op)
        return op.id
    }

    // MARK: reading

    public func feed(pack ref: String?, sort: FeedSort, limit: Int) throws -> [PostView] {
        let filter: Set<PackID>
        if let ref { filter = [try resolvePack(ref).id] } else { filter = Set(joined.keys) }
        return replica.feed(packs: filter, sort: sort, limit: limit, nowMs: now())
    }

    public func show(_ ref: String) throws -> ThreadView {
        let op = try resolveOp(ref)
        let postID: OpID
        switch op.body.kind {
        case .post: postID = op.id
        case .comment(let c): postID = c.post
        default: throw NodeError("'\(ref)' is not a post")
        }
        guard let t = replica.thread(postID, nowMs: now()) else { throw NodeError("post \(postID.short()) was deleted or its pack is gone") }
        return t
    }

    public struct Den: Sendable {
        public let view: DenView
        public let joined: [PackSummary]
    }

    public func den() -> Den {
        let nowMs = now()
        var authors: Set<PublicKey> = []
        for id in replica.packIDs() { if let k = key(for: id) { authors.insert(k.publicKey) } }
        let joinedPacks = replica.packs(nowMs: nowMs, from: location).filter { joined[$0.id] != nil }
        return Den(view: replica.den(authors: authors, nowMs: nowMs), joined: joinedPacks)
    }

    /// Is `key` one of this node's own pseudonyms (or its admin key)?
    public func isMine(_ author: PublicKey, in pack: PackID) -> Bool { key(for: pack)?.publicKey == author }

    // MARK: ids

    /// Finds a post or comment (or any op) by id prefix.
    public func resolveOp(_ ref: String) throws -> SignedOp {
        let hex = ref.lowercased()
        guard hex.count >= 2, hex.allSatisfy(\.isHexDigit) else { throw NodeError("'\(ref)' is not an id (ids are hex, as shown by feed)") }
        var found: SignedOp?
        for op in replica.allOps where op.id.hex.hasPrefix(hex) {
            switch op.body.kind {
            case .post, .comment:
                if found != nil { throw NodeError("'\(ref)' matches several posts or comments: type more of the id") }
                found = op
            default: continue
            }
        }
        guard let found else { throw NodeError("no post or comment with id '\(ref)'") }
        return found
    }

    /// How many hex digits make every id shown unique (at least 6).
    public func displayIDLength() -> Int {
        if idLengthCache.count == replica.count { return idLengthCache.length }
        let ids = replica.allOps.map(\.id).sorted()
        var longest = 0
        for i in ids.indices.dropFirst() {
            let a = ids[i - 1].bytes, b = ids[i].bytes
            var nibbles = 0
            for j in 0..<32 {
                if a[j] == b[j] { nibbles += 2; continue }
                if a[j] >> 4 == b[j] >> 4 { nibbles += 1 }
                break
            }
            longest = max(longest, nibbles)
        }
        let length = max(6, longest + 1)
        idLengthCache = (replica.count, length)
        return length
    }

    // MARK: internals

    func key(for pack: PackID) -> SigningKeyPair? {
        if let k = keys[pack] { return k }
        guard let p = replica.pack(pack) else { return nil }
        let k: SigningKeyPair
        if let admin, p.alpha == admin.publicKey { k = admin } else { k = master.pseudonym(genesisNonce: p.genesis.createNonce) }
        keys[pack] = k
        return k
    }

    func sign(_ kind: OpKind, in packID: PackID) throws -> SignedOp {
        let nowMs = now()
        guard let pack = replica.pack(packID), replica.isLive(packID, nowMs: nowMs) else { throw NodeError("that pack is gone (expired or deleted)") }
        guard let key = key(for: packID) else { throw NodeError("unknown pack") }
        let stamp: UInt64
        if let s = stamps[packID] { stamp = s } else {
            stamp = ProofOfWork.mint(genesisNonce: pack.genesis.createNonce, author: key.publicKey.bytes, bits: Int(pack.create.powBits))
            do { try store.saveStamp(stamp, for: packID) } catch { throw NodeError("\(error)") }
            stamps[packID] = stamp
        }
        var claim: String?
        if pack.locked {
            switch kind {
            case .post, .comment, .vote:
                guard let here = location else { throw NodeError("pack '\(pack.create.name)' is locked to its area: set your location first (locate LAT,LON)") }
                claim = Geohash.encode(here, precision: config.geohashPrecision)
                if let f = pack.fence, !f.contains(geohash: claim!) {
                    throw NodeError("you are outside pack '\(pack.create.name)' (locked to \(Int(f.radiusMeters)) m around its centre)")
                }
            default: break
            }
        }
        let body = OpBody(packID: packID, author: key.publicKey, hlc: clock.tick(physicalMs: nowMs), location: claim, stamp: stamp, kind: kind)
        do { return try SignedOp.sign(body, with: key) } catch { throw NodeError("\(error)") }
    }

    /// Checks, commits to the store, then admits: reported done only once committed.
    func commit(_ op: SignedOp) throws {
        let nowMs = now()
        if let outcome = replica.precheck(op, nowMs: nowMs) { throw NodeError.from(outcome) }
        do { try store.append([op]) } catch {
            stats.storeErrors += 1
            throw NodeError("\(error)")
        }
        _ = replica.admit(op, nowMs: nowMs)
        stats.localOps += 1
        localOpSink?(op)
    }
}

extension SignedOp {
    /// The genesis nonce of a `CreatePack` op (empty for other kinds).
    var createNonce: [UInt8] { if case .createPack(let c) = body.kind { c.nonce } else { [] } }
}

/// Counters a user can read with `stats`.
public struct NodeStats: Sendable, Equatable {
    public var localOps = 0
    public var storeErrors = 0
    public var storeRowsSkipped = 0
    public var admitted = 0
    public var rejected: [String: Int] = [:]
}
