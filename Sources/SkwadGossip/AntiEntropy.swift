import SkwadModel
import SkwadReplica

/// Anti-entropy (PROTOCOL §11): each round a few of our live packs are reconciled with a
/// random link that may hold them, by range-based set reconciliation (Reconciliation.swift,
/// the pure algorithm); answers are paginated (`opsPerAnswer`). The pack directory uses
/// the same rounds (Directory.swift).
/// A reconciliation we started and have had no answer to yet (this round's only: at most
/// `reconPacksPerRound`).
struct ReconAsked: Hashable, Sendable {
    let pack: PackID
    let peer: PeerAddress
}

/// A reconciliation round's one draw (`preferredLink`): whether it asks any link that may
/// hold a pack rather than the least recently reconciled, and a random order of the links.
struct ReconDraw: Sendable {
    let anyLink: Bool
    let salt: UInt64

    /// A round's draw: any link one round in 8.
    static func next(_ rng: inout SplitMix) -> ReconDraw { ReconDraw(anyLink: rng.next() % 8 == 0, salt: rng.next()) }

    /// The link's place in the round's order: its address hashed (FNV-1a) from the salt, then
    /// mixed (a hash of the string itself would differ from process to process).
    func rank(_ p: PeerAddress) -> UInt64 {
        var h = 0xcbf2_9ce4_8422_2325 ^ salt
        for b in p.value.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        h ^= h >> 33; h &*= 0xff51_afd7_ed55_8ccd; h ^= h >> 33
        return h
    }
}

/// What reconciliation reads of the engine besides the peer table and the replica.
struct ReconInputs {
    /// Our own info (the asker we name, the packs we may hold).
    let info: NodeInfo
    let config: GossipConfig.Spread
    let nowMs: UInt64
}

extension Spread {
    /// Each round: the last round's unanswered reconciliations counted as misses, then the
    /// next `reconPacksPerRound` live packs we may hold ourselves, each reconciled with a link
    /// that may hold it too (`preferredLink`), and every pack whose fence we stand in and need
    /// a contact inside (`farFences`), with such a contact. The caller holds the round's steps
    /// (`hold`) so that those to one link go out together (one `Reconciles`).
    mutating func reconcileRound(
        peers: inout PeerTable, rng: inout SplitMix, farFences: [Geofence], replica: Replica, stats: inout GossipStats, _ x: ReconInputs
    ) -> [SpreadAction] {
        for asked in reconUnanswered { peers[reconMisses: asked.peer] = min(1000, (peers.reconMisses[asked.peer] ?? 0) + 1) }
        reconUnanswered.removeAll(keepingCapacity: true)
        let links = peers.links
        guard !links.isEmpty else { return [] }
        let draw = ReconDraw.next(&rng)
        // `mayReceive(info, pack:, isGenesis: false)` of each live pack, our cell's place in
        // its fence cached.
        let info = x.info
        let (live, inside) = packViews.liveScopes(replica, nowMs: x.nowMs, inside: info.place)
        let mine = live.indices.filter { live[$0].locked ? inside[$0] : inside[$0] || info.subscribed(live[$0].id) }.map { live[$0] }
        guard !mine.isEmpty else { return [] }
        var acts: [SpreadAction] = []
        // Round robin over our packs (sorted by id), so that none waits longer than
        // ceil(packs / reconPacksPerRound) rounds.
        let start = reconCursor % mine.count
        reconCursor = start + x.config.reconPacksPerRound
        let turn = min(x.config.reconPacksPerRound, mine.count)
        for k in 0..<turn {
            acts += reconcile(mine[(start + k) % mine.count], among: links, draw: draw, peers: peers, replica: replica, stats: &stats, x)
        }
        // A pack none of our active links may hold: we are off its tree. Pushes ride active
        // links, and vicinity links only from a sender with fewer than `activeEnough` active
        // members of the pack, so in a crowded pack reconciliation may be our only feed. Such a
        // pack is reconciled every round, not only on its turn, which for a quiet node comes
        // every ⌈packs / 4⌉ rounds of up to 15 s. One whose fence needs a contact is reconciled
        // with the contact below.
        for k in turn..<mine.count {
            let pack = mine[(start + k) % mine.count]
            guard !peers.isOnTree(pack), !(pack.fence.map { farFences.contains($0) } ?? false) else { continue }
            acts += reconcile(pack, among: links, draw: draw, peers: peers, replica: replica, stats: &stats, x)
        }
        // A pack whose fence we stand in but whose members nearer its centre we reach only
        // through a remote contact (`fencesNeedingContact`: a rim's island, or the member
        // nearest the centre): reconciled with that contact every round, not only on its turn.
        // The contact pushes nothing to us (we are not among its links), and a pack's turn
        // comes every ⌈packs / 4⌉ rounds, up to 15 s apart when quiet (PROTOCOL §11).
        guard !farFences.isEmpty, !peers.remote.isEmpty else { return acts }
        for i in live.indices where inside[i] {
            guard let fence = live[i].fence, farFences.contains(fence) else { continue }
            let onTurn = (0..<turn).contains { mine[(start + $0) % mine.count].id == live[i].id }
            guard !onTurn else { continue }
            let contacts = Vicinity.remoteContacts(inside: fence, peers: peers, ours: info)
            acts += reconcile(live[i], among: contacts, draw: draw, peers: peers, replica: replica, stats: &stats, x)
        }
        return acts
    }

