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

extension GossipEngine {
    /// Each round: the next `reconPacksPerRound` live packs we may hold ourselves, each
    /// reconciled with a link that may hold it too (`preferredLink`), and every pack whose
    /// fence we stand in and need a contact inside, with such a contact.
    /// A round none of whose reconciliations went unanswered lets the next one wait longer
    /// (Backoff); one that lost a message on the way (no answer from a peer we asked, not even
    /// "settled") is repeated within `reconIntervalMs`: silence is no proof that nothing changed.
    mutating func reconcileRound(nowMs: UInt64, replica: Replica, into out: inout [GossipDirective]) {
        // The round's steps to one link go out together (one `Reconciles`), and come back so.
        let opened = holdReconciles()
        defer { if opened { flushReconciles(nowMs: nowMs, into: &out) } }
        for asked in spread.reconUnanswered { peers[reconMisses: asked.peer] = min(1000, (peers.reconMisses[asked.peer] ?? 0) + 1) }
        spread.reconUnanswered.removeAll(keepingCapacity: true)
        let links = self.links
        guard !links.isEmpty else { return }
        let draw = ReconDraw.next(&rng)
        // `mayReceive(info, pack:, isGenesis: false)` of each live pack, our cell's place in
        // its fence cached.
        let (live, inside) = spread.packViews.liveScopes(replica, nowMs: nowMs, inside: info.place)
        let mine = live.indices.filter { live[$0].locked ? inside[$0] : inside[$0] || info.subscribed(live[$0].id) }.map { live[$0] }
        guard !mine.isEmpty else { return }
        // Round robin over our packs (sorted by id), so that none waits longer than
        // ceil(packs / reconPacksPerRound) rounds.
        let start = spread.reconCursor % mine.count
        spread.reconCursor = start + config.spread.reconPacksPerRound
        let turn = min(config.spread.reconPacksPerRound, mine.count)
        for k in 0..<turn {
            reconcile(mine[(start + k) % mine.count], among: links, draw: draw, nowMs: nowMs, replica: replica, into: &out)
        }
        // A pack none of our active links may hold: we are off its tree. Pushes ride active
        // links, and vicinity links only from a sender with fewer than `activeEnough` active
        // members of the pack, so in a crowded pack reconciliation may be our only feed. Such a
        // pack is reconciled every round, not only on its turn, which for a quiet node comes
        // every ⌈packs / 4⌉ rounds of up to 15 s. One whose fence needs a contact is reconciled
        // with the contact below.
        for k in turn..<mine.count {
            let pack = mine[(start + k) % mine.count]
            guard !isOnTree(pack), !(pack.fence.map { vicinity.farFences.contains($0) } ?? false) else { continue }
            reconcile(pack, among: links, draw: draw, nowMs: nowMs, replica: replica, into: &out)
        }
        // A pack whose fence we stand in but whose members nearer its centre we reach only
        // through a remote contact (`fencesNeedingContact`: a rim's island, or the member
        // nearest the centre): reconciled with that contact every round, not only on its turn.
        // The contact pushes nothing to us (we are not among its links), and a pack's turn
        // comes every ⌈packs / 4⌉ rounds, up to 15 s apart when quiet (PROTOCOL §11).
        guard !vicinity.farFences.isEmpty, !peers.remote.isEmpty else { return }
        for i in live.indices where inside[i] {
            guard let fence = live[i].fence, vicinity.farFences.contains(fence) else { continue }
            let onTurn = (0..<turn).contains { mine[(start + $0) % mine.count].id == live[i].id }
            guard !onTurn else { continue }
            reconcile(live[i], among: remoteContacts(inside: fence), draw: draw, nowMs: nowMs, replica: replica, into: &out)
        }
    }

    mutating func noteKeySync(_ pack: PackID, replica: Replica) {
        guard replica.pack(pack)?.isPrivate == true, !spread.keySynced.contains(pack),
            spread.keySynced.count < Self.keySyncCapacity
        else { return }
        spread.keySynced.insert(pack)
        spread.keySyncNew.append(pack)
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
        reconcile(scope, among: links, draw: ReconDraw.next(&rng), nowMs: nowMs, replica: replica, into: &out)
        finish(nowMs: nowMs, into: &out)
        return out
    }

    /// Does an active link of ours claim a cell from which it may hold `pack` (§12)? If none
    /// does, the tree's pushes reach us only by chance (`forward`).
    func isOnTree(_ pack: PackScope) -> Bool {
        peers.active.values.contains { mayReceive($0.info, pack: pack, isGenesis: false) }
    }

