import Foundation
import SkwadCrypto
import SkwadModel
import SkwadReplica
import SkwadStore

/// Milliseconds since the Unix epoch from the wall clock. Only the shell reads it.
public func wallClockMs() -> UInt64 { UInt64(max(0, Date().timeIntervalSince1970 * 1000)) }

/// One Skwad node: the replica (in memory), the store (on disk), the user's identity and
/// local state, behind the API the REPL, the gossip shell and tests use. The wall clock is
/// read here and passed into the pure core. A local op is reported done only once its
/// store transaction has committed.
///
/// The node keeps the identity, the store and the replica, the engine's driving
/// (NodeNetwork.swift, NodeLan.swift) and the list of features (NodeFeature.swift). Each
/// feature is a type of its own, in the file that also holds the node's API for it:
/// `Conversations` (NodeConversations.swift), `Follows` (NodeFollows.swift), `Captions`
/// (NodeCaptions.swift), `Profiles` (NodeProfiles.swift), `PrivatePacks` (NodePrivatePacks.swift,
/// its key sync in NodeKeySync.swift), `Places` (NodePlaces.swift, NodeSwipe.swift), `Pictures`
/// (NodePictures.swift), `Blocks` (NodeModeration.swift). The rest of the API by file: identity
/// and lifecycle here; packs in NodePacks.swift; posting in NodePosting.swift; views in
/// NodeReading.swift and NodeSearch.swift; ops from other nodes in NodeRemote.swift; moderation,
/// edits and reports in NodeModeration.swift; contact codes in NodeContacts.swift; trusted
/// admin keys in NodeTrust.swift; `inbox` in NodeInbox.swift.
public actor Node {
    public internal(set) var config: NodeConfig
    /// The data directory's lock and what opening it tightened.
    let dataDir: DataDirectory
    let store: Store
    var replica: Replica
    /// Who the user is here, and where it says it is.
    var identity: Identity
    /// What the user does in packs: membership, stamps, clocks, its own rate.
    var own: OwnPacks
    /// The features (direct messages, follows, profiles, invite-only packs, places, pictures,
    /// …), each with its own state, and the order the shared paths ask them (NodeFeature.swift).
    let features: NodeFeatures
    let now: @Sendable () -> UInt64
    public internal(set) var stats = NodeStats()
    /// Who hears the node's events and the progress of a stamp being minted.
    var listeners = Listeners()
    /// The gossip engine, its socket and the LAN beacon, when the node is online (NodeNetwork.swift).
    var online = Online()
    /// When packs were last purged; how many hex digits show ids apart.
    var upkeep = Upkeep()

    /// How often expired and deleted packs are purged from memory and the store.
    public static let purgeIntervalMs: UInt64 = 60_000

    /// Opens (creating on first start) the data directory: `master.key` and `skwad.sqlite`,
    /// then rebuilds the replica from the store without re-verifying signatures.
    public init(config: NodeConfig, now: @escaping @Sendable () -> UInt64 = wallClockMs) throws {
        self.config = config
        self.now = now
        let features = NodeFeatures()
        self.features = features
        FilePermissions.restrictUmask()
        let lock = try DataDirLock(dataDir: config.dataDir)
        let master = try KeyFile.loadOrCreateMaster(dataDir: config.dataDir)
        let admin = try config.adminSecretFile.map { try KeyFile.loadAdmin(path: $0) }
        do {
            switch config.store {
            case .file: store = try Store(path: config.dataDir + "/skwad.sqlite")
            case .memory: store = try Store()
            }
        } catch { throw NodeError("\(error)") }
        dataDir = DataDirectory(lock: lock, permissionNotice: FilePermissions.secure(dataDir: config.dataDir))
        var adminKeys = Set(config.adminKeys)
        if let admin { adminKeys.insert(admin.publicKey) }
        replica = Replica(
            config: ReplicaConfig(
                adminKeys: adminKeys, maxFutureSkewMs: config.maxClockSkewMs,
                pseudonymPowFloor: config.powFloors.pseudonym, genesisPowFloor: config.powFloors.genesis))
        var location: GeoPoint?
        var joined: [PackID: UInt64] = [:], stamps: [PackID: UInt64] = [:]
        do {
            // A `.memory` store (the REPL fuzzer's per-input node; tests) is always a fresh copy of
            // the empty migrated template (`Store.init()`): there is nothing to load, and the five
            // reads (each a GRDB read transaction compiling its statements on a new connection)
            // are skipped. A `.file` store is always read.
            if config.store != .memory {
                let loaded = try store.loadOps()
                joined = try store.joinedPacks()
                // Keys of invite-only packs first: the restore opens their sealed ops.
                for (pack, ring) in try store.packKeys() { for (epoch, k) in ring { replica.addPackKey(k, epoch: epoch, pack: pack) } }
                replica.restore(loaded.ops, tombstones: try store.loadTombstones(), own: Set(joined.keys))
                stats.storeRowsSkipped = loaded.skipped
                stamps = try store.stamps()
                for op in try Self.loadHeld(store).values { features.privatePacks.keep(op) }
                if let saved = try store.setting("location"), let p = try? GeoPoint(parsing: saved) { location = p }
            }
            if let loc = config.location {
                location = loc
                try store.setSetting("location", "\(loc.lat),\(loc.lon)")
            }
        } catch { throw NodeError("\(error)") }
        identity = Identity(master: master, admin: admin, location: location)
        own = OwnPacks(joined: joined, stamps: stamps, localRate: LocalRateLimit(perMinute: config.gossip.limits.pseudonymOpsPerMinute))
        let startMs = now()
        for op in replica.allOps { own.clocks.observe(op.hlc, in: op.packID, physicalMs: startMs) }
        // Expired and deleted packs are purged by the first command (`purgeIfDue`).
    }

    /// Creates the configured admin packs that do not exist yet (campus nodes).
    public func ensureAdminPacks() throws {
        guard let admin else { return }
        let existing = Set(replica.packs(nowMs: now()).filter { $0.alpha == admin.publicKey }.map(\.name))
        for name in config.adminPacks where !existing.contains(name) {
            _ = try createPack(name: name, radiusMeters: nil, locked: false, tags: ["admin"], color: "", asAdmin: true)
        }
    }

    public func setMintProgress(_ sink: (@Sendable (UInt64) -> Void)?) { listeners.mintProgress = sink }
    public func setEventSink(_ sink: (@Sendable (NodeEvent) -> Void)?) { listeners.events = sink }

    // MARK: identity and location

    public struct WhoAmI: Sendable {
        public let nodeID: String
        public let location: GeoPoint?
        public let cell: String?
        public let dataDir: String
        public let joinedPacks: Int
        public let ops: Int
        public let adminKey: String?
        /// The UDP address gossip listens on (nil: offline).
        public let listen: String?
        /// Addresses others can reach it at: each IPv4 interface's (not loopback) with the
        /// port, when it listens on every interface, else the listen address; then the
        /// reflexive addresses its links confirm (a NAT router's public address and port).
        public let reachable: [String]
        /// Whether the LAN beacon runs.
        public let lanBeacon: Bool
    }

    public func whoami() -> WhoAmI {
        WhoAmI(
            nodeID: Hex.encode(Array(Blake2b.hash256(master.subkey("node-id")).prefix(4))), location: location,
            cell: location.map { Geohash.encode($0, precision: config.geohashPrecision) }, dataDir: config.dataDir,
            joinedPacks: joined.count, ops: replica.count, adminKey: admin?.publicKey.hex, listen: listenAddress,
            reachable: reachableAddresses, lanBeacon: online.lan != nil)
    }

    /// Sets the self-reported location (kept in the store's settings).
    public func locate(_ p: GeoPoint) throws {
        do { try store.setSetting("location", "\(p.lat),\(p.lon)") } catch { throw NodeError("\(error)") }
        identity.location = p
    }

    // MARK: internals

    /// This node's key in a pack: the pseudonym derived from the master secret and the
    /// pack's genesis nonce (or the admin key for the admin's own packs).
    func key(for pack: PackID) -> SigningKeyPair? {
        if let k = identity.keys[pack] { return k }
        guard let p = replica.pack(pack) else { return nil }
        let k: SigningKeyPair
        if let admin, p.alpha == admin.publicKey { k = admin } else { k = master.pseudonym(genesisNonce: p.genesis.createNonce) }
        identity.keys[pack] = k
        return k
    }

    /// Signs an op of this node's pseudonym in a pack. The first op in a pack mints the
    /// pseudonym's proof-of-work stamp (the pack's `powBits`); it is returned as a local
    /// change to commit with the op, and reused afterwards.
    /// `persona`: signs with the node's persona in the pack instead (NodeProfiles.swift).
    /// `here`: the op claims the user's cell at the node's geohash precision (a post's place,
    /// FireUp's `--here`), in a pack that is not locked (a locked pack's claim is its own).
    func sign(_ kind: OpKind, in packID: PackID, persona: Bool = false, here: Bool = false) throws -> (op: SignedOp, changes: [LocalChange])
    {
        let nowMs = now()
        guard let pack = replica.pack(packID), replica.isLive(packID, nowMs: nowMs) else {
            throw NodeError("\(packLabel(packID).map { "pack '\($0)'" } ?? "that pack") is gone (expired or deleted)")
        }
        guard let key = persona ? personaKey(packID) : key(for: packID) else { throw NodeError("unknown pack") }
        // A banned pseudonym's ops count for nothing (PROTOCOL.md §5, bans): say so rather than
        // write them. Deleting its own posts stays open to it.
        if case .delete = kind {} else if replica.isBanned(key.publicKey, in: pack) { throw NodeError(Self.bannedMessage(pack)) }
        try takeLocalBudget(key.publicKey, nowMs: nowMs)
        var changes: [LocalChange] = []
        let stamp: UInt64
        if let s = persona ? personaStamp(packID) : stamps[packID] {
            stamp = s
        } else {
            stamp = ProofOfWork.mint(
                genesisNonce: pack.genesis.createNonce, author: key.publicKey.bytes,
                bits: Int(replica.config.pseudonymBits(pack.create.powBits)), progress: mintProgress)
            mintProgress?(0)
            changes.append(persona ? .setting(Self.personaStampSetting(packID), String(stamp)) : .stamp(packID, stamp))
        }
        var claim: String?
        let name = packLabel(packID) ?? pack.create.name
        if pack.locked, kind.needsLocationInLockedPack, let f = pack.fence {
            guard let here = location else {
                throw NodeError("pack '\(name)' is locked to its area: set your location first (locate LAT,LON)")
            }
            // The coarsest cell that proves "inside" (PROTOCOL §4): it says no more than that.
            guard let cell = f.claim(for: here, finestPrecision: f.finestClaimPrecision) else {
                let d = Int(here.distance(to: f.center)), r = Int(f.radiusMeters)
                if Double(d) > f.radiusMeters {
                    throw NodeError("you are outside pack '\(name)' (locked to \(r) m around its centre; you are \(d) m away)")
                }
                throw NodeError("you are too near the edge of pack '\(name)' to show you are inside (\(d) m from its centre, fence \(r) m)")
            }
            claim = cell
        } else if here {
            guard let at = location else { throw NodeError("--here attaches where you are: set your location first (locate LAT,LON)") }
            guard !pack.isPrivate else { throw NodeError("an invite-only pack's ops carry no place (--here)") }
            claim = Geohash.encode(at, precision: config.geohashPrecision)
        }
        var kind = kind
        for f in features.all { kind = try f.seal(kind, pack: pack, author: key.publicKey, node: self) }
        let body = OpBody(
            packID: packID, author: key.publicKey, hlc: own.clocks.tick(packID, physicalMs: nowMs), location: claim, stamp: stamp,
            kind: kind)
        do { return (try SignedOp.sign(body, with: key), changes) } catch { throw NodeError("\(error)") }
    }

    /// Checks a local op, commits it with `changes` in one store transaction, then admits it:
    /// reported done only once committed. On a store error nothing changes in memory.
    func commit(_ op: SignedOp, with changes: [LocalChange] = []) throws {
        let nowMs = now()
        if let outcome = replica.precheck(op, nowMs: nowMs, local: true) { throw NodeError.from(outcome, naming: op.packID, as: packLabel) }
        if mustHold(op) { return try hold(op, with: changes) }
        do { try store.append([op], with: changes) } catch {
            stats.storeErrors += 1
            throw NodeError("\(error)")
        }
        _ = replica.admit(op, nowMs: nowMs, local: true)
        own.clocks.observe(op.hlc, in: op.packID, physicalMs: nowMs)
        applyInMemory(changes)
        stats.localOps += 1
        publishLocal(op)
    }

    /// Commits local changes alone (join, leave).
    func commit(_ changes: [LocalChange]) throws {
        do { try store.apply(changes) } catch {
            stats.storeErrors += 1
            throw NodeError("\(error)")
        }
        applyInMemory(changes)
    }

    /// Committed local changes in memory: membership and stamps here, the rest (settings,
    /// pack keys) by the features that keep them.
    func applyInMemory(_ changes: [LocalChange]) {
        for c in changes {
            switch c {
            case .joined(let p, true, let ms): own.joined[p] = own.joined[p] ?? ms; replica.markOwn(p)
            case .joined(let p, false, _): own.joined[p] = nil
            case .stamp(let p, let s): own.stamps[p] = s
            case .setting, .packKey, .forgetPackKeys, .removedMember: break
            }
            for f in features.all { f.apply(c, node: self) }
        }
    }

    /// Drops expired and deleted packs (keeping tombstones), at most once per interval.
    func purgeIfDue() {
        let nowMs = now()
        guard upkeep.lastPurgeMs == 0 || nowMs >= upkeep.lastPurgeMs &+ Self.purgeIntervalMs else { return }
        upkeep.lastPurgeMs = max(1, nowMs)
        purge(nowMs: nowMs)
        // The search index follows the log off the ingest path (SkwadStore/SearchIndex.swift).
        do { try store.indexForSearch() } catch { stats.storeErrors += 1 }
    }

    /// Drops expired and deleted packs now, from memory and from the store.
    public func purge() { purge(nowMs: now()) }

    func purge(nowMs: UInt64) {
        let names = joinedPackNames()  // before the purge forgets them: for the inbox (NodeInbox.swift)
        let stones = replica.purge(nowMs: nowMs)
        recordGone(stones, names: names, nowMs: nowMs)
        let forgotten = replica.expireTombstones(nowMs: nowMs)
        if !forgotten.isEmpty { do { try store.dropTombstones(forgotten) } catch { stats.storeErrors += 1 } }
        let updated = replica.takeUpdatedTombstones()
        if !updated.isEmpty { do { try store.bury(updated) } catch { stats.storeErrors += 1 } }
        guard !stones.isEmpty else { return }
        for t in stones {
            own.forget(t.pack)
            identity.keys[t.pack] = nil
            for f in features.all { f.purged(t.pack, node: self) }
        }
        stats.packsPurged += stones.count
        // On failure the rows stay; the next start reloads and purges them again.
        do { try store.bury(stones) } catch { stats.storeErrors += 1 }
    }
}