    /// Reconciles one pack with a link among `candidates` that may hold it (`preferredLink`).
    /// Not with a link that has not proven itself (NeedToKnow.swift): it would be told a
    /// coarse cell as the asker's and could not apply the fence rule to it.
    mutating func reconcile(
        _ state: PackScope, among candidates: [PeerAddress], draw: ReconDraw, peers: PeerTable, replica: Replica,
        stats: inout GossipStats, _ x: ReconInputs
    ) -> [SpreadAction] {
        let pack = state.id
        let eligible = candidates.filter {
            peers.isProven($0) && (peers.info(of: $0).map { mayReceive($0, pack: state, isGenesis: false) } ?? false)
        }
        guard let peer = peers.preferredLink(among: eligible, draw: draw) else { return [] }
        stats.reconciliations += 1
        reconUnanswered.insert(ReconAsked(pack: pack, peer: peer))
        let ranges = Reconciliation.initiate(visibleItems(replica, pack: pack))
        return steps(pack: pack, lower: .zero, ranges: ranges, initiator: true, to: peer, info: x.info)
    }

    mutating func noteKeySync(_ pack: PackID, replica: Replica) {
        guard replica.pack(pack)?.isPrivate == true, !keySynced.contains(pack), keySynced.count < GossipEngine.keySyncCapacity
        else { return }
        keySynced.insert(pack)
        keySyncNew.append(pack)
    }

    /// Ranges, split over as many steps as needed (each self-contained, each fitting one
    /// datagram to `to`). `pack` nil with `directory` set: the pack directory as seen from
    /// `directory`'s cell (§11a). An initiator's pack step names us as the asker (`info`'s
    /// cell, and the pack if we follow it), so that a peer that does not count us among its
    /// links can apply the fence rule.
    mutating func steps(
        pack: PackID?, lower: Reconciliation.Bound, ranges: [Reconciliation.RangeMessage], initiator: Bool,
        directory: NodeInfo? = nil, to: PeerAddress, info: NodeInfo
    ) -> [SpreadAction] {
        var acts: [SpreadAction] = []
        var start = lower, chunk: [Reconciliation.RangeMessage] = [], size = 60
        func flush(_ spread: inout Spread) {
            guard !chunk.isEmpty else { return }
            var r = ReconcileRound(pack: nil, directory: false, initiator: initiator, lower: start, ranges: chunk, asker: nil)
            if let directory {
                r.directory = true
                r.asker = directory
            } else if let pack, initiator {
                r.pack = pack
                let subs = info.subscribed(pack) ? Set([NodeInfo.prefix(pack)]) : []
                r.asker = NodeInfo(cell: info.cell, subscriptions: subs)
            } else if let pack {
                r.pack = pack
            }
            acts += spread.emit(r, to: to)
            start = chunk.last!.upper
            chunk = []
            size = 60
        }
        for r in ranges {
            if size + r.estimatedSize > to.maxPlaintext - 40 { flush(&self) }
            chunk.append(r)
            size += r.estimatedSize
        }
        flush(&self)
        return acts
    }

