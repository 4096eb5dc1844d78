import SkwadModel
import SkwadReplica

/// Need to know (PROTOCOL §9, "Need to know"; SECURITY "Crawling"): what a node tells a peer
/// about itself and its neighbourhood depends on what the peer has shown.
///
/// | audience   | who                                                        | is told                      |
/// |------------|------------------------------------------------------------|------------------------------|
/// | `link`     | an active member, a remote contact, a link that reconciled | our info, names (8) once it reconciled |
/// | `proven`   | not a link, but it sent us a `Reconcile` (an inbound peer) | our cell (no subscriptions), names (8) |
/// | `stranger` | anyone else                                                 | a precision-4 cell, no names |
///
/// A stranger's `Vicinity` message places nobody (Vicinity.swift); an honest peer is proven
/// within a tick, since every new link's directory is reconciled at once (§11a), and then
/// exchanges again at once (`onProof`). Before these rules a crawler that claimed
/// the cell of each node it asked (so entering its vicinity view) mapped every address of a
/// network to its 150 m cell within a minute (`StrangerCrawlTests`).
extension PeerTable {
    /// Who `p` is to us, by what it has shown (the table above).
    func audience(of p: PeerAddress) -> GossipEngine.Audience {
        if active.keys.contains(p) || remote.keys.contains(p) { return .link }
        guard reconciled[p] != nil else { return .stranger }
        return isLink(p) ? .link : .proven
    }

    func isProven(_ p: PeerAddress) -> Bool { audience(of: p) != .stranger }

    /// The cell our directory pulls with `p` are seen from (§11a): ours (`cell`), or none with
    /// a stranger, so both sides list only the packs every node's directory holds (the
    /// unfenced ones) and the round settles. A coarse cell's directory reaches every unlocked
    /// fence near its centre: the answerer would push packs the puller was never meant to
    /// hold, and the two lists would never match.
    func directoryCell(for p: PeerAddress, ours cell: String?) -> String? { isProven(p) ? cell : nil }
}

extension GossipEngine {
    enum Audience: Sendable { case link, proven, stranger }

    func audience(of p: PeerAddress) -> Audience { peers.audience(of: p) }

    func isProven(_ p: PeerAddress) -> Bool { peers.isProven(p) }

    /// What `p` may learn of us.
    func info(for p: PeerAddress) -> NodeInfo {
        switch audience(of: p) {
        case .link: info
        case .proven: info.cellOnly
        case .stranger: Self.coarse(info)
        }
    }

    static func coarse(_ i: NodeInfo) -> NodeInfo { NodeInfo(cell: i.cell.map { String($0.prefix(strangerPrecision)) }) }

    /// A cell no finer than a stranger's places a peer nowhere at the scale of a vicinity,
    /// a fence or a remote contact.
    static func isCoarse(_ cell: String?) -> Bool { (cell?.count ?? 0) <= strangerPrecision }

    /// `m` as `to` may see it: our own info cut to its audience in every message that
    /// carries it and is not a request to become a link (`Join`, `Neighbor`, an accepting
    /// `NeighborReply`: those go to peers that become our links); the cells of a shuffle
    /// answer cut for a stranger.
    func toldTo(_ m: Message, to: PeerAddress) -> Message {
        switch m {
        case .ping(let seq, let i):
            return i == nil ? m : .ping(seq: seq, info: info(for: to))
        case .ack(let seq, let i, let notMember):
            return i == nil ? m : .ack(seq: seq, info: info(for: to), notMember: notMember)
        case .interest:
            return .interest(info(for: to))
        case .neighborReply(let accepted, _, _):
            return accepted ? m : .neighborReply(accepted: false, info: info(for: to))
        case .vicinity(var v):
            v.info = info(for: to)
            // A member that never reconciled is named nobody, as a stranger (whose answer
            // `strangerAnswer` already cut to its budget) is.
            if !hearsNamesInFull(to) && audience(of: to) == .link { v.peers = [] }
            return .vicinity(v)
        case .reconcile(let r):
            return .reconcile(toldTo(r, to: to))
        case .reconciles(let rounds):
            return .reconciles(rounds.map { toldTo($0, to: to) })
        case .shuffle(let named):
            return hearsNamesInFull(to) ? m : .shuffle(Self.coarse(named))
        case .shuffleReply(let named):
            return hearsNamesInFull(to) ? m : .shuffleReply(Self.coarse(named))
        default:
            return m
        }
    }

    /// Whether `p` may learn third parties' cells as we know them (a `Shuffle`'s or
    /// `ShuffleReply`'s entries, a `Vicinity` answer's names): only once it has sent us a
    /// `Reconcile` (`peers.reconciled`), as every honest link does within a tick of linking
    /// (its directory pull, §11a). A stranger, and an active member or remote contact that
    /// never reconciled (a crawler joining from address after address), is told a shuffle's
    /// addresses with cells cut to `strangerPrecision` and no vicinity names. Whatever the
    /// network group: honest peers of one /24 (a LAN, the loopback of one machine) reconcile
    /// as any others do.
    func hearsNamesInFull(_ p: PeerAddress) -> Bool { peers.reconciled[p] != nil }

