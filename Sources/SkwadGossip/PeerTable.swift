import SkwadModel

/// Every peer the engine knows, one record each (`Peer`), with a stated capacity per role and
/// per fact (PROTOCOL §9, "Peer table"). A peer is known by its address and holds one or more
/// roles:
///
/// | role       | what it is                                               | capacity (default)     |
/// |------------|----------------------------------------------------------|------------------------|
/// | `active`   | a HyParView member: a link we gossip on, pinged (SWIM)   | `activeSize` (5)       |
/// | `passive`  | a HyParView backup, with the cell it was named with      | `passiveSize` (30)     |
/// | `vicinity` | among our nearest by cell (a link once it has spoken)    | `vicinitySize` (16)    |
/// | `remote`   | a contact inside a fence we follow from afar (a link)    | `remoteCapacity` (64)  |
/// | `inbound`  | counts us among its nearest; not a link (its info only)  | `inboundMemory` (64)   |
/// | `dead`     | given up on; retried now and then                        | `deadMemory` (64)      |
///
/// and what we learnt of it besides, each fact bounded on its own (the oldest goes when full):
///
/// | fact          | what it is                                                | capacity (default)            |
/// |---------------|-----------------------------------------------------------|-------------------------------|
/// | `muted`       | left our vicinity exchanges unanswered (a bar, no role)   | `mutedCapacity` (256)         |
/// | `reconMisses` | reconciliations a link left unanswered (AntiEntropy.swift) | links only (pruned each remote round) |
/// | `reconciled`  | sent us a `Reconcile`: proven, no stranger (NeedToKnow)   | `reconciledCapacity` (256)    |
/// | `rimAsked`    | pulled as a rim contact, when (Directory.swift)           | `rimCapacity` (64)            |
/// | `remoteHops`  | a remote-contact request routed through it (Vicinity)     | `remoteHopCapacity` (64)      |
/// | `candidates`  | on trial to join a full active view (MembershipGuard)     | `candidateCapacity` (16)      |
///
/// A record with no role and no fact left is dropped: the table holds nothing else about a
/// peer. The engine's other parts that hold state about a peer drop it when the engine gives
/// up on it (`PeerState`, Parts.swift), but for budgets and work in flight.
///
/// Legal transitions (every change goes through a method of this type, and every method
/// through `update`, which keeps the per-field indexes):
/// - unknown or `dead` → `passive` (named in a shuffle, a walk, a vicinity answer: a dead
///   peer named by someone else gets another chance); unknown → `vicinity` (`offerVicinity`),
///   → `remote`, → `inbound`;
/// - unknown or `passive` or `dead` → `active` (`promote`: a neighbour request, a join);
/// - `active` → `passive` (`demote`: a Disconnect, an eviction, an `Ack{not_member}`);
/// - any → `dead` (`forget` with `.dead` or `.unreachable`): every other role goes with it
///   (the facts stay, each until its own expiry: a peer that comes back is still proven);
/// - `vicinity`/`remote` → gone (`forget` with `.silent`); a peer that holds no other role
///   (it was not active) is then `dead` too;
/// - `dead` → `passive` (`revive`: it spoke again), `dead` → unknown (`expireDead`, or the
///   oldest when full);
/// - `passive` → unknown (when full, one of the most crowded network group, `passiveVictim`;
///   `dropPassive`), `vicinity` → unknown (the farthest when a nearer one comes), `inbound` →
///   unknown (the least recently heard when full).
/// A vicinity entry dropped as `.silent` or `.unreachable` is also `muted`: it re-enters the
/// vicinity view only by sending us a `Vicinity` message itself (`offerVicinity(answered:)`),
/// not by being named or by other traffic, until `expireDead` forgets the bar. A peer that
/// talks to us but never answers a vicinity exchange, or is named by others with a cell it
/// claims (a liar's fence centre), cannot hold a vicinity slot for long (PROTOCOL §9). Cells claimed by names that
/// never answered are remembered too (`suspectCells`, capacity 32): their names rank last.
/// `active` and `passive` never hold the same peer; a `dead` peer holds no other role except
/// a `vicinity` entry only heard of (named by others, not a link: how the two sides of a
/// healed partition find each other again). Our own address never enters the table.
struct PeerTable: Sendable {
    enum Role: String, CaseIterable, Sendable { case active, passive, vicinity, remote, inbound, dead }

    /// Why a node gives up on a peer (`forget`).
    enum Reason: Sendable { case dead, unreachable, silent }

    /// An active member: what it told us, and SWIM's state for it.
    struct Member: Sendable {
        var info = NodeInfo()
        var lastHeardMs: UInt64
        /// When it became a member (eviction protection keeps the longest-standing).
        var sinceMs: UInt64 = 0
        var pingSeq: UInt64 = 0
        var pingSentMs: UInt64?
        var suspectSinceMs: UInt64?
    }

    /// An active member's SWIM clocks (`Member`'s), kept beside the records (`activeClocks`).
    struct Clocks: Sendable { var lastHeardMs: UInt64; var pingSentMs: UInt64?; var suspectSinceMs: UInt64? }

    struct Inbound: Sendable { var info: NodeInfo; var heardMs: UInt64 }
    /// A peer given up on: its cell, since when, and whether it never answered (given up on as
    /// `.unreachable` the first time: a handshake or neighbour request unanswered).
    struct Gone: Sendable { var cell: String?; var sinceMs: UInt64; var unanswered = false }