    /// One reconciliation step: held while `hold` is on (a pack's step), else sent.
    mutating func emit(_ r: ReconcileRound, to: PeerAddress) -> [SpreadAction] {
        guard r.pack != nil, reconOutbox != nil else { return [.reconcile(.reconcile(r), to: to)] }
        reconOutbox!.append((to, r, (try? r.wire.serializedBytes() as [UInt8])?.count ?? Frame.maxPlaintext))
        return []
    }

    /// A reconciliation step of a pack from `from` (the directory's are the directory part's):
    /// it ends our round with `from` when it answers one, places an asker that is no link of
    /// ours (inbound), and is answered: with the genesis asked for when we never heard of the
    /// pack, else with the ops it lacks (paginated: at most `opsPerAnswer` ops and ids per
    /// message; later rounds bring the rest), the ids we lack, and the next step, or "settled".
    mutating func reconciled(
        _ r: ReconcileRound, pack: PackID, from: PeerAddress, peers: inout PeerTable, replica: Replica, stats: inout GossipStats,
        _ x: ReconInputs
    ) -> [SpreadAction] {
        if !r.initiator, reconUnanswered.remove(ReconAsked(pack: pack, peer: from)) != nil {
            peers[reconMisses: from] = 0
            // The first answer to our whole-set fingerprint says "settled": the link holds no op
            // of the pack we lack. For an invite-only pack that is a key sync (PROTOCOL §3b).
            if r.ranges.isEmpty { noteKeySync(pack, replica: replica) }
        }
        if r.initiator, var asker = r.asker, !peers.isLink(from) {
            if let known = peers.inbound[from]?.info, known.cell == asker.cell { asker.subscriptions.formUnion(known.subscriptions) }
            peers.rememberInbound(from, info: asker, nowMs: x.nowMs)
        }
        if !replica.hasPack(pack) && r.initiator && !replica.contains(pack) {
            // A pack we never heard of (its genesis passed us by): ask for the genesis, whose
            // id is the pack id; the next round reconciles the rest.
            return [.send(.want(ids: [pack.bytes], graft: false), to: from)]
        }
        guard let state = replica.scope(pack), replica.isLive(pack, nowMs: x.nowMs),
            let theirs = peers.info(of: from), mayReceive(theirs, pack: state, isGenesis: false)
        else { return [] }
        let answer = Reconciliation.answer(visibleItems(replica, pack: pack), lower: r.lower, ranges: r.ranges)
        var acts: [SpreadAction] = []
        if !answer.have.isEmpty {
            acts.append(.ops(answer.have.prefix(x.config.opsPerAnswer).compactMap { replica.op($0) }, to: from, repair: true))
        }
        acts += wants(answer.need, to: from, config: x.config)
        if !answer.done {
            acts += steps(pack: pack, lower: r.lower, ranges: answer.ranges, initiator: !r.initiator, to: from, info: x.info)
        } else if r.initiator, state.isPrivate, holdsUnderEmbargo(pack, replica: replica) {
            // Not settled for an invite-only pack while one of its ops is under our embargo: it
            // is missing from `visibleItems`, and the initiator would count a key sync without
            // it (the Alpha's rotation on its stem; PROTOCOL §3b). The round goes unanswered and
            // is asked again once the op is fluffed.
            stats.settledWithheld += 1
        } else if r.initiator {
            // Settled: an empty answer tells the initiator its round arrived and ended (§11).
            acts += emit(ReconcileRound(pack: pack, directory: false, initiator: false, lower: r.lower, ranges: [], asker: nil), to: from)
        }
        return acts
    }

    /// Starts holding pack reconciliation steps; false when already holding (the caller that
    /// started it flushes).
    mutating func hold() -> Bool {
        guard reconOutbox == nil else { return false }
        reconOutbox = []
        return true
    }