    /// Reconciles one pack with a link among `candidates` that may hold it (`preferredLink`).
    private mutating func reconcile(
        _ state: PackScope, among candidates: [PeerAddress], draw: ReconDraw, nowMs: UInt64, replica: Replica,
        into out: inout [GossipDirective]
    ) {
        let pack = state.id
        // Not with a link that has not proven itself (NeedToKnow.swift): it would be told a
        // coarse cell as the asker's and could not apply the fence rule to it.
        let eligible = candidates.filter { isProven($0) && (peerInfo($0).map { mayReceive($0, pack: state, isGenesis: false) } ?? false) }
        guard let peer = preferredLink(among: eligible, draw: draw) else { return }
        stats.reconciliations += 1
        spread.reconUnanswered.insert(ReconAsked(pack: pack, peer: peer))
        sendReconcile(
            pack: pack, lower: .zero, ranges: Reconciliation.initiate(visibleItems(replica, pack: pack)), initiator: true, to: peer,
            nowMs: nowMs, into: &out)
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
            let answering = peers.answering(eligible)
            let oldest = answering.map { peers.reconciled[$0] ?? 0 }.min() ?? 0
            pool = answering.filter { (peers.reconciled[$0] ?? 0) == oldest }
        }
        return pool.min { draw.rank($0) < draw.rank($1) }
    }

    /// Sends ranges, split over as many datagrams as needed (each self-contained).
    /// `pack` nil with `directory` set: the pack directory as seen from `directory`'s cell (§11a).
    mutating func sendReconcile(
        pack: PackID?, lower: Reconciliation.Bound, ranges: [Reconciliation.RangeMessage], initiator: Bool,
        directory: NodeInfo? = nil, to: PeerAddress, nowMs: UInt64, into out: inout [GossipDirective]
    ) {
        var start = lower, chunk: [Reconciliation.RangeMessage] = [], size = 60
        func flush(_ engine: inout GossipEngine) {
            guard !chunk.isEmpty else { return }
            var r = ReconcileRound(pack: nil, directory: false, initiator: initiator, lower: start, ranges: chunk, asker: nil)
            if let directory {
                r.directory = true
                r.asker = directory
            } else if let pack, initiator {
                r.pack = pack
                // Who asks, so that a peer that does not count us among its links can apply the fence rule.
                let subs = engine.info.subscribed(pack) ? Set([NodeInfo.prefix(pack)]) : []
                r.asker = NodeInfo(cell: engine.info.cell, subscriptions: subs)
            } else if let pack {
                r.pack = pack
            }
            engine.emitReconcile(r, to: to, nowMs: nowMs, into: &out)
            start = chunk.last!.upper
            chunk = []; size = 60
        }
        for r in ranges {
            if size + r.estimatedSize > to.maxPlaintext - 40 { flush(&self) }
            chunk.append(r); size += r.estimatedSize
        }
        flush(&self)
    }

    mutating func onReconcile(_ r: ReconcileRound, from: PeerAddress, nowMs: UInt64, replica: Replica, into out: inout [GossipDirective]) {
        // A link that takes part in reconciliation (either side, pack or directory) can be
        // counted as a contact inside its fences (`isContact`).
        if isLink(from) && peers.reconMisses[from] == nil { peers[reconMisses: from] = 0 }
        guard let pack = r.pack else { onDirectory(r, from: from, nowMs: nowMs, replica: replica, into: &out); return }
        if !r.initiator, spread.reconUnanswered.remove(ReconAsked(pack: pack, peer: from)) != nil {
            peers[reconMisses: from] = 0
            // The first answer to our whole-set fingerprint says "settled": the link holds no op
            // of the pack we lack. For an invite-only pack that is a key sync (PROTOCOL §3b).
            if r.ranges.isEmpty { noteKeySync(pack, replica: replica) }
        }
        if r.initiator, var asker = r.asker, !isLink(from) {
            if let known = peers.inbound[from]?.info, known.cell == asker.cell { asker.subscriptions.formUnion(known.subscriptions) }
            peers.rememberInbound(from, info: asker, nowMs: nowMs)
        }
        if !replica.hasPack(pack) && r.initiator && !replica.contains(pack) {
            // A pack we never heard of (its genesis passed us by): ask for the genesis, whose
            // id is the pack id; the next round reconciles the rest.
            send(.want(ids: [pack.bytes], graft: false), to: from, nowMs: nowMs, into: &out)
            return
        }
        guard let state = replica.scope(pack), replica.isLive(pack, nowMs: nowMs),
            let theirs = peerInfo(from), mayReceive(theirs, pack: state, isGenesis: false)
        else { return }
        let answer = Reconciliation.answer(visibleItems(replica, pack: pack), lower: r.lower, ranges: r.ranges)
        // Paginated: at most `opsPerAnswer` ops and ids per message; later rounds bring the rest.
        if !answer.have.isEmpty {
            let ops = answer.have.prefix(config.spread.opsPerAnswer).compactMap { replica.op($0) }
            sendOps(ops, to: from, repair: true, nowMs: nowMs, into: &out)
        }
        sendWants(answer.need, to: from, nowMs: nowMs, into: &out)
        if !answer.done {
            sendReconcile(pack: pack, lower: r.lower, ranges: answer.ranges, initiator: !r.initiator, to: from, nowMs: nowMs, into: &out)
        } else if r.initiator, state.isPrivate, holdsUnderEmbargo(pack, replica: replica) {
            // Not settled for an invite-only pack while one of its ops is under our embargo: it
            // is missing from `visibleItems`, and the initiator would count a key sync without
            // it (the Alpha's rotation on its stem; PROTOCOL §3b). The round goes unanswered and
            // is asked again once the op is fluffed.
            stats.settledWithheld += 1
        } else if r.initiator {
            // Settled: an empty answer tells the initiator its round arrived and ended (§11).
            emitReconcile(
                ReconcileRound(pack: pack, directory: false, initiator: false, lower: r.lower, ranges: [], asker: nil), to: from,
                nowMs: nowMs, into: &out)
        }
    }

    /// Sends one reconciliation step, or holds a pack's step while `holdReconciles` is on.
    mutating func emitReconcile(_ r: ReconcileRound, to: PeerAddress, nowMs: UInt64, into out: inout [GossipDirective]) {
        if r.pack != nil, spread.reconOutbox != nil {
            spread.reconOutbox!.append((to, r, (try? r.wire.serializedBytes() as [UInt8])?.count ?? Frame.maxPlaintext))
            return
        }
        let before = stats.bytesOut
        send(.reconcile(r), to: to, nowMs: nowMs, into: &out)
        stats.reconBytesOut += stats.bytesOut - before
    }

    /// Starts holding pack reconciliation steps; false when already holding (the caller that
    /// started it flushes).
    mutating func holdReconciles() -> Bool {
        guard spread.reconOutbox == nil else { return false }
        spread.reconOutbox = []
        return true
    }

    /// Sends the held steps: per link (in the order first held), as many to a `Reconciles` as
    /// fit one datagram, at most `Message.maxBatched`; a step alone goes as `Reconcile`.
    mutating func flushReconciles(nowMs: UInt64, into out: inout [GossipDirective]) {
        guard let held = spread.reconOutbox else { return }
        spread.reconOutbox = nil
        var order: [PeerAddress] = [], byLink: [PeerAddress: [(round: ReconcileRound, size: Int)]] = [:]
        for h in held {
            if byLink[h.to] == nil { order.append(h.to) }
            byLink[h.to, default: []].append((h.round, h.size))
        }
        let before = stats.bytesOut
        defer { stats.reconBytesOut += stats.bytesOut - before }
        for peer in order {
            // Each step costs its own size plus its tag and length (at most 4 bytes), and so
            // does the batch itself.
            var chunk: [ReconcileRound] = [], size = 4
            func send(_ engine: inout GossipEngine) {
                if chunk.count == 1 {
                    engine.send(.reconcile(chunk[0]), to: peer, nowMs: nowMs, into: &out)
                } else if chunk.count > 1 {
                    engine.send(.reconciles(chunk), to: peer, nowMs: nowMs, into: &out)
                }
                chunk = []; size = 4
            }
            for (r, s) in byLink[peer]! {
                if !chunk.isEmpty && (size + s + 4 > peer.maxPlaintext || chunk.count == Message.maxBatched) { send(&self) }
                chunk.append(r); size += s + 4
            }
            send(&self)
        }
    }

    /// Asks for ops by full id: at most `opsPerAnswer` per call, 30 per `Want` (so that each
    /// fits one datagram); later rounds bring the rest.
    mutating func sendWants(_ ids: [OpID], to: PeerAddress, nowMs: UInt64, into out: inout [GossipDirective]) {
        let need = ids.prefix(config.spread.opsPerAnswer)
        for chunk in stride(from: need.startIndex, to: need.endIndex, by: 30) {
            send(.want(ids: need[chunk..<min(need.endIndex, chunk + 30)].map(\.bytes), graft: false), to: to, nowMs: nowMs, into: &out)
        }
    }
}

extension PeerTable {
    /// Those of `links` that left the fewest of our reconciliations unanswered since they last
    /// answered one, in the given order.
    func answering(_ links: [PeerAddress]) -> [PeerAddress] {
        let fewest = links.map { reconMisses[$0] ?? 0 }.min() ?? 0
        return links.filter { (reconMisses[$0] ?? 0) == fewest }
    }
}