    /// Shuffle entries with their cells cut to a stranger's precision.
    static func coarse(_ named: [PeerRef]) -> [PeerRef] {
        named.map { PeerRef(address: $0.address, cell: coarse(NodeInfo(cell: $0.cell)).cell) }
    }

    /// A reconciliation step as `to` may see it: the asker's cell coarse for a stranger, its
    /// subscriptions for links only.
    func toldTo(_ r: ReconcileRound, to: PeerAddress) -> ReconcileRound {
        guard var a = r.asker else { return r }
        var r = r
        let aud = audience(of: to)
        if aud == .stranger { a.cell = r.directory ? nil : Self.coarse(a).cell }
        if aud != .link { a.subscriptions = [] }
        r.asker = a
        return r
    }

    /// A peer sent us a `Reconcile`: proven from now on (`reconciledCapacity`, the least
    /// recently reconciled forgotten first). True the first time.
    @discardableResult
    mutating func markReconciled(_ p: PeerAddress, nowMs: UInt64) -> Bool {
        peers.noteReconciled(p, nowMs: nowMs, capacity: Self.reconciledCapacity)
    }

    /// A peer just proved itself by its first `Reconcile`. If that pulled our directory
    /// (`pulled`), we pull its directory back, so that it holds us proven too (a settled
    /// pull has no answer, and our own pull of a new link may wait or be left out: at most
    /// `findPackFanout` per tick; without the pull back a vicinity link could stay unproven
    /// to its peer, and posts after an idle window needed grafts, `IdleThenPostTests`).
    /// If it is a vicinity entry of ours, or pulled us, and we know only its coarse cell, it
    /// has heard only ours too: we ask it now, in full, whatever exchange is under way, so an
    /// honest pair exchanges in full within a tick of its first directory pull, and a peer
    /// that counts us among its nearest is named to others with its own cell (the rim members
    /// of a fence hear of each other through a common neighbour, `ContactInsideOwnFenceTests`).
    /// One whose fine cell we hold already (it spoke to us as a link, or a link named it) is
    /// asked in its turn of the vicinity round: asking every proven entry at once sent twice
    /// the vicinity messages of a 50-node herd (`scripts/bench-guard.sh`, docs/BENCHMARKS.md).
    mutating func onProof(_ p: PeerAddress, pulled: Bool, nowMs: UInt64, replica: Replica, into out: inout [GossipDirective]) {
        if pulled { sendDirectory(to: p, nowMs: nowMs, replica: replica, into: &out) }
        let entry = peers.vicinity[p]
        guard pulled || entry != nil, Self.isCoarse(peers.cell(of: p)) else { return }
        if entry != nil && entry?.askedMs == nil { peers[vicinity: p]?.askedMs = nowMs }
        let inbound = peers.inbound[p].flatMap { Self.isCoarse($0.info.cell) ? nil : $0.info.place }
        let near = entry?.info.place ?? inbound ?? info.place
        send(vicinityMessage(for: near, to: p, reply: false), to: p, nowMs: nowMs, into: &out)
    }

    /// The fence of a live pack we hold whose centre lies in `cell` (the precision-7 cell a
    /// remote-contact request names, §9).
    mutating func fenceCentred(at cell: String, replica: Replica, nowMs: UInt64) -> Geofence? {
        guard cell.count == 7 else { return nil }
        let (live, _) = spread.packViews.liveScopes(replica, nowMs: nowMs, inside: info.place)
        return live.lazy.compactMap(\.fence).first { Geohash.encode($0.center, precision: 7) == cell }
    }
}

/// What one network group (`PeerAddress.netgroup`: an IPv4 /24, an IPv6 /48) may ask of our
/// vicinity per window of `windowMs`: answers naming peers to its strangers (`names`), and
/// distinct `target` cells from any of its peers but our active members (`targets`). Past
/// either, the request is answered as if it named no target, or naming nobody, and counted
/// (`vicinityLimited`). At most `capacity` groups are tracked, the one whose window began
/// first forgotten when full.
struct StrangerBudget: Sendable {
    struct Group: Sendable { var sinceMs: UInt64; var names = 0; var targets: [String] = [] }
    private(set) var groups: [String: Group] = [:]

    private mutating func current(_ group: String, nowMs: UInt64) -> Group {
        if let g = groups[group], nowMs < g.sinceMs &+ Self.windowMs { return g }
        groups.makeRoom(for: group, capacity: Self.capacity) { $0.sinceMs }
        return Group(sinceMs: nowMs)
    }

    mutating func mayName(group: String, nowMs: UInt64) -> Bool {
        var g = current(group, nowMs: nowMs)
        defer { groups[group] = g }
        guard g.names < Self.names else { return false }
        g.names += 1
        return true
    }

    mutating func mayWalk(group: String, target: String, nowMs: UInt64) -> Bool {
        var g = current(group, nowMs: nowMs)
        defer { groups[group] = g }
        if g.targets.contains(target) { return true }
        guard g.targets.count < Self.targets else { return false }
        g.targets.append(target)
        return true
    }
}