    /// The held steps: per link (in the order first held), as many to a `Reconciles` as fit
    /// one datagram, at most `Message.maxBatched`; a step alone goes as `Reconcile`.
    mutating func flushHeld() -> [SpreadAction] {
        guard let held = reconOutbox else { return [] }
        reconOutbox = nil
        var order: [PeerAddress] = [], byLink: [PeerAddress: [(round: ReconcileRound, size: Int)]] = [:]
        for h in held {
            if byLink[h.to] == nil { order.append(h.to) }
            byLink[h.to, default: []].append((h.round, h.size))
        }
        var acts: [SpreadAction] = []
        for peer in order {
            // Each step costs its own size plus its tag and length (at most 4 bytes), and so
            // does the batch itself.
            var chunk: [ReconcileRound] = [], size = 4
            func send() {
                if chunk.count == 1 {
                    acts.append(.reconcile(.reconcile(chunk[0]), to: peer))
                } else if chunk.count > 1 {
                    acts.append(.reconcile(.reconciles(chunk), to: peer))
                }
                chunk = []
                size = 4
            }
            for (r, s) in byLink[peer]! {
                if !chunk.isEmpty && (size + s + 4 > peer.maxPlaintext || chunk.count == Message.maxBatched) { send() }
                chunk.append(r)
                size += s + 4
            }
            send()
        }
        return acts
    }

    /// Asks for ops by full id: at most `opsPerAnswer` per call, 30 per `Want` (so that each
    /// fits one datagram); later rounds bring the rest.
    func wants(_ ids: [OpID], to: PeerAddress, config: GossipConfig.Spread) -> [SpreadAction] {
        let need = ids.prefix(config.opsPerAnswer)
        return stride(from: need.startIndex, to: need.endIndex, by: 30).map { chunk in
            .send(.want(ids: need[chunk..<min(need.endIndex, chunk + 30)].map(\.bytes), graft: false), to: to)
        }
    }
}

/// Anti-entropy's calls from the engine: the round, a step heard, the steps the directory
/// part sends; the work is the spread part's (above).
extension GossipEngine {
    func reconInputs(_ nowMs: UInt64) -> ReconInputs { ReconInputs(info: info, config: config.spread, nowMs: nowMs) }

    /// The reconciliation round (`Round.reconcile`, `Spread.reconcileRound`). A round none of
    /// whose reconciliations went unanswered lets the next one wait longer (Backoff); one that
    /// lost a message on the way (no answer from a peer we asked, not even "settled") is
    /// repeated within `reconIntervalMs`: silence is no proof that nothing changed.
    mutating func reconcileRound(nowMs: UInt64, replica: Replica, into out: inout [GossipDirective]) {
        let opened = holdReconciles()
        let acts = spread.reconcileRound(
            peers: &peers, rng: &rng, farFences: vicinity.farFences, replica: replica, stats: &stats, reconInputs(nowMs))
        carry(acts, nowMs: nowMs, replica: replica, into: &out)
        if opened { flushReconciles(nowMs: nowMs, replica: replica, into: &out) }
    }

    /// Whether an invite-only pack had a key sync with a link since this engine started.
    public func isKeySynced(_ pack: PackID) -> Bool { spread.keySynced.contains(pack) }

    /// The invite-only packs that had their first key sync since the last call.
    public mutating func takeKeySynced() -> [PackID] {
        defer { spread.keySyncNew = [] }
        return spread.keySyncNew
    }

    /// Reconciles one pack now with a link that may hold it (a member about to write in an
    /// invite-only pack wants its key sync without waiting for the pack's turn). Empty when
    /// no link may hold it.
    public mutating func syncPack(_ pack: PackID, nowMs: UInt64, replica: Replica) -> [GossipDirective] {
        guard let scope = replica.scope(pack), replica.isLive(pack, nowMs: nowMs) else { return [] }
        var out: [GossipDirective] = []
        let draw = ReconDraw.next(&rng)
        let acts = spread.reconcile(scope, among: links, draw: draw, peers: peers, replica: replica, stats: &stats, reconInputs(nowMs))
        carry(acts, nowMs: nowMs, replica: replica, into: &out)
        finish(nowMs: nowMs, into: &out)
        return out
    }