    /// Everything we keep about one peer: a field per role (nil: it does not hold it) and per
    /// fact. A record with every field nil is not kept. Role payloads are boxed and times
    /// stored with a sentinel, so that a record holding one fact (most are muted or proven
    /// only) stays small: inline, every record would cost as much as one holding every role.
    struct Peer: Sendable {
        // roles
        var member: Member? {
            get { _member?.value }
            set { Box.assign(&_member, newValue) }
        }
        var clocks: Clocks? {
            guard let m = _member else { return nil }
            return Clocks(lastHeardMs: m.value.lastHeardMs, pingSentMs: m.value.pingSentMs, suspectSinceMs: m.value.suspectSinceMs)
        }
        /// The cell it was named with ("" when none).
        var passiveCell: String?
        var vicinity: VicinityEntry? {
            get { _vicinity?.value }
            set { Box.assign(&_vicinity, newValue) }
        }
        var remote: VicinityEntry? {
            get { _remote?.value }
            set { Box.assign(&_remote, newValue) }
        }
        var inbound: Inbound? {
            get { _inbound?.value }
            set { Box.assign(&_inbound, newValue) }
        }
        var gone: Gone? {
            get { _gone?.value }
            set { Box.assign(&_gone, newValue) }
        }
        // facts
        /// Since when it is barred from the vicinity view.
        var mutedMs: UInt64? {
            get { Self.time(_mutedMs) }
            set { _mutedMs = newValue ?? .max }
        }
        /// Reconciliations it left unanswered since it last answered one (a link that has
        /// taken part in reconciliation: AntiEntropy.swift).
        var reconMisses: Int?
        /// When it last sent us a `Reconcile`: proven, no stranger (NeedToKnow.swift).
        var reconciledMs: UInt64? {
            get { Self.time(_reconciledMs) }
            set { _reconciledMs = newValue ?? .max }
        }
        /// When we last pulled it as a rim contact (Directory.swift, `rimRound`).
        var rimAskedMs: UInt64? {
            get { Self.time(_rimAskedMs) }
            set { _rimAskedMs = newValue ?? .max }
        }
        /// A remote-contact request routed through it (Vicinity.swift, `remoteRound`).
        var hopAsk: HopAsk? {
            get { _hopAsk?.value }
            set { Box.assign(&_hopAsk, newValue) }
        }
        /// On trial: it asked to join a full view and must answer our ping (MembershipGuard.swift).
        var candidate: MembershipGuard.Candidate? {
            get { _candidate?.value }
            set { Box.assign(&_candidate, newValue) }
        }

        private var _member: Box<Member>?
        private var _vicinity: Box<VicinityEntry>?
        private var _remote: Box<VicinityEntry>?
        private var _inbound: Box<Inbound>?
        private var _gone: Box<Gone>?
        private var _hopAsk: Box<HopAsk>?
        private var _candidate: Box<MembershipGuard.Candidate>?
        /// `.max`: none (no clock reaches it).
        private var _mutedMs = UInt64.max, _reconciledMs = UInt64.max, _rimAskedMs = UInt64.max

        private static func time(_ t: UInt64) -> UInt64? { t == .max ? nil : t }

        /// Its info by the first role that has one (member, vicinity, remote, inbound), read
        /// in place, without copying a role's whole payload (`Spread.push` asks once per link and
        /// op batch).
        var info: NodeInfo? { _member?.value.info ?? _vicinity?.value.info ?? _remote?.value.info ?? _inbound?.value.info }

        /// The decoded cell its info gives under one role (active, vicinity, remote or
        /// inbound), read in place.
        func place(as role: Field) -> Geohash.Cell? {
            switch role {
            case .active: _member?.value.info.place
            case .vicinity: _vicinity?.value.info.place
            case .remote: _remote?.value.info.place
            case .inbound: _inbound?.value.info.place
            default: nil
            }
        }
        /// The cell its info gives under one role, read in place.
        func cell(as role: Field) -> String? {
            switch role {
            case .active: _member?.value.info.cell
            case .vicinity: _vicinity?.value.info.cell
            case .remote: _remote?.value.info.cell
            case .inbound: _inbound?.value.info.cell
            default: nil
            }
        }
        /// Its vicinity entry's `lastHeardMs` and `distance`, read in place.
        var vicinityHeardMs: UInt64? { _vicinity?.value.lastHeardMs }
        var vicinityDistance: Double? { _vicinity?.value.distance }

        /// One bit per `Field` that is set.
        fileprivate var fields: UInt16 {
            var f: UInt16 = 0
            func set(_ x: Field, _ on: Bool) { if on { f |= 1 << x.rawValue } }
            set(.active, _member != nil); set(.passive, passiveCell != nil); set(.vicinity, _vicinity != nil)
            set(.remote, _remote != nil); set(.inbound, _inbound != nil); set(.dead, _gone != nil)
            set(.muted, _mutedMs != .max); set(.reconMisses, reconMisses != nil); set(.reconciled, _reconciledMs != .max)
            set(.rimAsked, _rimAskedMs != .max); set(.hopAsk, _hopAsk != nil); set(.candidate, _candidate != nil)
            return f
        }
    }