/// The data directory as the node holds it: its lock, held for the node's lifetime (one
/// process per data directory), and one line saying which permissions opening it tightened.
struct DataDirectory: Sendable {
    let lock: DataDirLock
    let permissionNotice: String?
}

/// Who the user is on this node: the master secret every pseudonym and persona derives from,
/// the admin key (campus nodes), the pseudonyms derived so far, and where the user says it is.
struct Identity {
    let master: MasterSecret
    let admin: SigningKeyPair?
    /// Per pack, this node's pseudonym (the admin key in the admin's own packs); `Node.key(for:)`.
    var keys: [PackID: SigningKeyPair] = [:]
    var location: GeoPoint?
}

/// What the user does in packs: the packs joined (and since when), its pseudonyms' stamps,
/// one hybrid clock per pack, the clock of the geneses it writes, and its own op rate.
struct OwnPacks {
    var joined: [PackID: UInt64]
    var stamps: [PackID: UInt64]
    /// One hybrid clock per pack, never more than a second ahead of wall time (PROTOCOL §3).
    var clocks = PackClocks()
    /// Timestamps of the geneses this node writes: local ticks only, nothing observed.
    var genesisClock = HybridClock()
    /// Per pseudonym (pack), the network's op rate applied to the user's own ops.
    var localRate: LocalRateLimit