    /// Sends ranges (`Spread.steps`): the directory part's steps.
    mutating func sendReconcile(
        pack: PackID?, lower: Reconciliation.Bound, ranges: [Reconciliation.RangeMessage], initiator: Bool,
        directory: NodeInfo? = nil, to: PeerAddress, nowMs: UInt64, replica: Replica, into out: inout [GossipDirective]
    ) {
        let acts = spread.steps(pack: pack, lower: lower, ranges: ranges, initiator: initiator, directory: directory, to: to, info: info)
        carry(acts, nowMs: nowMs, replica: replica, into: &out)
    }

    /// A reconciliation step: a link that takes part in reconciliation (either side, pack or
    /// directory) can be counted as a contact inside its fences (`isContact`); a pack's step is
    /// the spread part's (`Spread.reconciled`), the directory's the directory part's.
    mutating func onReconcile(_ r: ReconcileRound, from: PeerAddress, nowMs: UInt64, replica: Replica, into out: inout [GossipDirective]) {
        if isLink(from) && peers.reconMisses[from] == nil { peers[reconMisses: from] = 0 }
        guard let pack = r.pack else { onDirectory(r, from: from, nowMs: nowMs, replica: replica, into: &out); return }
        let acts = spread.reconciled(r, pack: pack, from: from, peers: &peers, replica: replica, stats: &stats, reconInputs(nowMs))
        carry(acts, nowMs: nowMs, replica: replica, into: &out)
    }

    /// Starts holding pack reconciliation steps (`Spread.hold`).
    mutating func holdReconciles() -> Bool { spread.hold() }

    /// Sends the held steps (`Spread.flushHeld`).
    mutating func flushReconciles(nowMs: UInt64, replica: Replica, into out: inout [GossipDirective]) {
        carry(spread.flushHeld(), nowMs: nowMs, replica: replica, into: &out)
    }

    /// Asks for ops by full id (`Spread.wants`): the directory part's wants.
    mutating func sendWants(_ ids: [OpID], to: PeerAddress, nowMs: UInt64, replica: Replica, into out: inout [GossipDirective]) {
        carry(spread.wants(ids, to: to, config: config.spread), nowMs: nowMs, replica: replica, into: &out)
    }
}

extension PeerTable {
    /// Those of `links` that left the fewest of our reconciliations unanswered since they last
    /// answered one, in the given order.
    func answering(_ links: [PeerAddress]) -> [PeerAddress] {
        let fewest = links.map { reconMisses[$0] ?? 0 }.min() ?? 0
        return links.filter { (reconMisses[$0] ?? 0) == fewest }
    }

    /// A link to reconcile with: among those that left the fewest of our reconciliations
    /// unanswered since they last answered one, the one that sent us a `Reconcile` least
    /// recently (never first; ties at random); one round in 8 at random among all (so that a
    /// link that lost a message gets asked again). A link that answers pings but drops every
    /// reconciliation (`hostile.toml`'s adversaries; an eclipse target's nearest claimed to
    /// stand in its fences) wasted most of a node's rounds: it is now asked about one round in
    /// 8 times its share. Least recently first, not at random: a node at a fence's rim may
    /// hold one link into the rest of the pack besides a few neighbours as far out as itself,
    /// which reconcile with it every round; drawn at random, the one link was drawn one turn in
    /// three, and a pack's turn comes every few rounds (PROTOCOL §11).
    /// The 1 in 8 and the ties are the round's `draw`, the same for all its packs: they then go
    /// to as few links as may hold them, and their steps travel together (`Reconciles`). Each
    /// pack's odds stay those of a draw of its own.
    func preferredLink(among eligible: [PeerAddress], draw: ReconDraw) -> PeerAddress? {
        guard !eligible.isEmpty else { return nil }
        let pool: [PeerAddress]
        if draw.anyLink {
            pool = eligible
        } else {
            let answering = answering(eligible)
            let oldest = answering.map { reconciled[$0] ?? 0 }.min() ?? 0
            pool = answering.filter { (reconciled[$0] ?? 0) == oldest }
        }
        return pool.min { draw.rank($0) < draw.rank($1) }
    }

    /// Does an active link of ours claim a cell from which it may hold `pack` (§12)? If none
    /// does, the tree's pushes reach us only by chance (`Spread.push`).
    func isOnTree(_ pack: PackScope) -> Bool {
        active.values.contains { mayReceive($0.info, pack: pack, isGenesis: false) }
    }
}