    /// A peer's record as the table keeps it: on the heap, one reference per slot (a copy of
    /// the table shares it until either side changes it: `update`), so that reading one
    /// field (the walks over a role read thousands a second) copies nothing but that field.
    final class Record: @unchecked Sendable {
        fileprivate(set) var peer: Peer
        init(_ p: Peer) { peer = p }
        var member: Member? { peer.member }
        var passiveCell: String? { peer.passiveCell }
        var vicinity: VicinityEntry? { peer.vicinity }
        var remote: VicinityEntry? { peer.remote }
        var inbound: Inbound? { peer.inbound }
        var gone: Gone? { peer.gone }
        var mutedMs: UInt64? { peer.mutedMs }
        var reconMisses: Int? { peer.reconMisses }
        var reconciledMs: UInt64? { peer.reconciledMs }
        var rimAskedMs: UInt64? { peer.rimAskedMs }
        var hopAsk: HopAsk? { peer.hopAsk }
        var candidate: MembershipGuard.Candidate? { peer.candidate }
        func place(as role: Field) -> Geohash.Cell? { peer.place(as: role) }
        func cell(as role: Field) -> String? { peer.cell(as: role) }
        var vicinityHeardMs: UInt64? { peer.vicinityHeardMs }
        var vicinityDistance: Double? { peer.vicinityDistance }
        /// Whether it holds these fields (any of them), without copying a payload.
        func holdsAny(_ bits: UInt16) -> Bool { peer.fields & bits != 0 }
    }

    /// A value on the heap, shared by copies of its record until one of them changes it
    /// (copy on write: changed in place only while no other record holds it).
    final class Box<Value: Sendable>: @unchecked Sendable {
        var value: Value
        init(_ value: Value) { self.value = value }

        static func assign(_ slot: inout Box?, _ new: Value?) {
            guard let new else { slot = nil; return }
            if isKnownUniquelyReferenced(&slot) { slot!.value = new } else { slot = Box(new) }
        }
    }

    /// The fields of a record, each indexed: which peers hold it (for counts, capacities and
    /// walks over one role without visiting every record).
    enum Field: UInt16, CaseIterable, Sendable {
        case active, passive, vicinity, remote, inbound, dead, muted, reconMisses, reconciled, rimAsked, hopAsk, candidate
        var bit: UInt16 { 1 << rawValue }
    }

    /// One field across the table: the peers that hold it, and its value for each. Walks go
    /// in no stated order: callers sort or break ties by address where order matters.
    struct Column<Value>: Sequence {
        fileprivate let records: [PeerAddress: Record]
        let keys: Set<PeerAddress>
        fileprivate let field: (Record) -> Value?

        subscript(p: PeerAddress) -> Value? { records[p].flatMap(field) }
        var count: Int { keys.count }
        var isEmpty: Bool { keys.isEmpty }
        var values: LazyMapSequence<Set<PeerAddress>, Value> {
            let (records, field) = (records, field)
            return keys.lazy.map { field(records[$0]!)! }
        }
        func makeIterator() -> LazyMapSequence<Set<PeerAddress>, (key: PeerAddress, value: Value)>.Iterator {
            let (records, field) = (records, field)
            return keys.lazy.map { (key: $0, value: field(records[$0]!)!) }.makeIterator()
        }
    }

    struct Capacity: Sendable {
        var active, passive, vicinity, remote, inbound, dead: Int
    }

    /// Counts of changes to the active and vicinity member sets (not to their records), so
    /// that rounds which back off while nothing changes can tell (Backoff.swift).
    struct Versions: Sendable, Equatable { var active = 0, vicinity = 0 }
    private(set) var versions = Versions()

    let capacity: Capacity
    /// SWIM's settings, for its next deadline (`swimDeadlineMs`, Membership.swift).
    let swim: GossipConfig.Swim
    /// Our own address (never a peer).
    var me: PeerAddress?
    /// One record per peer.
    private(set) var records: [PeerAddress: Record] = [:]
    /// Counts changes to records and suspect cells: what `vicinityWorst` saw stays true
    /// until it moves.
    private var changes = 0
    /// The last answer of `vicinityWorst`, per kind of newcomer (only named, or heard), with
    /// the `changes` it was found at. A `Vicinity` message offers up to 16 entries to a full
    /// view and most are turned away, which changes nothing: without it each would walk the
    /// whole view again.
    private var worstMemo: (heard: WorstMemo?, named: WorstMemo?)
    private struct WorstMemo { var changes: Int; var worst: (PeerAddress, VicinityEntry)? }
    /// Per field, the peers whose record holds it (kept by `update`).
    private var holders = [Set<PeerAddress>](repeating: [], count: Field.allCases.count)

    var active: Column<Member> { column(.active) { $0.member } }
    /// The active members' SWIM clocks, in one small array kept by `update` beside their
    /// records, in no stated order. Every tick walks them (`detectFailures`, `idleWait`):
    /// through `active`, each member would be a set bucket, a table bucket, a record and a
    /// box away.
    private(set) var activeClocks: [(address: PeerAddress, clocks: Clocks)] = []
    var passive: Column<String> { column(.passive) { $0.passiveCell } }
    var vicinity: Column<VicinityEntry> { column(.vicinity) { $0.vicinity } }
    var remote: Column<VicinityEntry> { column(.remote) { $0.remote } }
    var inbound: Column<Inbound> { column(.inbound) { $0.inbound } }
    var dead: Column<Gone> { column(.dead) { $0.gone } }
    /// Vicinity entries dropped as silent or unreachable, with when: barred from the vicinity view until
    /// they speak the vicinity protocol to us (the oldest goes when full).
    var muted: Column<UInt64> { column(.muted) { $0.mutedMs } }
    var reconMisses: Column<Int> { column(.reconMisses) { $0.reconMisses } }
    var reconciled: Column<UInt64> { column(.reconciled) { $0.reconciledMs } }
    var rimAsked: Column<UInt64> { column(.rimAsked) { $0.rimAskedMs } }
    var remoteHops: Column<HopAsk> { column(.hopAsk) { $0.hopAsk } }
    var candidates: Column<MembershipGuard.Candidate> { column(.candidate) { $0.candidate } }

