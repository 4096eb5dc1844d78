import Foundation
import SkwadModel
import SkwadReplica

/// The pack directory (PROTOCOL.md §11a): the geneses and edits of the live packs a node
/// should know — unfenced packs, unlocked packs (admin ones included) whose fence it is
/// inside or near, locked packs whose fence it is inside — reconciled with a random link every few
/// seconds and with every new link at once, by the same range-based reconciliation as a
/// pack's ops. A node that was offline, started late, or missed a genesis push learns the
/// packs around it within seconds. `FindPack` asks the links for a pack by name or id prefix
/// (the `join` of a pack not yet known).
///
/// The part's own state is whom it pulls next and the links owed a pull. Its inputs read the
/// engine only through what they are handed (`DirectoryInputs`, the peer table, the pack views
/// lent by dissemination, which keeps them for its own rounds too), count into the engine's
/// stats, and return the `DirectoryAction`s the engine carries out in order. A send cannot
/// change what the part decides next within the same input (the session layer only emits on a
/// send), so the sends after the input are the sends it made during it.
struct PackDirectory: Sendable {
    /// The next link to pull the directory from, in turn (`round`).
    var cursor = 0
    /// Links that came up since the last tick: their directory is pulled at once (§11a).
    var newLinks: Set<PeerAddress> = []
}

extension PackDirectory: PeerState {
    /// Kept: a pull owed to it as a new link (the next tick pulls links only).
    mutating func forget(_ peer: PeerAddress) {}
}

extension PackDirectory: TimedPart {
    /// New links' directories to pull. (Its rounds' clocks are `Rounds`'.)
    var busy: Bool { !newLinks.isEmpty }
}

/// What the directory part reads of the engine for one input.
struct DirectoryInputs {
    /// Our own info (`GossipEngine.info`).
    let ours: NodeInfo
    let config: GossipConfig.Spread
    let replica: Replica
    let nowMs: UInt64
}

/// What the directory part asks of the engine, in order.
enum DirectoryAction {
    /// Directory reconciliation ranges to a peer, seen from `perspective`'s cell (split over
    /// datagrams by the engine: `sendReconcile`).
    case reconcile(
        lower: Reconciliation.Bound, ranges: [Reconciliation.RangeMessage], initiator: Bool, perspective: NodeInfo, to: PeerAddress)
    /// Directory entries to a peer, as repair (`sendOps`).
    case ops([SignedOp], to: PeerAddress)
    /// Ops to ask a peer for (`sendWants`).
    case wants([OpID], to: PeerAddress)
    /// A message to a peer (a `FindPack`).
    case send(Message, to: PeerAddress)
}

extension GossipEngine {
    /// Is the pack in the directory of a node that announced `info`? (§11a) This is also
    /// where a pack's genesis and edits may be sent (§12).
    public static func inDirectory(_ p: PackScope, of info: NodeInfo) -> Bool {
        if p.isPrivate { return false }  // invite-only: in no directory (PROTOCOL.md §3b)
        guard let fence = p.fence else { return !p.locked }
        let inside = info.place.map { fence.contains(cell: $0) } ?? false
        if p.locked { return inside }
        // An admin pack with a fence is as local as any other: were it in every directory,
        // each node would hold every campus's admin packs however far the network reached.
        if inside || info.subscribed(p.id) { return true }
        guard let here = info.place else { return false }
        let reach = fence.radiusMeters + directoryNearMeters
        if here.center.isSurelyFarther(than: reach, from: fence.center) { return false }
        return here.center.distance(to: fence.center) <= reach
    }

    /// The directory seen from a cell: the key its view is cached under, and which packs it
    /// holds. The cell is decoded on a miss only: a perspective already cached needs none.
    static func perspective(_ cell: String?) -> (key: String, include: (PackScope) -> Bool) {
        var info: NodeInfo?
        return (
            cell ?? "",
            { scope in
                if info == nil { info = NodeInfo(cell: cell) }
                return inDirectory(scope, of: info!)
            }
        )
    }

