import SkwadCrypto
import SkwadModel

/// A last-writer-wins register ordered by (hlc, op id).
public struct LWW<Value: Sendable>: Sendable {
    public private(set) var hlc: HLC
    public private(set) var id: OpID
    public private(set) var value: Value

    init(hlc: HLC, id: OpID, value: Value) { self.hlc = hlc; self.id = id; self.value = value }

    /// Keeps the later write; returns true when `value` won.
    @discardableResult
    mutating func merge(hlc: HLC, id: OpID, value: Value) -> Bool {
        guard (hlc, id) > (self.hlc, self.id) else { return false }
        self.hlc = hlc; self.id = id; self.value = value
        return true
    }

    /// `register` after the write `(hlc, id, value)`: the write itself when there was none.
    static func merged(_ register: LWW?, hlc: HLC, id: OpID, value: Value) -> LWW {
        guard var r = register else { return LWW(hlc: hlc, id: id, value: value) }
        r.merge(hlc: hlc, id: id, value: value)
        return r
    }
}

/// Everything the replica knows about one pack, indexed for the views.
/// Where a pack's ops may go: what the geofence rule reads of a pack.
public struct PackScope: Sendable, Equatable {
    public let id: PackID
    public let fence: Geofence?
    public let locked: Bool
    /// An invite-only pack: never in a directory; its genesis goes where its ops go (PROTOCOL.md §3b).
    /// (Whether an admin key signed it does not count: the rules treat an admin pack as any
    /// pack of its fence, §11a.)
    public let isPrivate: Bool
    public init(id: PackID, fence: Geofence?, locked: Bool, isPrivate: Bool = false) {
        self.id = id; self.fence = fence; self.locked = locked; self.isPrivate = isPrivate
    }
}

/// A pack's indexes, beyond its genesis (read through `PackState`; public only so that
/// `PackState`'s dynamic members may be: its stored state stays internal). A pack of its
/// genesis alone holds none: `PackState` allocates them on the first write.
public struct PackFields: Sendable {
    /// Its genesis is signed by an admin key (kept here: a permanent pack always has fields).
    var isAdmin = false

    /// (hlc, id) of every op in the pack but its genesis, sorted (`PackState.order` adds it).
    var order: [(hlc: HLC, id: OpID)] = []
    /// (hlc, id) of the pack's `EditPack` ops: with the genesis, its directory entry (PROTOCOL §11a).
    var edits: [(hlc: HLC, id: OpID)] = []
    var posts: [OpID] = []
    var commentsByPost: [OpID: [OpID]] = [:]
    /// Distinct authors of posts, comments, votes, places, reviews and replies other than the Alpha.
    var participants: Set<PublicKey> = []
    /// A valid stamp seen per author, and cells found inside the fence: memos of pure
    /// admission checks (a cell enters only once `fence.contains` said yes), so the
    /// proof-of-work hash and the fence test run once per pseudonym and cell.
    var stamps: [PublicKey: UInt64] = [:]
    var cellsInside: Set<String> = []
    /// Per target (any id an op of this pack names): each voter's last vote. Targets of
    /// other packs are recorded but never read: views look a target up in its own pack.
    var votes: [OpID: [PublicKey: LWW<Int32>]] = [:]

    /// What most packs never hold (pack edits, deletion, moderation, post edits, reports,
    /// picks, places, profiles, private-pack keys), on the heap and allocated on the first
    /// write: a pack of posts, comments and votes only keeps one nil reference for all of it.
    struct Rare: Sendable {
        /// An invite-only genesis's content opened with the pack's key (name, tags, colour).
        var opened: CreatePack?
        var current: CreatePack?
        var nameEdit: LWW<String>?
        var colorEdit: LWW<String>?
        var tagsEdit: LWW<[String]>?
        var rotations: [UInt32: HLC] = [:]
        var deletion: (hlc: HLC, id: OpID)?
        var picks: [OpID: [PublicKey: LWW<OpID>]] = [:]
        var deleteRequests: [OpID: Set<PublicKey>] = [:]
        var moderation: [OpID: LWW<Bool>] = [:]
        var bans: [PublicKey: LWW<Bool>] = [:]
        var edits_: [OpID: [PublicKey: EditRegister]] = [:]
        var reportSlots: [PublicKey: [UInt64: [(hlc: HLC, id: OpID)]]] = [:]
        var places = PlaceIndex()
        var profiles: [PublicKey: LWW<Profile>] = [:]
        var members: Set<PublicKey> = []
        var keyOps: [OpID] = []
    }
    final class RareBox: @unchecked Sendable {
        var fields: Rare
        init(_ f: Rare) { fields = f }
    }
    private var rareBox: RareBox?