    /// Each holder of `f` with its record, in no stated order: for walks that read a field
    /// or two in place (`Peer.place(as:)`) rather than copy each payload as a `Column` does.
    func walk(_ f: Field, _ body: (PeerAddress, Record) -> Void) {
        for p in holders[Int(f.rawValue)] { if let r = records[p] { body(p, r) } }
    }

    private func column<V>(_ f: Field, _ get: @escaping (Record) -> V?) -> Column<V> {
        Column(records: records, keys: holders[Int(f.rawValue)], field: get)
    }

    /// Cells claimed by vicinity names that were asked and never answered: how many, and the
    /// last when. A cell with `suspectFailures` of them is suspect: a name claiming it ranks
    /// behind every other entry, for a slot and for a turn, until a peer named there answers
    /// (`clearSuspect`) or `expireDead` forgets it (the oldest goes when full). One failure is
    /// not enough: on a lossy path an honest name fails now and then. (Kept by cell, not by peer.)
    struct Suspicion: Sendable { var failures: Int; var lastMs: UInt64 }
    private(set) var suspectCells: [String: Suspicion] = [:] { didSet { changes &+= 1 } }

    init(config: GossipConfig) {
        swim = config.swim
        capacity = Capacity(
            active: max(1, config.membership.activeSize), passive: max(1, config.membership.passiveSize),
            vicinity: max(1, config.membership.vicinitySize), remote: Self.remoteCapacity,
            inbound: max(1, config.membership.inboundMemory), dead: max(1, config.membership.deadMemory))
    }

    // MARK: - the one way records change

    /// Changes one record in place, keeps the field indexes, and drops the record once empty.
    @discardableResult
    private mutating func update<R>(_ p: PeerAddress, _ body: (inout Peer) -> R) -> R {
        changes &+= 1
        let before: UInt16, after: UInt16, result: R
        let activeBit: UInt16 = 1 << Field.active.rawValue
        var clocks: Clocks?
        if let i = records.index(forKey: p) {
            (before, after, result) = Self.change(&records.values[i], body)
            if after & activeBit != 0 { clocks = records.values[i].peer.clocks }
            if after == 0 { records.remove(at: i) }  // an empty record is not kept
        } else {
            var rec = Peer()
            before = 0
            result = body(&rec)
            after = rec.fields
            if after & activeBit != 0 { clocks = rec.clocks }
            if after != 0 { records[p] = Record(rec) }
        }
        if (before | after) & activeBit != 0 {
            let k = activeClocks.firstIndex { $0.address == p }
            switch (k, clocks) {
            case (let k?, let c?): activeClocks[k].clocks = c
            case (let k?, nil): activeClocks.remove(at: k)
            case (nil, let c?): activeClocks.append((p, c))
            case (nil, nil): break
            }
        }
        if before != after {
            for f in Field.allCases where (before ^ after) & (1 << f.rawValue) != 0 {
                if after & (1 << f.rawValue) != 0 { holders[Int(f.rawValue)].insert(p) } else { holders[Int(f.rawValue)].remove(p) }
            }
        }
        return result
    }

    /// Changes a record in its slot: in place while no copy of the table shares it.
    private static func change<R>(_ r: inout Record, _ body: (inout Peer) -> R) -> (UInt16, UInt16, R) {
        if !isKnownUniquelyReferenced(&r) { r = Record(r.peer) }
        let before = r.peer.fields
        let result = body(&r.peer)
        return (before, r.peer.fields, result)
    }

    /// Makes room for `p` in a field with `capacity`: when `p` does not hold it and the field
    /// is full, the holder with the smallest `age` (then the smallest address) loses it.
    private mutating func makeRoom(
        in f: Field, for p: PeerAddress, capacity: Int, age: (Record) -> UInt64,
        clear: (inout Peer) -> Void
    ) {
        guard let oldest = oldestHolder(of: f, unless: p, capacity: capacity, age: age) else { return }
        update(oldest, clear)
    }

    private func oldestHolder(of f: Field, unless p: PeerAddress, capacity: Int, age: (Record) -> UInt64) -> PeerAddress? {
        let keys = holders[Int(f.rawValue)]
        guard !keys.contains(p), keys.count >= capacity else { return nil }
        return keys.min(by: { a, b in (age(records[a]!), a) < (age(records[b]!), b) })
    }

    // MARK: - reading

    func roles(of p: PeerAddress) -> [Role] {
        guard let r = records[p] else { return [] }
        return Role.allCases.filter { role in
            switch role {
            case .active: r.member != nil
            case .passive: r.passiveCell != nil
            case .vicinity: r.vicinity != nil
            case .remote: r.remote != nil
            case .inbound: r.inbound != nil
            case .dead: r.gone != nil
            }
        }
    }

    /// Active members, vicinity entries that have spoken to us, and remote contacts, each once,
    /// sorted: the links ops travel on. A vicinity entry only heard of (named by others, with
    /// a cell they claimed) is not a link until it has spoken: learned addresses are verified
    /// before use.
    /// Kept sorted as roles change (`syncLink`), not rebuilt on each read: it is read once per
    /// op forwarded.
    private(set) var links: [PeerAddress] = []