    /// The packs in the directories of both cells, under a pair's key: the two cells'
    /// perspectives intersected. Cells are geohashes (no "|"): a pair's key is never a single cell's.
    static func perspective(_ mine: String?, alsoIn theirs: String?) -> (key: String, selection: PackViewCache.Selection) {
        let key = (mine ?? "") < (theirs ?? "") ? "\(mine ?? "")|\(theirs ?? "")" : "\(theirs ?? "")|\(mine ?? "")"
        let (a, b) = (perspective(mine), perspective(theirs))
        return (key, .both(a.key, a.include, b.key, b.include))
    }

    /// The input's view of the engine for the directory part.
    func directoryInputs(nowMs: UInt64, replica: Replica) -> DirectoryInputs {
        DirectoryInputs(ours: info, config: config.spread, replica: replica, nowMs: nowMs)
    }

    /// Opens a directory pull from `peer` (`PackDirectory.pull`).
    mutating func sendDirectory(to peer: PeerAddress, nowMs: UInt64, replica: Replica, into out: inout [GossipDirective]) {
        let c = directoryInputs(nowMs: nowMs, replica: replica)
        carry([directory.pull(peer, c, peers: peers, views: &spread.packViews, stats: &stats)], nowMs: nowMs, replica: replica, into: &out)
    }

    /// The directory round (`PackDirectory.round`).
    mutating func directoryRound(nowMs: UInt64, replica: Replica, into out: inout [GossipDirective]) {
        let c = directoryInputs(nowMs: nowMs, replica: replica)
        carry(directory.round(c, peers: peers, views: &spread.packViews, stats: &stats), nowMs: nowMs, replica: replica, into: &out)
    }

    /// Rim contacts (`PackDirectory.rimRound`).
    mutating func rimRound(nowMs: UInt64, replica: Replica, into out: inout [GossipDirective]) {
        let c = directoryInputs(nowMs: nowMs, replica: replica)
        carry(directory.rimRound(c, peers: &peers, views: &spread.packViews, stats: &stats), nowMs: nowMs, replica: replica, into: &out)
    }

    /// A link just came up: reconcile the directory with it at the next tick (this is also
    /// how packs created while a node had no peer, such as configured admin packs, spread).
    mutating func directoryOnNewLink(_ peer: PeerAddress) {
        if directory.newLinks.count < config.spread.findPackFanout { directory.newLinks.insert(peer) }
    }

    /// New links' pulls (`PackDirectory.flushNewLinks`).
    mutating func flushNewLinks(nowMs: UInt64, replica: Replica, into out: inout [GossipDirective]) {
        guard !directory.newLinks.isEmpty else { return }
        let c = directoryInputs(nowMs: nowMs, replica: replica)
        carry(directory.flushNewLinks(c, peers: peers, views: &spread.packViews, stats: &stats), nowMs: nowMs, replica: replica, into: &out)
    }

    mutating func onDirectory(_ r: ReconcileRound, from: PeerAddress, nowMs: UInt64, replica: Replica, into out: inout [GossipDirective]) {
        let c = directoryInputs(nowMs: nowMs, replica: replica)
        carry(
            directory.answer(r, from: from, c, peers: &peers, views: &spread.packViews, stats: &stats), nowMs: nowMs, replica: replica,
            into: &out)
    }

    /// Asks the links (or, before any link is up, the known peers and seeds) for a pack by
    /// name or id prefix, and reconciles the directory with them at once. Matching geneses
    /// arrive as ops; the caller watches the replica.
    public mutating func findPack(_ query: String, nowMs: UInt64, replica: Replica) -> [GossipDirective] {
        var out: [GossipDirective] = []
        let c = directoryInputs(nowMs: nowMs, replica: replica)
        guard let acts = directory.find(query, c, seeds: membership.seeds, peers: peers, views: &spread.packViews, stats: &stats)
        else { return [] }
        carry(acts, nowMs: nowMs, replica: replica, into: &out)
        promptTickIfBusy(nowMs: nowMs, into: &out)
        finish(nowMs: nowMs, into: &out)
        return out
    }

    mutating func onFindPack(query: String, from: PeerAddress, nowMs: UInt64, replica: Replica, into out: inout [GossipDirective]) {
        let c = directoryInputs(nowMs: nowMs, replica: replica)
        carry(PackDirectory.found(query, from: from, c, peers: peers, stats: &stats), nowMs: nowMs, replica: replica, into: &out)
    }