    /// The rare fields for writing: allocated on first use, copied first while shared.
    private var rare: Rare {
        get { rareBox?.fields ?? Rare() }
        _modify {
            if rareBox == nil {
                rareBox = RareBox(Rare())
            } else if !isKnownUniquelyReferenced(&rareBox!) {
                rareBox = RareBox(rareBox!.fields)
            }
            yield &rareBox!.fields
        }
    }

    /// Per key epoch >= 1 of an invite-only pack: the smallest hlc of the Alpha's `PackKeys`
    /// for it. An op sealed under an older epoch and later than this is never opened.
    var rotations: [UInt32: HLC] {
        get { rareBox?.fields.rotations ?? [:] }
        _modify { yield &rare.rotations }
    }
    var nameEdit: LWW<String>? { rareBox?.fields.nameEdit }
    var colorEdit: LWW<String>? { rareBox?.fields.colorEdit }
    var tagsEdit: LWW<[String]>? { rareBox?.fields.tagsEdit }
    /// (hlc, id) of the pack deletion that counts: the smallest moderator `Delete` of the pack
    /// (PROTOCOL §4, rule 8b). Nil: not deleted.
    var deletion: (hlc: HLC, id: OpID)? {
        get { rareBox?.fields.deletion }
        _modify { yield &rare.deletion }
    }
    var deleted: Bool { deletion != nil }
    /// Per ask (any id a `Pick` names): each picker's last pick. Views read only the ask's own
    /// author's, and only a caption on that ask in this pack (PROTOCOL §5, "Captions").
    var picks: [OpID: [PublicKey: LWW<OpID>]] {
        get { rareBox?.fields.picks ?? [:] }
        _modify { yield &rare.picks }
    }
    /// Per target: who asked to delete it (effective only for its author, decided in views).
    var deleteRequests: [OpID: Set<PublicKey>] {
        get { rareBox?.fields.deleteRequests ?? [:] }
        _modify { yield &rare.deleteRequests }
    }
    /// Per target: the moderators' last word (hidden or not), among this pack's ops.
    var moderation: [OpID: LWW<Bool>] {
        get { rareBox?.fields.moderation ?? [:] }
        _modify { yield &rare.moderation }
    }
    /// Per pseudonym named by a `Ban` of this pack: the moderators' last word (banned or not).
    /// At most one entry per `Ban` op admitted (only moderators' are), so bounded by the pack's ops.
    var bans: [PublicKey: LWW<Bool>] {
        get { rareBox?.fields.bans ?? [:] }
        _modify { yield &rare.bans }
    }
    /// Per target, per editor: the last title and body (LWW per field). Views read only the
    /// register of the target's own author (PROTOCOL.md §5, edits).
    var edits_: [OpID: [PublicKey: EditRegister]] {
        get { rareBox?.fields.edits_ ?? [:] }
        _modify { yield &rare.edits_ }
    }
    /// Per reporter, per clock hour: the (hlc, id) of the reports kept, ascending, at most
    /// `Limits.reportsPerHour` (the smallest win), hours within `Limits.reportWindowHours`
    /// of the reporter's newest (PROTOCOL.md §4, rule 8a).
    var reportSlots: [PublicKey: [UInt64: [(hlc: HLC, id: OpID)]]] {
        get { rareBox?.fields.reportSlots ?? [:] }
        _modify { yield &rare.reportSlots }
    }
    /// Places, reviews and replies (PlaceState.swift).
    var places: PlaceIndex {
        get { rareBox?.fields.places ?? PlaceIndex() }
        _modify { yield &rare.places }
    }
    /// Per author: its last `Profile` in this pack by (hlc, id) (ConversationViews.swift).
    var profiles: [PublicKey: LWW<Profile>] {
        get { rareBox?.fields.profiles ?? [:] }
        _modify { yield &rare.profiles }
    }
    /// Authors of the sealed ops of an invite-only pack that opened here (its members as far as
    /// this node can tell), and the `PackKeys` ops.
    var members: Set<PublicKey> {
        get { rareBox?.fields.members ?? [] }
        _modify { yield &rare.members }
    }
    var keyOps: [OpID] {
        get { rareBox?.fields.keyOps ?? [] }
        _modify { yield &rare.keyOps }
    }

