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

    /// The packs we hold that are in the directory of a node that announced `cell` (§11a):
    /// what we answer a directory pull with, so that we offer everything we hold that the
    /// asker should know.
    mutating func directoryItems(forCell cell: String?, nowMs: UInt64, replica: Replica) -> [Reconciliation.Item] {
        let p = Self.perspective(cell)
        return spread.packViews.directoryItems(
            key: p.key, replica, nowMs: nowMs, capacity: config.spread.directoryCapacity, include: p.include)
    }

    /// The packs we hold that are in both our directory (`mine`) and that of the cell the
    /// peer we pull from announced (`theirs`) (§11a): what we list when we pull. A pack only
    /// we may know — a locked fence we stand inside and the peer does not, an unlocked one
    /// near us only — is no difference with that peer, which never holds it (the fence rule
    /// on receipt) or should not know it: otherwise each such pair would differ on every
    /// round, go down to single items and answer in several datagrams.
    mutating func directoryItems(forCell mine: String?, alsoIn theirs: String?, nowMs: UInt64, replica: Replica) -> [Reconciliation.Item] {
        let p = Self.perspective(mine, alsoIn: theirs)
        return spread.packViews.directoryItems(
            key: p.key, replica, nowMs: nowMs, capacity: config.spread.directoryCapacity, selection: p.selection)
    }

    /// `Reconciliation.fingerprint` of all of `directoryItems(forCell:)`, and whether they all
    /// lie in the whole range (`PackViewCache.directoryFingerprint`).
    mutating func directoryFingerprint(forCell cell: String?, nowMs: UInt64, replica: Replica) -> (fingerprint: [UInt8], wholeRange: Bool) {
        let p = Self.perspective(cell)
        return spread.packViews.directoryFingerprint(
            key: p.key, replica, nowMs: nowMs, capacity: config.spread.directoryCapacity, include: p.include)
    }

    /// The same of `directoryItems(forCell:alsoIn:)`.
    mutating func directoryFingerprint(forCell mine: String?, alsoIn theirs: String?, nowMs: UInt64, replica: Replica) -> [UInt8] {
        let p = Self.perspective(mine, alsoIn: theirs)
        return spread.packViews.directoryFingerprint(
            key: p.key, replica, nowMs: nowMs, capacity: config.spread.directoryCapacity, selection: p.selection
        )
        .fingerprint
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

    /// The cell a peer announced to us; our own when we know none (a seed, a passive peer:
    /// then we list our whole directory, as a pull did before pairs, and the round converges).
    func announcedCell(of peer: PeerAddress) -> String? { peerInfo(peer)?.cell ?? info.cell }

    /// Opens a directory pull from `peer`: we list the packs we hold in both its directory
    /// and ours; it answers with every pack it holds in ours.
    mutating func sendDirectory(to peer: PeerAddress, nowMs: UInt64, replica: Replica, into out: inout [GossipDirective]) {
        stats.directoryRounds += 1
        // A stranger is pulled as from no cell (NeedToKnow.swift, `directoryCell`).
        let mine = NodeInfo(cell: directoryCell(for: peer))
        let fingerprint = directoryFingerprint(forCell: mine.cell, alsoIn: announcedCell(of: peer), nowMs: nowMs, replica: replica)
        sendReconcile(
            pack: nil, lower: .zero, ranges: Reconciliation.initiate(fingerprint: fingerprint), initiator: true,
            directory: mine, to: peer, nowMs: nowMs, into: &out)
    }

    /// Every `directoryIntervalMs`: the directory with one link, each in turn (in address
    /// order, among those that left the fewest of our reconciliations unanswered). Not the
    /// one least recently reconciled with, as a pack's link is chosen (§11): a link that
    /// reconciles packs with us every round, such as a remote contact, was then never asked,
    /// and it may be the only one that holds a locked pack at whose rim we stand.
    mutating func directoryRound(nowMs: UInt64, replica: Replica, into out: inout [GossipDirective]) {
        let answering = answering(links).sorted()
        guard !answering.isEmpty else { return }
        let peer = answering[spread.directoryCursor % answering.count]
        spread.directoryCursor = spread.directoryCursor % answering.count + 1
        sendDirectory(to: peer, nowMs: nowMs, replica: replica, into: &out)
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
    mutating func rimRound(nowMs: UInt64, replica: Replica, into out: inout [GossipDirective]) {
        guard !peers.passive.isEmpty, info.place != nil else { return }
        let (live, inside) = spread.packViews.liveScopes(replica, nowMs: nowMs, inside: info.place)
        let fences = live.indices.compactMap { inside[$0] && live[$0].locked ? live[$0].fence : nil }
        guard !fences.isEmpty else { return }
        for (p, c) in peers.passive.sorted(by: { $0.key < $1.key }) where !Self.isCoarse(c) && peers.reconciled[p] == nil {
            if let asked = peers.rimAsked[p], nowMs < asked &+ Self.rimRetryMs { continue }
            guard let place = NodeInfo.decode(c), fences.contains(where: { $0.contains(cell: place) }) else { continue }
            peers.noteRimAsked(p, nowMs: nowMs, capacity: Self.rimCapacity)
            sendDirectory(to: p, nowMs: nowMs, replica: replica, into: &out)
            return
        }
    }

    /// A link just came up: reconcile the directory with it at the next tick (this is also
    /// how packs created while a node had no peer, such as configured admin packs, spread).
    mutating func directoryOnNewLink(_ peer: PeerAddress) {
        if spread.newLinks.count < config.spread.findPackFanout { spread.newLinks.insert(peer) }
    }

    mutating func flushNewLinks(nowMs: UInt64, replica: Replica, into out: inout [GossipDirective]) {
        guard !spread.newLinks.isEmpty else { return }
        let peers = spread.newLinks.sorted()
        spread.newLinks = []
        for p in peers.prefix(config.spread.findPackFanout) where isLink(p) {
            sendDirectory(to: p, nowMs: nowMs, replica: replica, into: &out)
        }
    }

    mutating func onDirectory(_ r: ReconcileRound, from: PeerAddress, nowMs: UInt64, replica: Replica, into out: inout [GossipDirective]) {
        // Whose directory: the initiator's. An initiator names its cell; in an answer to our
        // own request we use our own view, whatever the answer claims.
        let perspective = r.initiator ? (r.asker?.cellOnly ?? NodeInfo()) : info.cellOnly
        if r.initiator && !isLink(from) { peers.rememberInbound(from, info: perspective, nowMs: nowMs) }
        // A pull whose whole-set fingerprint matches ours (about half of them): settled, and a
        // settled pull gets no answer (below), so no item list is built for it.
        if r.initiator, r.lower == .zero, r.ranges.count == 1, r.ranges[0].upper == .infinity,
            case .fingerprint(let theirs) = r.ranges[0].mode
        {
            let ours = directoryFingerprint(forCell: perspective.cell, nowMs: nowMs, replica: replica)
            if ours.wholeRange && ours.fingerprint == theirs { return }
        }
        // The answerer lists every pack it holds in the asker's directory, so that it offers
        // all of them, even one outside its own directory; the initiator (in an answer to its
        // own pull) lists only the packs in both directories, as when it opened the round. A
        // pack only the initiator may know thus settles, and one the answerer holds outside
        // its own directory stays a difference that the answer delivers.
        let items =
            r.initiator
            ? directoryItems(forCell: perspective.cell, nowMs: nowMs, replica: replica)
            : directoryItems(forCell: directoryCell(for: from), alsoIn: announcedCell(of: from), nowMs: nowMs, replica: replica)
        let answer = Reconciliation.answer(items, lower: r.lower, ranges: r.ranges)
        // A pull by the initiator: the answerer sends what the initiator's directory lacks; the
        // initiator asks for what it lacks. Neither pushes its own directory onto the other,
        // which may not be the other's (a node far away must not collect a campus's packs).
        if r.initiator && !answer.have.isEmpty {
            // At most `opsPerAnswer` per message: the rest comes in the next rounds.
            let ops = answer.have.prefix(config.spread.opsPerAnswer).compactMap { replica.op($0) }.filter { op in
                (replica.scope(op.packID) ?? replica.goneScope(op.packID)).map { mayReceive(perspective, pack: $0, isGenesis: true) }
                    ?? false
            }
            sendOps(ops, to: from, repair: true, nowMs: nowMs, into: &out)
        }
        if !r.initiator { sendWants(answer.need, to: from, nowMs: nowMs, into: &out) }
        if !answer.done {
            sendReconcile(
                pack: nil, lower: r.lower, ranges: answer.ranges, initiator: !r.initiator,
                directory: perspective, to: from, nowMs: nowMs, into: &out)
        }
    }

    // MARK: - FindPack

    /// Asks the links (or, before any link is up, the known peers and seeds) for a pack by
    /// name or id prefix, and reconciles the directory with them at once. Matching geneses
    /// arrive as ops; the caller watches the replica.
    public mutating func findPack(_ query: String, nowMs: UInt64, replica: Replica) -> [GossipDirective] {
        var out: [GossipDirective] = []
        let q = String(query.lowercased().prefix(Self.maxFindQuery))
        guard !q.isEmpty else { return [] }
        var targets = links
        if targets.isEmpty { targets = peers.passive.keys.sorted() + membership.seeds }
        for p in targets.prefix(config.spread.findPackFanout) {
            send(.findPack(query: q), to: p, nowMs: nowMs, into: &out)
            sendDirectory(to: p, nowMs: nowMs, replica: replica, into: &out)
        }
        promptTickIfBusy(nowMs: nowMs, into: &out)
        finish(nowMs: nowMs, into: &out)
        return out
    }

    mutating func onFindPack(query: String, from: PeerAddress, nowMs: UInt64, replica: Replica, into out: inout [GossipDirective]) {
        guard !query.isEmpty, query.utf8.count <= Self.maxFindQuery else { stats.drop(.malformedMessage); return }
        let who = peerInfo(from) ?? NodeInfo()
        var ops: [SignedOp] = []
        // An invite-only pack answers only a query naming its whole id (a join code's).
        for p in replica.findPacks(query, nowMs: nowMs, limit: config.spread.findPackMatches)
        where p.isPrivate ? query == p.id.hex : mayReceive(who, pack: p.scope, isGenesis: true) {
            ops += replica.directoryOps(of: p.id).prefix(config.spread.opsPerAnswer / config.spread.findPackMatches)
        }
        if !ops.isEmpty { sendOps(ops, to: from, repair: true, nowMs: nowMs, into: &out) }
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