    /// Carries out what the directory part asked, in its order.
    private mutating func carry(_ acts: [DirectoryAction], nowMs: UInt64, replica: Replica, into out: inout [GossipDirective]) {
        for a in acts {
            switch a {
            case .reconcile(let lower, let ranges, let initiator, let perspective, let to):
                sendReconcile(
                    pack: nil, lower: lower, ranges: ranges, initiator: initiator, directory: perspective, to: to, nowMs: nowMs,
                    replica: replica, into: &out)
            case .ops(let ops, let to): sendOps(ops, to: to, repair: true, nowMs: nowMs, into: &out)
            case .wants(let ids, let to): sendWants(ids, to: to, nowMs: nowMs, replica: replica, into: &out)
            case .send(let m, let to): send(m, to: to, nowMs: nowMs, into: &out)
            }
        }
    }
}

// The directory part's inputs.
extension PackDirectory {
    /// The packs we hold that are in the directory of a node that announced `cell` (§11a):
    /// what we answer a directory pull with, so that we offer everything we hold that the
    /// asker should know.
    static func items(forCell cell: String?, _ c: DirectoryInputs, views: inout PackViewCache) -> [Reconciliation.Item] {
        let p = GossipEngine.perspective(cell)
        return views.directoryItems(key: p.key, c.replica, nowMs: c.nowMs, capacity: c.config.directoryCapacity, include: p.include)
    }

    /// The packs we hold that are in both our directory (`mine`) and that of the cell the
    /// peer we pull from announced (`theirs`) (§11a): what we list when we pull. A pack only
    /// we may know — a locked fence we stand inside and the peer does not, an unlocked one
    /// near us only — is no difference with that peer, which never holds it (the fence rule
    /// on receipt) or should not know it: otherwise each such pair would differ on every
    /// round, go down to single items and answer in several datagrams.
    static func items(
        forCell mine: String?, alsoIn theirs: String?, _ c: DirectoryInputs, views: inout PackViewCache
    ) -> [Reconciliation.Item] {
        let p = GossipEngine.perspective(mine, alsoIn: theirs)
        return views.directoryItems(key: p.key, c.replica, nowMs: c.nowMs, capacity: c.config.directoryCapacity, selection: p.selection)
    }

    /// `Reconciliation.fingerprint` of all of `items(forCell:)`, and whether they all lie in
    /// the whole range (`PackViewCache.directoryFingerprint`).
    static func fingerprint(
        forCell cell: String?, _ c: DirectoryInputs, views: inout PackViewCache
    ) -> (fingerprint: [UInt8], wholeRange: Bool) {
        let p = GossipEngine.perspective(cell)
        return views.directoryFingerprint(key: p.key, c.replica, nowMs: c.nowMs, capacity: c.config.directoryCapacity, include: p.include)
    }

    /// The same of `items(forCell:alsoIn:)`.
    static func fingerprint(forCell mine: String?, alsoIn theirs: String?, _ c: DirectoryInputs, views: inout PackViewCache) -> [UInt8] {
        let p = GossipEngine.perspective(mine, alsoIn: theirs)
        return views.directoryFingerprint(
            key: p.key, c.replica, nowMs: c.nowMs, capacity: c.config.directoryCapacity, selection: p.selection
        )
        .fingerprint
    }

    /// The cell a peer announced to us; our own when we know none (a seed, a passive peer:
    /// then we list our whole directory, as a pull did before pairs, and the round converges).
    static func announcedCell(of peer: PeerAddress, _ c: DirectoryInputs, peers: PeerTable) -> String? {
        peers.info(of: peer)?.cell ?? c.ours.cell
    }

    /// Opens a directory pull from `peer`: we list the packs we hold in both its directory
    /// and ours; it answers with every pack it holds in ours.
    func pull(
        _ peer: PeerAddress, _ c: DirectoryInputs, peers: PeerTable, views: inout PackViewCache, stats: inout GossipStats
    ) -> DirectoryAction {
        stats.directoryRounds += 1
        // A stranger is pulled as from no cell (NeedToKnow.swift, `directoryCell`).
        let mine = NodeInfo(cell: peers.directoryCell(for: peer, ours: c.ours.cell))
        let fingerprint = Self.fingerprint(forCell: mine.cell, alsoIn: Self.announcedCell(of: peer, c, peers: peers), c, views: &views)
        return .reconcile(
            lower: .zero, ranges: Reconciliation.initiate(fingerprint: fingerprint), initiator: true, perspective: mine, to: peer)
    }

