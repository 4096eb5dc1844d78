import SkwadModel

/// Every peer the engine knows, in one table with a stated capacity per role (PROTOCOL §9,
/// "Peer table"). A peer is known by its address and holds one or more roles:
///
/// | role       | what it is                                               | capacity (default)     |
/// |------------|----------------------------------------------------------|------------------------|
/// | `active`   | a HyParView member: a link we gossip on, pinged (SWIM)   | `activeSize` (5)       |
/// | `passive`  | a HyParView backup, with the cell it was named with      | `passiveSize` (30)     |
/// | `vicinity` | among our nearest by cell (a link once it has spoken)    | `vicinitySize` (16)    |
/// | `remote`   | a contact inside a fence we follow from afar (a link)    | `remoteCapacity` (64)  |
/// | `inbound`  | counts us among its nearest; not a link (its info only)  | `inboundMemory` (64)   |
/// | `dead`     | given up on; retried now and then                        | `deadMemory` (64)      |
/// | `muted`    | left our vicinity exchanges unanswered (not a role: a bar) | `mutedCapacity` (256)  |
///
/// Legal transitions (every change goes through a method of this type):
/// - unknown or `dead` → `passive` (named in a shuffle, a walk, a vicinity answer: a dead
///   peer named by someone else gets another chance); unknown → `vicinity` (`offerVicinity`),
///   → `remote`, → `inbound`;
/// - unknown or `passive` or `dead` → `active` (`promote`: a neighbour request, a join);
/// - `active` → `passive` (`demote`: a Disconnect, an eviction, an `Ack{not_member}`);
/// - any → `dead` (`forget` with `.dead` or `.unreachable`): every other role goes with it;
/// - `vicinity`/`remote` → gone (`forget` with `.silent`); a peer that holds no other role
///   (it was not active) is then `dead` too;
/// - `dead` → `passive` (`revive`: it spoke again), `dead` → unknown (`expireDead`, or the
///   oldest when full);
/// - `passive` → unknown (when full, one of the most crowded network group, `passiveVictim`; `dropPassive`), `vicinity` → unknown (the farthest when a
///   nearer one comes), `inbound` → unknown (the least recently heard when full).
/// A vicinity entry dropped as `.silent` or `.unreachable` is also `muted`: it re-enters the vicinity view only
/// by sending us a `Vicinity` message itself (`offerVicinity(answered:)`), not by being named
/// or by other traffic, until `expireDead` forgets the bar. A peer that talks to us but never
/// answers a vicinity exchange, or is named by others with a cell it claims (a liar's fence
/// centre), cannot hold a vicinity slot for long (PROTOCOL §9). Cells claimed by names that
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

    struct Inbound: Sendable { var info: NodeInfo; var heardMs: UInt64 }
    struct Gone: Sendable { var cell: String?; var sinceMs: UInt64 }

    struct Capacity: Sendable {
        var active, passive, vicinity, remote, inbound, dead: Int
    }

    static let remoteCapacity = 64

    /// Counts of changes to the active and vicinity member sets (not to their records), so
    /// that rounds which back off while nothing changes can tell (Backoff.swift).
    struct Versions: Sendable, Equatable { var active = 0, vicinity = 0 }
    private(set) var versions = Versions()

    let capacity: Capacity
    /// Our own address (never a peer).
    var me: PeerAddress?
    private(set) var active: [PeerAddress: Member] = [:]
    private(set) var passive: [PeerAddress: String] = [:]
    private(set) var vicinity: [PeerAddress: VicinityEntry] = [:]
    private(set) var remote: [PeerAddress: VicinityEntry] = [:]
    private(set) var inbound: [PeerAddress: Inbound] = [:]
    private(set) var dead: [PeerAddress: Gone] = [:]
    /// Vicinity entries dropped as silent or unreachable, with when: barred from the vicinity view until
    /// they speak the vicinity protocol to us (the oldest goes when full).
    private(set) var muted: [PeerAddress: UInt64] = [:]
    static let mutedCapacity = 256
    /// Cells claimed by vicinity names that were asked and never answered: how many, and the
    /// last when. A cell with `suspectFailures` of them is suspect: a name claiming it ranks
    /// behind every other entry, for a slot and for a turn, until a peer named there answers
    /// (`clearSuspect`) or `expireDead` forgets it (the oldest goes when full). One failure is
    /// not enough: on a lossy path an honest name fails now and then.
    struct Suspicion: Sendable { var failures: Int; var lastMs: UInt64 }
    private(set) var suspectCells: [String: Suspicion] = [:]
    static let suspectCellCapacity = 32
    static let suspectFailures = 2

    init(config: GossipConfig) {
        capacity = Capacity(active: max(1, config.activeSize), passive: max(1, config.passiveSize),
                            vicinity: max(1, config.vicinitySize), remote: Self.remoteCapacity,
                            inbound: max(1, config.inboundMemory), dead: max(1, config.deadMemory))
    }

    // MARK: - reading

    func roles(of p: PeerAddress) -> [Role] {
        Role.allCases.filter { r in
            switch r {
            case .active: active[p] != nil
            case .passive: passive[p] != nil
            case .vicinity: vicinity[p] != nil
            case .remote: remote[p] != nil
            case .inbound: inbound[p] != nil
            case .dead: dead[p] != nil
            }
        }
    }

    /// Active members, vicinity entries that have spoken to us, and remote contacts, each once,
    /// sorted: the links ops travel on. A vicinity entry only heard of (named by others, with
    /// a cell they claimed) is not a link until it has spoken: learned addresses are verified
    /// before use.
    /// Kept sorted as roles change (`syncLink`): rebuilding and sorting it on every read was
    /// ≈ 2 % of the 10,000-node city's time (perf), read once per op forwarded. (The rebuilt
    /// list left out a remote contact that was also a vicinity entry only heard of, which
    /// `isHeardLink` counted: now both say the same.)
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

    // Membership is tested on the keys: these run several times per datagram. (A field is
    // read through the optional, `vicinity[p]?.lastHeardMs`: the optimizer reads it out of
    // it, where `vicinity.values[i].lastHeardMs` copied the whole entry, perf.)
    func isLink(_ p: PeerAddress) -> Bool { active.keys.contains(p) || vicinity.keys.contains(p) || remote.keys.contains(p) }
    /// Is it among `links` (a vicinity entry counts once heard)?
    func isHeardLink(_ p: PeerAddress) -> Bool { active.keys.contains(p) || (vicinity[p]?.lastHeardMs ?? 0) > 0 || remote.keys.contains(p) }
    var isFull: Bool { active.count >= capacity.active }
    var hasRoom: Bool { active.count < capacity.active }

    /// What the peer told us of itself (links first, then inbound).
    func info(of p: PeerAddress) -> NodeInfo? { active[p]?.info ?? vicinity[p]?.info ?? remote[p]?.info ?? inbound[p]?.info }

    /// The best cell we know for a peer, whatever its role.
    func cell(of p: PeerAddress) -> String? {
        if let c = active[p]?.info.cell ?? vicinity[p]?.info.cell ?? remote[p]?.info.cell { return c }
        if let c = passive[p], !c.isEmpty { return c }
        return dead[p]?.cell
    }

    /// Known well enough that DATA without a session from it earns a new handshake (§8).
    func knows(_ p: PeerAddress) -> Bool { isLink(p) || passive.keys.contains(p) || dead.keys.contains(p) }

    // MARK: - in-place updates (no role changes)

    subscript(active p: PeerAddress) -> Member? {
        get { active[p] }
        set { if let v = newValue, active[p] != nil { active[p] = v } }
    }
    subscript(vicinity p: PeerAddress) -> VicinityEntry? {
        get { vicinity[p] }
        set { if let v = newValue, vicinity[p] != nil { vicinity[p] = v; syncLink(p) } }
    }

    /// A peer that spoke to us: a dead one comes back (`revive`); the clocks of its active and
    /// vicinity records are set.
    mutating func heard(_ p: PeerAddress, nowMs: UInt64, using rng: inout SplitMix) {
        revive(p, using: &rng)
        if let i = active.index(forKey: p) { active.values[i].lastHeardMs = nowMs }
        if let i = vicinity.index(forKey: p) {
            let first = vicinity.values[i].lastHeardMs == 0
            vicinity.values[i].lastHeardMs = nowMs
            // Any message settles an exchange we asked a peer for once it has exchanged with
            // us before (alive, on a lossy path); before that, only a `Vicinity` message does
            // (`offerVicinity`): a peer that talks but never answers an exchange goes.
            if vicinity.values[i].exchangedMs > 0 { vicinity.values[i].askedMs = nil; vicinity.values[i].misses = 0 }
            if first { syncLink(p) }
        }
    }

    // MARK: - the HyParView views

    /// unknown / passive / dead → active. The caller made room (`evictionVictim`, `demote`).
    /// False when the view is full or the peer is ourselves.
    @discardableResult
    mutating func promote(_ p: PeerAddress, info: NodeInfo, nowMs: UInt64) -> Bool {
        guard p != me, active[p] == nil, hasRoom else { return false }
        passive[p] = nil
        dead[p] = nil
        active[p] = Member(info: info, lastHeardMs: nowMs, sinceMs: nowMs)
        versions.active += 1
        syncLink(p)
        return true
    }

    /// active → passive. Returns the member that left, if it was one.
    @discardableResult
    mutating func demote(_ p: PeerAddress, using rng: inout SplitMix) -> Member? {
        guard let m = active.removeValue(forKey: p) else { return nil }
        versions.active += 1
        syncLink(p)
        addPassive(p, cell: m.info.cell, using: &rng)
        return m
    }

    /// passive → unknown: it took our handshake but never answered a neighbour request (a
    /// walked request may end unanswered, PROTOCOL §9). It is alive, so not dead, and keeps
    /// its other roles.
    mutating func dropPassive(_ p: PeerAddress) { passive[p] = nil }

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
    /// the smaller address. (Shielding also the member that last pushed us a new op, as
    /// Bitcoin Core does for blocks, was tried and dropped: in `hostile.toml` adversaries
    /// earned it by relaying, eclipse targets kept fewer honest links and coverage fell.)
    var protectedMembers: Set<PeerAddress> {
        let count = max(0, capacity.active - 2)
        let oldest = active.sorted { a, b in a.value.sinceMs != b.value.sinceMs ? a.value.sinceMs < b.value.sinceMs : a.key < b.key }
        return Set(oldest.prefix(count).map(\.key))
    }

    /// unknown or dead → passive (when full, `passiveVictim` goes; a dead peer named by
    /// someone else gets another chance); a known passive peer keeps the cell it had unless a
    /// new one is given. Active members are not added.
    mutating func addPassive(_ p: PeerAddress, cell: String?, using rng: inout SplitMix) {
        guard active[p] == nil, p != me else { return }
        let revived = dead.removeValue(forKey: p)
        if passive[p] == nil && passive.count >= capacity.passive, let victim = passiveVictim(for: p, using: &rng) {
            passive[victim] = nil
        }
        passive[p] = cell ?? passive[p] ?? revived?.cell ?? ""
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
        for q in passive.keys {
            let g = q.netgroup
            group[q] = g
            perGroup[g, default: 0] += 1
        }
        let most = perGroup.values.max() ?? 0
        return passive.keys.filter { perGroup[group[$0]!] == most }.sorted().randomElement(using: &rng)
    }

    // MARK: - vicinity, remote, inbound

    /// unknown → vicinity: kept when there is room, or when nearer than the farthest entry,
    /// which goes. An existing entry is replaced (callers decide what to keep of it).
    /// A muted peer is kept only when `answered` (it sent us a `Vicinity` message), which
    /// lifts the bar.
    mutating func offerVicinity(_ p: PeerAddress, _ e: VicinityEntry, answered: Bool = false) {
        guard p != me else { return }
        if answered { muted[p] = nil } else if muted[p] != nil { return }
        if vicinity[p] == nil && vicinity.count >= capacity.vicinity {
            // A peer only named by others (its cell unproven) takes the slot of a peer that
            // has spoken to us only while fewer than a quarter of the view are such names:
            // otherwise it competes with the other names alone. Names claiming the nearest
            // cells (liars claiming a fence's centre) cannot push out every verified entry.
            // A name claiming a suspect cell ranks behind every other entry: it takes a free
            // slot only, and is the first to go.
            let named = e.lastHeardMs == 0
            let pool = named && vicinity.values.reduce(0, { $0 + ($1.lastHeardMs == 0 ? 1 : 0) }) >= Self.namedVicinityShare(capacity.vicinity)
                ? vicinity.filter { $0.value.lastHeardMs == 0 } : vicinity
            func behind(_ a: VicinityEntry, _ b: VicinityEntry) -> Bool {
                let sa = isSuspectName(a), sb = isSuspectName(b)
                return sa != sb ? sb : a.distance < b.distance
            }
            guard let (far, entry) = pool.max(by: { a, b in
                      behind(a.value, b.value) || (!behind(b.value, a.value) && a.key < b.key)
                  }),
                  behind(e, entry) else { return }
            vicinity[far] = nil
            syncLink(far)
        }
        if e.lastHeardMs > 0 { dead[p] = nil }
        if vicinity[p] == nil { versions.vicinity += 1 }
        vicinity[p] = e
        syncLink(p)
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
        for k in vicinity.keys { vicinity[k]!.distance = distance(vicinity[k]!.info) }
    }

    mutating func addRemote(_ p: PeerAddress, _ e: VicinityEntry) {
        guard p != me, remote[p] == nil, remote.count < capacity.remote else { return }
        dead[p] = nil
        remote[p] = e
        syncLink(p)
    }

    mutating func removeRemote(_ p: PeerAddress) { remote[p] = nil; syncLink(p) }

    /// unknown → inbound (the least recently heard goes when full).
    mutating func rememberInbound(_ p: PeerAddress, info: NodeInfo, nowMs: UInt64) {
        guard p != me else { return }
        inbound.makeRoom(for: p, capacity: capacity.inbound) { $0.heardMs }
        inbound[p] = Inbound(info: info, heardMs: nowMs)
    }

    // MARK: - giving up, and coming back

    /// The one way to give up on a peer. `.dead` (a silent active member) and `.unreachable`
    /// (a handshake or neighbour request never answered) take every role and mark it dead;
    /// `.silent` (a vicinity or remote entry that stopped answering) takes those roles, and
    /// marks it dead only if it was not an active member. Returns the member it was, if any.
    @discardableResult
    mutating func forget(_ p: PeerAddress, reason: Reason, nowMs: UInt64) -> Member? {
        let cell = self.cell(of: p)
        if vicinity.removeValue(forKey: p) != nil {
            versions.vicinity += 1
            if reason != .dead { mute(p, nowMs: nowMs) }
        }
        remote[p] = nil
        defer { syncLink(p) }
        if reason == .silent && active[p] != nil { return nil }
        let member = active.removeValue(forKey: p)
        if member != nil { versions.active += 1 }
        passive[p] = nil
        inbound[p] = nil
        markDead(p, cell: cell, nowMs: nowMs)
        return member
    }

    /// Remembers a peer given up on (the first time only: retries do not renew it); the
    /// oldest goes when full.
    private mutating func markDead(_ p: PeerAddress, cell: String?, nowMs: UInt64) {
        guard dead[p] == nil, p != me else { return }
        dead.makeRoom(for: p, capacity: capacity.dead) { $0.sinceMs }
        dead[p] = Gone(cell: cell, sinceMs: nowMs)
    }

    /// dead → passive: the peer spoke again. Returns whether it was dead.
    @discardableResult
    mutating func revive(_ p: PeerAddress, using rng: inout SplitMix) -> Bool {
        guard let d = dead.removeValue(forKey: p) else { return false }
        addPassive(p, cell: d.cell, using: &rng)
        return true
    }

    /// dead → unknown after `forgetMs`.
    mutating func expireDead(nowMs: UInt64, forgetMs: UInt64) {
        for (p, d) in dead where nowMs >= d.sinceMs &+ forgetMs { dead[p] = nil }
        for (p, since) in muted where nowMs >= since &+ forgetMs { muted[p] = nil }
        for (c, v) in suspectCells where nowMs >= v.lastMs &+ forgetMs { suspectCells[c] = nil }
    }

    mutating func mute(_ p: PeerAddress, nowMs: UInt64) {
        muted.makeRoom(for: p, capacity: Self.mutedCapacity) { $0 }
        muted[p] = nowMs
    }
}