    /// Puts `p` into `links` or takes it out, as its roles now say (binary search: `links`
    /// holds at most active + vicinity + remote entries).
    private mutating func syncLink(_ p: PeerAddress) {
        let want = isHeardLink(p)
        var lo = 0, hi = links.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if links[mid] < p { lo = mid + 1 } else { hi = mid }
        }
        let has = lo < links.count && links[lo] == p
        if want && !has { links.insert(p, at: lo) } else if !want && has { links.remove(at: lo) }
    }

    /// A vicinity entry only heard of (named by others) that we have not asked yet.
    var hasUncontactedVicinity: Bool { vicinity.values.contains { $0.lastHeardMs == 0 && $0.askedMs == nil } }

    func isLink(_ p: PeerAddress) -> Bool { records[p]?.holdsAny(Field.active.bit | Field.vicinity.bit | Field.remote.bit) ?? false }
    /// Is it among `links` (a vicinity entry counts once heard)?
    func isHeardLink(_ p: PeerAddress) -> Bool {
        guard let r = records[p] else { return false }
        return r.holdsAny(Field.active.bit | Field.remote.bit) || (r.vicinity?.lastHeardMs ?? 0) > 0
    }
    var isFull: Bool { holders[Int(Field.active.rawValue)].count >= capacity.active }
    var hasRoom: Bool { holders[Int(Field.active.rawValue)].count < capacity.active }

    /// A link's info and whether it is an active member, in one lookup (`Spread.push` asks for
    /// every link on every op batch).
    func linkFacts(of p: PeerAddress) -> (info: NodeInfo, active: Bool)? {
        guard let r = records[p], let info = r.peer.info else { return nil }
        return (info, r.holdsAny(Field.active.bit))
    }

    /// What the peer told us of itself (links first, then inbound).
    func info(of p: PeerAddress) -> NodeInfo? {
        records[p]?.peer.info
    }

    /// The cell a peer's info gives under one role.
    func cell(of p: PeerAddress, as role: Field) -> String? { records[p]?.cell(as: role) }

    /// The best cell we know for a peer, whatever its role.
    func cell(of p: PeerAddress) -> String? {
        guard let r = records[p] else { return nil }
        if let c = r.member?.info.cell ?? r.vicinity?.info.cell ?? r.remote?.info.cell { return c }
        if let c = r.passiveCell, !c.isEmpty { return c }
        return r.gone?.cell
    }

    /// Known well enough that DATA without a session from it earns a new handshake (§8).
    func knows(_ p: PeerAddress) -> Bool {
        guard let r = records[p] else { return false }
        return r.holdsAny(Field.active.bit | Field.vicinity.bit | Field.remote.bit | Field.passive.bit | Field.dead.bit)
    }

    // MARK: - in-place updates (no role changes)

    subscript(active p: PeerAddress) -> Member? {
        get { records[p]?.member }
        set { if let v = newValue, records[p]?.member != nil { update(p) { $0.member = v } } }
    }
    subscript(vicinity p: PeerAddress) -> VicinityEntry? {
        get { records[p]?.vicinity }
        set { if let v = newValue, records[p]?.vicinity != nil { update(p) { $0.vicinity = v }; syncLink(p) } }
    }

    // MARK: - facts

    /// Reconciliations a link left unanswered (nil: it never took part in one).
    subscript(reconMisses p: PeerAddress) -> Int? {
        get { records[p]?.reconMisses }
        set { if newValue != nil || records[p] != nil { update(p) { $0.reconMisses = newValue } } }
    }

    /// Keeps the misses of links only (pruned with Plumtree's marks every remote round).
    mutating func retainReconMisses(links: Set<PeerAddress>) {
        let gone = holders[Int(Field.reconMisses.rawValue)].subtracting(links)
        for p in gone { update(p) { $0.reconMisses = nil } }
    }

    /// `p` sent us a `Reconcile` (the least recently reconciled goes when `capacity` are
    /// kept). True the first time.
    @discardableResult
    mutating func noteReconciled(_ p: PeerAddress, nowMs: UInt64, capacity: Int) -> Bool {
        let first = records[p]?.reconciledMs == nil
        makeRoom(in: .reconciled, for: p, capacity: capacity, age: { $0.reconciledMs! }) { $0.reconciledMs = nil }
        update(p) { $0.reconciledMs = nowMs }
        return first
    }

    /// We pulled `p` as a rim contact (the least recent goes when `capacity` are kept).
    mutating func noteRimAsked(_ p: PeerAddress, nowMs: UInt64, capacity: Int) {
        makeRoom(in: .rimAsked, for: p, capacity: capacity, age: { $0.rimAskedMs! }) { $0.rimAskedMs = nil }
        update(p) { $0.rimAskedMs = nowMs }
    }

    /// A remote-contact request routed through `p` (nil: none outstanding, no misses).
    subscript(hopAsk p: PeerAddress) -> HopAsk? {
        get { records[p]?.hopAsk }
        set { if newValue != nil || records[p] != nil { update(p) { $0.hopAsk = newValue } } }
    }

    /// We route a remote-contact request through `p` now (when `capacity` hops are kept,
    /// the one asked longest ago goes).
    mutating func noteHopAsked(_ p: PeerAddress, nowMs: UInt64, capacity: Int) {
        makeRoom(in: .hopAsk, for: p, capacity: capacity, age: { $0.hopAsk!.askedMs ?? 0 }) { $0.hopAsk = nil }
        update(p) {
            $0.hopAsk = $0.hopAsk ?? HopAsk(); $0.hopAsk!.askedMs = nowMs
        }
    }

    /// `p` asked to join a full view and was pinged: on trial (when `capacity` are, the one
    /// on trial longest goes).
    mutating func putOnTrial(_ p: PeerAddress, _ c: MembershipGuard.Candidate, capacity: Int) {
        makeRoom(in: .candidate, for: p, capacity: capacity, age: { $0.candidate!.sinceMs }) { $0.candidate = nil }
        update(p) { $0.candidate = c }
    }

    /// A trial ends: answered, or too late.
    mutating func endTrial(_ p: PeerAddress) { if records[p]?.candidate != nil { update(p) { $0.candidate = nil } } }

    /// A peer that spoke to us: a dead one comes back (`revive`); the clocks of its active and
    /// vicinity records are set.
    mutating func heard(_ p: PeerAddress, nowMs: UInt64, using rng: inout SplitMix) {
        revive(p, using: &rng)
        // A Bool, not the record: a reference held across `update` would make it copy the
        // record (and its boxes) on every message heard.
        let linked = records[p].map { $0.peer.member != nil || $0.peer.vicinity != nil } ?? false
        guard linked else { return }
        let first = update(p) { rec -> Bool in
            rec.member?.lastHeardMs = nowMs
            guard rec.vicinity != nil else { return false }
            let first = rec.vicinity!.lastHeardMs == 0
            rec.vicinity!.lastHeardMs = nowMs
            // Any message settles an exchange we asked a peer for once it has exchanged with
            // us before (alive, on a lossy path); before that, only a `Vicinity` message does
            // (`offerVicinity`): a peer that talks but never answers an exchange goes.
            if rec.vicinity!.exchangedMs > 0 { rec.vicinity!.askedMs = nil; rec.vicinity!.misses = 0 }
            return first
        }
        if first { syncLink(p) }
    }

    // MARK: - the HyParView views

    /// unknown / passive / dead → active. The caller made room (`evictionVictim`, `demote`).
    /// False when the view is full or the peer is ourselves.
    @discardableResult
    mutating func promote(_ p: PeerAddress, info: NodeInfo, nowMs: UInt64) -> Bool {
        guard p != me, records[p]?.member == nil, hasRoom else { return false }
        update(p) {
            $0.passiveCell = nil
            $0.gone = nil
            $0.member = Member(info: info, lastHeardMs: nowMs, sinceMs: nowMs)
        }
        versions.active += 1
        syncLink(p)
        return true
    }

    /// active → passive. Returns the member that left, if it was one.
    @discardableResult
    mutating func demote(_ p: PeerAddress, using rng: inout SplitMix) -> Member? {
        guard let m = records[p]?.member else { return nil }
        update(p) { $0.member = nil }
        versions.active += 1
        syncLink(p)
        addPassive(p, cell: m.info.cell, using: &rng)
        return m
    }

    /// any → unknown, without being marked dead: a relayed link retired for a direct link to
    /// the same peer (DirectPreference.swift). Returns whether it was an active member.
    @discardableResult
    mutating func retire(_ p: PeerAddress) -> Bool {
        // Bools, not the record: a reference held across `update` would make it copy the record.
        guard let (wasMember, wasVicinity) = records[p].map({ ($0.member != nil, $0.vicinity != nil) }) else { return false }
        if wasVicinity { versions.vicinity += 1 }
        if wasMember { versions.active += 1 }
        update(p) {
            $0.member = nil; $0.passiveCell = nil; $0.vicinity = nil; $0.remote = nil; $0.inbound = nil; $0.gone = nil
        }
        syncLink(p)
        return wasMember
    }

    /// passive → unknown: it took our handshake but never answered a neighbour request (a
    /// walked request may end unanswered, PROTOCOL §9). It is alive, so not dead, and keeps
    /// its other roles.
    mutating func dropPassive(_ p: PeerAddress) { if records[p] != nil { update(p) { $0.passiveCell = nil } } }

    /// The member a newcomer displaces when the view is full (PROTOCOL §9, "Eviction
    /// protection"; after Bitcoin Core's inbound eviction, which shields peers an attacker
    /// cannot cheaply imitate, such as the longest-connected): never one of the
    /// `protectedMembers`, and among the others one of the network group
    /// (`PeerAddress.netgroup`) that holds the most members, at random.
    /// A stranger that keeps joining thus displaces only recent members, and an attacker
    /// that owns one host or one /24 crowds out mostly itself.
    func evictionVictim(using rng: inout SplitMix) -> PeerAddress? {
        guard isFull else { return nil }
        let shielded = protectedMembers
        var perGroup: [String: Int] = [:]
        for p in active.keys { perGroup[p.netgroup, default: 0] += 1 }
        let open = active.keys.filter { !shielded.contains($0) }
        let most = open.map { perGroup[$0.netgroup] ?? 0 }.max() ?? 0
        return open.filter { perGroup[$0.netgroup] == most }.sorted().randomElement(using: &rng)
    }

    /// Members no newcomer may displace: the longest-standing, `capacity.active - 2` of them
    /// (3 of 5), so that two slots still turn over and the overlay stays random. Ties go to
    /// the smaller address. The member that last pushed us a new op is not shielded (as
    /// Bitcoin Core does for blocks): adversaries would earn it by relaying, and eclipse
    /// targets would keep fewer honest links.
    var protectedMembers: Set<PeerAddress> {
        let count = max(0, capacity.active - 2)
        let oldest = active.sorted { a, b in a.value.sinceMs != b.value.sinceMs ? a.value.sinceMs < b.value.sinceMs : a.key < b.key }
        return Set(oldest.prefix(count).map(\.key))
    }

    /// unknown or dead → passive (when full, `passiveVictim` goes; a dead peer named by
    /// someone else gets another chance); a known passive peer keeps the cell it had unless a
    /// new one is given. Active members are not added.
    mutating func addPassive(_ p: PeerAddress, cell: String?, using rng: inout SplitMix) {
        // An address that never answered (behind a NAT that lets in only replies, or a wrong
        // name) is not brought back by others naming it: only by speaking to us (`revive`),
        // or once forgotten.
        guard records[p]?.member == nil, p != me, records[p]?.gone?.unanswered != true else { return }
        let revived = records[p]?.gone
        if revived != nil { update(p) { $0.gone = nil } }
        let passiveCount = holders[Int(Field.passive.rawValue)].count
        if records[p]?.passiveCell == nil && passiveCount >= capacity.passive, let victim = passiveVictim(for: p, using: &rng) {
            update(victim) { $0.passiveCell = nil }
        }
        update(p) { $0.passiveCell = cell ?? $0.passiveCell ?? revived?.cell ?? "" }
    }

    /// The passive peer a newcomer `p` displaces when the view is full (PROTOCOL §9): at
    /// random among the network group (`PeerAddress.netgroup`) holding the most passive peers,
    /// `p` counted in its own (after the buckets of Bitcoin Core's address manager; Heilman et
    /// al., 2015). One host or one /24 naming many of its addresses in shuffles, walks and
    /// vicinity answers displaces mostly its own, so the backups a node refills its active
    /// view from stay spread over many networks. Where every peer is its own group (the
    /// simulator's names) this is the uniform choice it was before.
    func passiveVictim(for p: PeerAddress, using rng: inout SplitMix) -> PeerAddress? {
        var group: [PeerAddress: String] = [:]
        var perGroup: [String: Int] = [p.netgroup: 1]
        let keys = holders[Int(Field.passive.rawValue)]
        for q in keys {
            let g = q.netgroup
            group[q] = g
            perGroup[g, default: 0] += 1
        }
        let most = perGroup.values.max() ?? 0
        return keys.filter { perGroup[group[$0]!] == most }.sorted().randomElement(using: &rng)
    }

    // MARK: - vicinity, remote, inbound

    /// unknown → vicinity: kept when there is room, or when nearer than the farthest entry,
    /// which goes. An existing entry is replaced (callers decide what to keep of it).
    /// A muted peer is kept only when `answered` (it sent us a `Vicinity` message), which
    /// lifts the bar.
    mutating func offerVicinity(_ p: PeerAddress, _ e: VicinityEntry, answered: Bool = false) {
        guard p != me else { return }
        if answered { if records[p]?.mutedMs != nil { update(p) { $0.mutedMs = nil } } } else if records[p]?.mutedMs != nil { return }
        if records[p]?.vicinity == nil && holders[Int(Field.vicinity.rawValue)].count >= capacity.vicinity {
            guard let far = vicinityVictim(for: e) else { return }
            update(far) { $0.vicinity = nil }
            syncLink(far)
        }
        let isNew = records[p]?.vicinity == nil
        update(p) {
            if e.lastHeardMs > 0 { $0.gone = nil }
            $0.vicinity = e
        }
        if isNew { versions.vicinity += 1 }
        syncLink(p)
    }

    /// The entry a newcomer `e` pushes out of a full vicinity view, if `e` ranks before it.
    /// A peer only named by others (its cell unproven) takes the slot of a peer that has
    /// spoken to us only while fewer than a quarter of the view are such names: otherwise it
    /// competes with the other names alone. Names claiming the nearest cells (liars claiming
    /// a fence's centre) cannot push out every verified entry. A name claiming a suspect cell
    /// ranks behind every other entry: it takes a free slot only, and is the first to go.
    private mutating func vicinityVictim(for e: VicinityEntry) -> PeerAddress? {
        guard let (far, entry) = vicinityWorst(named: e.lastHeardMs == 0), behindInVicinity(e, entry) else { return nil }
        return far
    }

    /// The entry that ranks last among those a newcomer competes with (`named`: one only
    /// named by others), remembered until the table changes.
    private mutating func vicinityWorst(named: Bool) -> (PeerAddress, VicinityEntry)? {
        if let m = named ? worstMemo.named : worstMemo.heard, m.changes == changes { return m.worst }
        // Read in place: no entry is copied.
        var namesOnly = 0
        walk(.vicinity) { _, r in if r.vicinityHeardMs == 0 { namesOnly += 1 } }
        let onlyNames = named && namesOnly >= Self.namedVicinityShare(capacity.vicinity)
        var worstKey: PeerAddress?
        var worstRecord: Record?
        walk(.vicinity) { p, r in
            guard !onlyNames || r.vicinityHeardMs == 0 else { return }
            guard let w = worstRecord, let wk = worstKey else { (worstKey, worstRecord) = (p, r); return }
            if behindInVicinity(w, r) || (!behindInVicinity(r, w) && wk < p) { (worstKey, worstRecord) = (p, r) }
        }
        let worst = worstKey.flatMap { k in worstRecord?.vicinity.map { (key: k, value: $0) } }
        let memo = WorstMemo(changes: changes, worst: worst.map { ($0.key, $0.value) })
        if named { worstMemo.named = memo } else { worstMemo.heard = memo }
        return memo.worst
    }

    /// Does `a` rank behind `b` for a vicinity slot? A suspect name behind everything else,
    /// then the farther behind the nearer.
    private func behindInVicinity(_ a: VicinityEntry, _ b: VicinityEntry) -> Bool {
        let sa = isSuspectName(a), sb = isSuspectName(b)
        return sa != sb ? sb : a.distance < b.distance
    }

    /// `behindInVicinity` for two holders of a vicinity entry, read in place.
    private func behindInVicinity(_ a: Record, _ b: Record) -> Bool {
        let sa = isSuspectName(a), sb = isSuspectName(b)
        return sa != sb ? sb : (a.vicinityDistance ?? 0) < (b.vicinityDistance ?? 0)
    }

    private func isSuspectName(_ r: Record) -> Bool {
        r.vicinityHeardMs == 0 && !suspectCells.isEmpty
            && (suspectCells[r.cell(as: .vicinity) ?? ""]?.failures ?? 0) >= Self.suspectFailures
    }

    /// A vicinity entry only named by others, claiming a cell where a name never answered.
    func isSuspectName(_ e: VicinityEntry) -> Bool {
        e.lastHeardMs == 0 && !suspectCells.isEmpty && (suspectCells[e.info.cell ?? ""]?.failures ?? 0) >= Self.suspectFailures
    }

    mutating func suspect(cell: String, nowMs: UInt64) {
        suspectCells.makeRoom(for: cell, capacity: Self.suspectCellCapacity) { $0.lastMs }
        suspectCells[cell, default: Suspicion(failures: 0, lastMs: nowMs)].failures += 1
        suspectCells[cell]!.lastMs = nowMs
    }

    mutating func clearSuspect(cell: String) { suspectCells[cell] = nil }

    /// Of a full vicinity view, how many entries only named by others may push out entries
    /// that spoke to us.
    static func namedVicinityShare(_ size: Int) -> Int { max(1, size / 4) }

    /// Distances change when our own cell does.
    mutating func remeasureVicinity(_ distance: (NodeInfo) -> Double) {
        for k in holders[Int(Field.vicinity.rawValue)] { update(k) { $0.vicinity!.distance = distance($0.vicinity!.info) } }
    }

    mutating func addRemote(_ p: PeerAddress, _ e: VicinityEntry) {
        guard p != me, records[p]?.remote == nil, remote.count < capacity.remote else { return }
        update(p) {
            $0.gone = nil; $0.remote = e
        }
        syncLink(p)
    }

    mutating func removeRemote(_ p: PeerAddress) {
        if records[p] != nil { update(p) { $0.remote = nil } }
        syncLink(p)
    }

    /// unknown → inbound (the least recently heard goes when full).
    mutating func rememberInbound(_ p: PeerAddress, info: NodeInfo, nowMs: UInt64) {
        guard p != me else { return }
        makeRoom(in: .inbound, for: p, capacity: capacity.inbound, age: { $0.inbound!.heardMs }) { $0.inbound = nil }
        update(p) { $0.inbound = Inbound(info: info, heardMs: nowMs) }
    }

    // MARK: - giving up, and coming back

    /// The one way to give up on a peer. `.dead` (a silent active member) and `.unreachable`
    /// (a handshake or neighbour request never answered) take every role and mark it dead;
    /// `.silent` (a vicinity or remote entry that stopped answering) takes those roles, and
    /// marks it dead only if it was not an active member. Returns the member it was, if any.
    @discardableResult
    mutating func forget(_ p: PeerAddress, reason: Reason, nowMs: UInt64) -> Member? {
        guard records[p] != nil else {
            markDead(p, cell: nil, nowMs: nowMs, unanswered: reason == .unreachable)
            return nil
        }
        let cell = self.cell(of: p)
        if records[p]?.vicinity != nil {
            update(p) { $0.vicinity = nil }
            versions.vicinity += 1
            if reason != .dead { mute(p, nowMs: nowMs) }
        }
        if records[p] != nil { update(p) { $0.remote = nil } }
        defer { syncLink(p) }
        if reason == .silent && records[p]?.member != nil { return nil }
        let member = records[p]?.member
        if records[p] != nil {
            update(p) {
                $0.member = nil; $0.passiveCell = nil; $0.inbound = nil
            }
        }
        if member != nil { versions.active += 1 }
        markDead(p, cell: cell, nowMs: nowMs, unanswered: reason == .unreachable && member == nil)
        return member
    }

    /// Remembers a peer given up on (the first time only: retries do not renew it); the
    /// oldest goes when full.
    private mutating func markDead(_ p: PeerAddress, cell: String?, nowMs: UInt64, unanswered: Bool) {
        guard records[p]?.gone == nil, p != me else { return }
        makeRoom(in: .dead, for: p, capacity: capacity.dead, age: { $0.gone!.sinceMs }) { $0.gone = nil }
        update(p) { $0.gone = Gone(cell: cell, sinceMs: nowMs, unanswered: unanswered) }
    }

    /// dead → passive: the peer spoke again. Returns whether it was dead.
    @discardableResult
    mutating func revive(_ p: PeerAddress, using rng: inout SplitMix) -> Bool {
        guard let d = records[p]?.gone else { return false }
        update(p) { $0.gone = nil }
        addPassive(p, cell: d.cell, using: &rng)
        return true
    }

    /// dead → unknown after `forgetMs`; so go the vicinity bar and suspect cells.
    mutating func expireDead(nowMs: UInt64, forgetMs: UInt64) {
        let expired = dead.filter { nowMs >= $0.value.sinceMs &+ forgetMs }.map(\.key)
        for p in expired { update(p) { $0.gone = nil } }
        let unbarred = muted.filter { nowMs >= $0.value &+ forgetMs }.map(\.key)
        for p in unbarred { update(p) { $0.mutedMs = nil } }
        for (c, v) in suspectCells where nowMs >= v.lastMs &+ forgetMs { suspectCells[c] = nil }
    }

    mutating func mute(_ p: PeerAddress, nowMs: UInt64) {
        makeRoom(in: .muted, for: p, capacity: Self.mutedCapacity, age: { $0.mutedMs! }) { $0.mutedMs = nil }
        update(p) { $0.mutedMs = nowMs }
    }
}