    /// Every `directoryIntervalMs`: the directory with one link, each in turn (in address
    /// order, among those that left the fewest of our reconciliations unanswered). Not the
    /// one least recently reconciled with, as a pack's link is chosen (§11): a link that
    /// reconciles packs with us every round, such as a remote contact, was then never asked,
    /// and it may be the only one that holds a locked pack at whose rim we stand.
    mutating func round(_ c: DirectoryInputs, peers: PeerTable, views: inout PackViewCache, stats: inout GossipStats) -> [DirectoryAction] {
        let answering = peers.answering(peers.links).sorted()
        guard !answering.isEmpty else { return [] }
        let peer = answering[cursor % answering.count]
        cursor = cursor % answering.count + 1
        return [pull(peer, c, peers: peers, views: &views, stats: &stats)]
    }

    /// Rim contacts (§11a): once a directory round, a directory pull to one passive peer a
    /// link named with a cell inside the fence of a locked pack we stand in, not among our
    /// proven peers and not asked within `rimRetryMs`. Such a peer stands at the rim: its
    /// nearest peers may all lie outside the fence, hold no genesis of it, and name it to no
    /// member nearer than theirs. Our pull makes us proven to it; it pulls back with its cell
    /// (`onProof`) and so gets the genesis, then finds contacts inside the fence like any
    /// member (hostile seed 10: a node 56 m inside a 675 m fence, whose 16 nearest peers all
    /// stood outside, never got the pack). A liar named inside costs one datagram per
    /// `rimRetryMs`.
    func rimRound(_ c: DirectoryInputs, peers: inout PeerTable, views: inout PackViewCache, stats: inout GossipStats) -> [DirectoryAction] {
        guard !peers.passive.isEmpty, c.ours.place != nil else { return [] }
        let (live, inside) = views.liveScopes(c.replica, nowMs: c.nowMs, inside: c.ours.place)
        let fences = live.indices.compactMap { inside[$0] && live[$0].locked ? live[$0].fence : nil }
        guard !fences.isEmpty else { return [] }
        for (p, cell) in peers.passive.sorted(by: { $0.key < $1.key }) where !GossipEngine.isCoarse(cell) && peers.reconciled[p] == nil {
            if let asked = peers.rimAsked[p], c.nowMs < asked &+ GossipEngine.rimRetryMs { continue }
            guard let place = NodeInfo.decode(cell), fences.contains(where: { $0.contains(cell: place) }) else { continue }
            peers.noteRimAsked(p, nowMs: c.nowMs, capacity: GossipEngine.rimCapacity)
            return [pull(p, c, peers: peers, views: &views, stats: &stats)]
        }
        return []
    }

    /// The links that came up since the last tick, pulled at once (those still links).
    mutating func flushNewLinks(
        _ c: DirectoryInputs, peers: PeerTable, views: inout PackViewCache, stats: inout GossipStats
    ) -> [DirectoryAction] {
        let fresh = newLinks.sorted()
        newLinks = []
        return fresh.prefix(c.config.findPackFanout).filter { peers.isLink($0) }.map {
            pull($0, c, peers: peers, views: &views, stats: &stats)
        }
    }