    static let empty = PackFields()

    /// The genesis content with the opened meta of an invite-only pack, if any.
    var opened: CreatePack? {
        get { rareBox?.fields.opened }
        _modify { yield &rare.opened }
    }
    /// The last pack edits merged over the genesis content (nil: none).
    var current: CreatePack? { rareBox?.fields.current }

    public var popularity: Int { participants.count }
    public var postCount: Int { posts.count }

    mutating func insertOrdered(_ op: SignedOp) {
        let key = (op.hlc, op.id)
        if let last = order.last, key > (last.hlc, last.id) { order.append(key); return }
        var lo = 0, hi = order.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if key > (order[mid].hlc, order[mid].id) { lo = mid + 1 } else { hi = mid }
        }
        order.insert(key, at: lo)
    }

    mutating func applyPostEdit(_ e: Edit, author: PublicKey, hlc: HLC, id: OpID) {
        edits_[e.target, default: [:]][author, default: EditRegister()].merge(e, hlc: hlc, id: id)
    }

    mutating func applyEdit(_ e: EditPack, hlc: HLC, id: OpID, genesis g: CreatePack) {
        Self.applyEdit(e, hlc: hlc, id: id, genesis: g, to: &rare)
    }

    /// Takes a non-genesis op out of `order`.
    mutating func removeOrdered(_ id: OpID) {
        if let i = order.firstIndex(where: { $0.id == id }) { order.remove(at: i) }
    }

    private static func applyEdit(_ e: EditPack, hlc: HLC, id: OpID, genesis g: CreatePack, to r: inout Rare) {
        if let n = e.name { r.nameEdit = LWW.merged(r.nameEdit, hlc: hlc, id: id, value: n) }
        if let c = e.color { r.colorEdit = LWW.merged(r.colorEdit, hlc: hlc, id: id, value: c) }
        if let t = e.tags { r.tagsEdit = LWW.merged(r.tagsEdit, hlc: hlc, id: id, value: t) }
        var current = r.current ?? g
        current.name = r.nameEdit?.value ?? g.name
        current.color = r.colorEdit?.value ?? g.color
        current.tags = r.tagsEdit?.value ?? g.tags
        r.current = current
    }
}

/// One editor's last word on a post or comment: LWW per field by (hlc, id).
struct EditRegister: Sendable {
    var title: LWW<String>?
    var body: LWW<String>?

    mutating func merge(_ e: Edit, hlc: HLC, id: OpID) {
        if let t = e.title {
            if title == nil { title = LWW(hlc: hlc, id: id, value: t) } else { title!.merge(hlc: hlc, id: id, value: t) }
        }
        if let b = e.body {
            if body == nil { body = LWW(hlc: hlc, id: id, value: b) } else { body!.merge(hlc: hlc, id: id, value: b) }
        }
    }
}

/// A pack's state as the replica and its views see it: its genesis, and `PackFields` behind a
/// copy-on-write box that a pack of its genesis alone (most packs a node holds: those of its
/// directory) does without. The genesis op is shared with the replica's op set, so such a
/// pack costs its `packs` slot and nothing else (docs/BENCHMARKS.md "Where a simulated node's
/// memory goes"). Fields read and written through dynamic members; a write to a shared box
/// copies it first, a write to a pack without one allocates it.
@dynamicMemberLookup
public struct PackState: Sendable {
    final class Box: @unchecked Sendable {
        var fields: PackFields
        init(_ f: PackFields) { fields = f }
    }

    public let genesis: SignedOp
    private var box: Box?
    /// A pack learned from others and not joined (the quota of PROTOCOL §4 rule 5,
    /// PackQuota.swift): the network group its genesis came from. Nil: joined, admin, or ours.
    var remoteSource: String?