    /// A purged pack: its membership, stamp and clock go.
    mutating func forget(_ pack: PackID) {
        joined[pack] = nil
        stamps[pack] = nil
        clocks.remove(pack)
    }
}

/// Who listens to the node: its events (lines above the prompt), and the hashes tried so far
/// while a stamp is minted (the REPL's progress; 0 once minting is over).
struct Listeners {
    var events: (@Sendable (NodeEvent) -> Void)?
    var mintProgress: (@Sendable (UInt64) -> Void)?
}

/// The node online: the gossip engine and its socket (NodeNetwork.swift), the LAN beacon
/// while online on a non-loopback address (NodeLan.swift), and why the beacon is not running
/// when it failed to start (one line).
struct Online {
    var network: NetworkState?
    var lan: LanState?
    var lanNotice: String?
}

/// The node's upkeep: when expired and deleted packs were last purged, and how many hex
/// digits of an id show ids apart, for the op count it was worked out at.
struct Upkeep {
    var lastPurgeMs: UInt64 = 0
    var idLength: (count: Int, length: Int) = (-1, 8)
}

extension Node {
    var master: MasterSecret { identity.master }
    var admin: SigningKeyPair? { identity.admin }
    public var location: GeoPoint? { identity.location }
    var joined: [PackID: UInt64] { own.joined }
    var stamps: [PackID: UInt64] { own.stamps }
    var eventSink: (@Sendable (NodeEvent) -> Void)? { listeners.events }
    var mintProgress: (@Sendable (UInt64) -> Void)? { listeners.mintProgress }
    var network: NetworkState? {
        get { online.network }
        set { online.network = newValue }
    }
    public var lanNotice: String? { online.lanNotice }
    public nonisolated var permissionNotice: String? { dataDir.permissionNotice }
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
    public var duplicates = 0
    public var pending = 0
    public var rejected: [String: Int] = [:]
    public var packsPurged = 0
    /// Delivery receipts that could not be sent (NodeConversations.swift).
    public var receiptsNotSent = 0
    /// Ops of invite-only packs held for a key sync; sent again sealed under a newer key;
    /// dropped (removed, or refused when sent) (NodeKeySync.swift).
    public var heldOps = 0
    public var heldResealed = 0
    public var heldDropped = 0
    /// Members the Alpha handed its current key after a rotation; handouts that failed.
    public var lateHandouts = 0
    public var handoutsFailed = 0
}