    /// A directory reconciliation step from `from`.
    func answer(
        _ r: ReconcileRound, from: PeerAddress, _ c: DirectoryInputs, peers: inout PeerTable, views: inout PackViewCache,
        stats: inout GossipStats
    ) -> [DirectoryAction] {
        // Whose directory: the initiator's. An initiator names its cell; in an answer to our
        // own request we use our own view, whatever the answer claims.
        let perspective = r.initiator ? (r.asker?.cellOnly ?? NodeInfo()) : c.ours.cellOnly
        if r.initiator && !peers.isLink(from) { peers.rememberInbound(from, info: perspective, nowMs: c.nowMs) }
        // A pull whose whole-set fingerprint matches ours (about half of them): settled, and a
        // settled pull gets no answer (below), so no item list is built for it.
        if r.initiator, r.lower == .zero, r.ranges.count == 1, r.ranges[0].upper == .infinity,
            case .fingerprint(let theirs) = r.ranges[0].mode
        {
            let ours = Self.fingerprint(forCell: perspective.cell, c, views: &views)
            if ours.wholeRange && ours.fingerprint == theirs { return [] }
        }
        // The answerer lists every pack it holds in the asker's directory, so that it offers
        // all of them, even one outside its own directory; the initiator (in an answer to its
        // own pull) lists only the packs in both directories, as when it opened the round. A
        // pack only the initiator may know thus settles, and one the answerer holds outside
        // its own directory stays a difference that the answer delivers.
        let items =
            r.initiator
            ? Self.items(forCell: perspective.cell, c, views: &views)
            : Self.items(
                forCell: peers.directoryCell(for: from, ours: c.ours.cell), alsoIn: Self.announcedCell(of: from, c, peers: peers), c,
                views: &views)
        let answer = Reconciliation.answer(items, lower: r.lower, ranges: r.ranges)
        var acts: [DirectoryAction] = []
        // A pull by the initiator: the answerer sends what the initiator's directory lacks; the
        // initiator asks for what it lacks. Neither pushes its own directory onto the other,
        // which may not be the other's (a node far away must not collect a campus's packs).
        if r.initiator && !answer.have.isEmpty {
            // At most `opsPerAnswer` per message: the rest comes in the next rounds.
            let ops = answer.have.prefix(c.config.opsPerAnswer).compactMap { c.replica.op($0) }.filter { op in
                (c.replica.scope(op.packID) ?? c.replica.goneScope(op.packID)).map { mayReceive(perspective, pack: $0, isGenesis: true) }
                    ?? false
            }
            acts.append(.ops(ops, to: from))
        }
        if !r.initiator { acts.append(.wants(answer.need, to: from)) }
        if !answer.done {
            acts.append(.reconcile(lower: r.lower, ranges: answer.ranges, initiator: !r.initiator, perspective: perspective, to: from))
        }
        return acts
    }

    /// `FindPack` to the links (or, before any link is up, the known peers and seeds), each
    /// pulled at once (nil: an empty query).
    func find(
        _ query: String, _ c: DirectoryInputs, seeds: [PeerAddress], peers: PeerTable, views: inout PackViewCache,
        stats: inout GossipStats
    ) -> [DirectoryAction]? {
        let q = String(query.lowercased().prefix(GossipEngine.maxFindQuery))
        guard !q.isEmpty else { return nil }
        var targets = peers.links
        if targets.isEmpty { targets = peers.passive.keys.sorted() + seeds }
        var acts: [DirectoryAction] = []
        for p in targets.prefix(c.config.findPackFanout) {
            acts.append(.send(.findPack(query: q), to: p))
            acts.append(pull(p, c, peers: peers, views: &views, stats: &stats))
        }
        return acts
    }

    /// A `FindPack` from `from`: the directory entries of the matching packs it may hold.
    static func found(
        _ query: String, from: PeerAddress, _ c: DirectoryInputs, peers: PeerTable, stats: inout GossipStats
    ) -> [DirectoryAction] {
        guard !query.isEmpty, query.utf8.count <= GossipEngine.maxFindQuery else { stats.drop(.malformedMessage); return [] }
        let who = peers.info(of: from) ?? NodeInfo()
        var ops: [SignedOp] = []
        // An invite-only pack answers only a query naming its whole id (a join code's).
        for p in c.replica.findPacks(query, nowMs: c.nowMs, limit: c.config.findPackMatches)
        where p.isPrivate ? query == p.id.hex : mayReceive(who, pack: p.scope, isGenesis: true) {
            ops += c.replica.directoryOps(of: p.id).prefix(c.config.opsPerAnswer / c.config.findPackMatches)
        }
        return ops.isEmpty ? [] : [.ops(ops, to: from)]
    }
}

extension SignedOp {
    /// A genesis, a pack edit or a deletion of the pack: what a directory entry holds, and what
    /// travels under the genesis part of the geofence rule (PROTOCOL §12).
    var isDirectoryEntry: Bool {
        switch body.kind {
        case .createPack, .editPack: true
        case .delete(let d): d.target == body.packID
        default: false
        }
    }
}