    /// `opened`: an invite-only genesis's content opened with the pack's key.
    init(genesis: SignedOp, opened: CreatePack? = nil, isAdmin: Bool, remoteSource: String? = nil) {
        self.genesis = genesis
        self.remoteSource = remoteSource
        if isAdmin { self[dynamicMember: \.isAdmin] = true }
        if let opened { self[dynamicMember: \.opened] = opened }
    }

    public subscript<T>(dynamicMember path: KeyPath<PackFields, T>) -> T {
        if let box { return box.fields[keyPath: path] }
        return PackFields.empty[keyPath: path]
    }

    public subscript<T>(dynamicMember path: WritableKeyPath<PackFields, T>) -> T {
        get {
            if let box { return box.fields[keyPath: path] }
            return PackFields.empty[keyPath: path]
        }
        _modify {
            unique()
            yield &box!.fields[keyPath: path]
        }
    }

    private mutating func unique() {
        if box == nil {
            box = Box(PackFields())
        } else if !isKnownUniquelyReferenced(&box!) {
            box = Box(box!.fields)
        }
    }

    /// The `CreatePack` a genesis carries (every pack's genesis does: `Replica.apply`).
    static func content(of genesis: SignedOp) -> CreatePack {
        guard case .createPack(let c) = genesis.body.kind else { preconditionFailure("a pack's genesis is a CreatePack") }
        return c
    }

    public var id: PackID { genesis.id }
    public var alpha: PublicKey { genesis.author }
    /// The genesis content (an invite-only pack's opened with its key, where this node has it).
    var genesisCreate: CreatePack { box?.fields.opened ?? Self.content(of: genesis) }
    /// The genesis content with pack edits (LWW per field) applied.
    public var create: CreatePack { box?.fields.current ?? genesisCreate }
    public var isAdmin: Bool { box?.fields.isAdmin ?? false }
    /// Fence, lock and invite-only are never sealed: the genesis op's own.
    public var fence: Geofence? { Self.content(of: genesis).fence }
    public var locked: Bool { Self.content(of: genesis).locked }
    /// Invite-only (PrivatePackViews.swift).
    public var isPrivate: Bool { Self.content(of: genesis).inviteOnly }
    public var createdMs: UInt64 { genesis.hlc.physicalMs }
    public var scope: PackScope {
        let c = Self.content(of: genesis)
        return PackScope(id: id, fence: c.fence, locked: c.locked, isPrivate: c.inviteOnly)
    }
    /// Expiry time, or nil for a permanent (admin) pack.
    public var expiresMs: UInt64? {
        isAdmin ? nil : createdMs + Lifetime.lifetimeMs(distinctParticipants: box?.fields.participants.count ?? 0)
    }
    /// After this, the pack is purged whatever its popularity.
    var purgeAfterMs: UInt64? { isAdmin ? nil : createdMs + Lifetime.maxMs + Lifetime.purgeGraceMs }
    public func isExpired(nowMs: UInt64) -> Bool { expiresMs.map { nowMs >= $0 } ?? false }
    public var popularity: Int { box?.fields.popularity ?? 0 }
    public var postCount: Int { box?.fields.postCount ?? 0 }
    public var opCount: Int { (box?.fields.order.count ?? 0) + 1 }

    /// (hlc, id) of every op in the pack, genesis included, sorted.
    public var order: [(hlc: HLC, id: OpID)] {
        let g = (hlc: genesis.hlc, id: genesis.id)
        guard let rest = box?.fields.order, !rest.isEmpty else { return [g] }
        var all = rest
        all.insert(g, at: all.firstIndex(where: { (g.hlc, g.id) < ($0.hlc, $0.id) }) ?? all.count)
        return all
    }

    mutating func insertOrdered(_ op: SignedOp) {
        unique()
        box!.fields.insertOrdered(op)
    }
    mutating func removeOrdered(_ id: OpID) {
        guard box != nil else { return }
        unique()
        box!.fields.removeOrdered(id)
    }
    mutating func applyPostEdit(_ e: Edit, author: PublicKey, hlc: HLC, id: OpID) {
        unique()
        box!.fields.applyPostEdit(e, author: author, hlc: hlc, id: id)
    }
    mutating func applyEdit(_ e: EditPack, hlc: HLC, id: OpID) {
        let g = genesisCreate
        unique()
        box!.fields.applyEdit(e, hlc: hlc, id: id, genesis: g)
    }
}
