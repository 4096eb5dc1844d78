import Foundation
import SkwadModel
import SkwadReplica

/// Plumtree (Leitão, Pereira, Rodrigues 2007), link-level: ops go eagerly to neighbours not
/// marked lazy; a duplicate arriving eagerly marks its sender lazy (Prune); lazy neighbours
/// get IHAVE notices; an op announced but not received within the graft timeout is
/// requested by id (Want), which makes that link eager again. Every op sent obeys the
/// geofence rule (`mayReceive`).
extension GossipEngine {
    func isLazy(_ p: PeerAddress) -> Bool { plumtree.isLazy(p) }
    mutating func setLazy(_ p: PeerAddress, _ lazy: Bool) { plumtree.setLazy(p, lazy) }

    /// Sends admitted ops on to interested neighbours: eagerly, or as IHAVE notices queued
    /// for lazy ones (flushed each tick, 8-byte id prefixes), except to `except`. Each op is
    /// announced to at most `lazyFanout` lazy neighbours, picked at random. Vicinity links
    /// carry an op only when fewer than `activeEnough` active members may receive it: where
    /// the random overlay reaches into the fence, it suffices.
    mutating func forward(_ ops: [SignedOp], except: PeerAddress?, repair: Bool = false, nowMs: UInt64, replica: Replica,
                          into out: inout [GossipDirective]) {
        for op in ops { plumtree.holds(op.id) }
        let packs = ops.map { replica.scope($0.packID) }
        func may(_ info: NodeInfo, _ i: Int) -> Bool {
            guard let pack = packs[i] else { return false }
            return mayReceive(info, pack: pack, isGenesis: ops[i].isDirectoryEntry)
        }
        var activeEligible = [Int](repeating: 0, count: ops.count)
        for st in active.values { for i in ops.indices where may(st.info, i) { activeEligible[i] += 1 } }
        var lazyPeers: [(PeerAddress, [Int])] = []
        for peer in links where peer != except {
            guard let peerInfo = peerInfo(peer) else { continue }
            let viaVicinity = active[peer] == nil
            var eligible: [Int] = []
            for i in ops.indices where (!viaVicinity || activeEligible[i] < config.activeEnough) && may(peerInfo, i) {
                eligible.append(i)
            }
            guard !eligible.isEmpty else { continue }
            if isLazy(peer) { lazyPeers.append((peer, eligible)) }
            else { sendOps(eligible.map { ops[$0] }, to: peer, repair: repair, nowMs: nowMs, into: &out) }
        }
        guard !lazyPeers.isEmpty else { return }
        var announced = [Int](repeating: 0, count: ops.count)
        for (peer, eligible) in lazyPeers.shuffled(using: &rng) {
            let ids = eligible.filter { announced[$0] < config.lazyFanout }.map { ops[$0].id }
            for i in eligible { announced[i] += 1 }
            if !ids.isEmpty { plumtree.enqueue(ids, for: peer) }
        }
    }

    mutating func flushLazy(nowMs: UInt64, into out: inout [GossipDirective]) {
        for (peer, ids) in plumtree.takeQueue() where isLink(peer) {
            for chunk in stride(from: 0, to: ids.count, by: 120) {
                var m = WireMessage(); var ih = Skwad_Gossip_V1_IHave()
                ih.ids = ids[chunk..<min(ids.count, chunk + 120)].map { Data($0.bytes.prefix(8)) }
                m.ihave = ih
                send(m, to: peer, nowMs: nowMs, into: &out)
            }
        }
    }

    /// Packs envelopes into as few datagrams as fit.
    /// `repair`: not the tree's push (an answer to a pull, or ops that came by one).
    mutating func sendOps(_ ops: [SignedOp], to: PeerAddress, repair: Bool = false, nowMs: UInt64, into out: inout [GossipDirective]) {
        var batch: [Data] = [], size = 0
        func flush(_ engine: inout GossipEngine) {
            guard !batch.isEmpty else { return }
            var m = WireMessage(); var o = Skwad_Gossip_V1_Ops(); o.envelopes = batch; o.repair = repair; m.ops = o
            engine.send(m, to: to, nowMs: nowMs, into: &out)
            engine.stats.opsSent += batch.count
            batch = []; size = 0
        }
        for op in ops {
            let bytes = op.envelope.serialized()
            if size + bytes.count + 4 > Frame.maxPlaintext - 8 { flush(&self) }
            batch.append(Data(bytes)); size += bytes.count + 4
        }
        flush(&self)
    }

    /// New packs from one source address: `genesesPerSecond`, burst `genesisBurst` (enough
    /// for a directory pull), in a table of at most `genesisSources` addresses (the least
    /// recently used goes first). Packs cost stamp work besides (PROTOCOL §2, §13).
    mutating func takeGenesis(from: PeerAddress, nowMs: UInt64) -> Bool {
        if genesisLimits[from] == nil {
            if genesisLimits.count >= config.genesisSources,
               let oldest = genesisLimits.min(by: { a, b in a.value.lastMs != b.value.lastMs ? a.value.lastMs < b.value.lastMs : a.key < b.key }) {
                genesisLimits[oldest.key] = nil
            }
            genesisLimits[from] = TokenBucket(rate: config.genesesPerSecond, burst: config.genesisBurst, nowMs: nowMs)
        }
        return genesisLimits[from]!.take(1, nowMs: nowMs)
    }

    /// Decodes, verifies and admits one envelope under the per-source and per-pseudonym
    /// limits. Returns the ops newly admitted (the op, and pending ops it released) and
    /// whether it was a duplicate.
    mutating func admit(_ bytes: [UInt8], from: PeerAddress, nowMs: UInt64, replica: inout Replica,
                        into out: inout [GossipDirective]) -> (fresh: [SignedOp], duplicate: OpID?) {
        guard let env = try? Envelope(serialized: bytes) else { stats.opsRejected[Rejection.malformed.rawValue, default: 0] += 1; return ([], nil) }
        let id = env.id
        if replica.contains(id) {
            stats.opsDuplicate += 1
            // An op we stemmed coming back by the normal push: fluffed, embargo lifted. Its
            // first return is expected, not a sign of a redundant eager link (no Prune), and we
            // spread it as if it were new: we held it back so far, so the part of the tree
            // behind us has not got it.
            if stem.embargo.removeValue(forKey: id) != nil, let op = replica.op(id) {
                return ([op], nil)
            }
            return ([], id)
        }
        let op: SignedOp
        do { op = try opener(bytes) } catch {
            let reason: Rejection = "\(error)" == "bad signature" ? .badSignature : .malformed
            stats.opsRejected[reason.rawValue, default: 0] += 1
            return ([], nil)
        }
        // The fence rule on receipt (PROTOCOL §12): a locked pack's op is refused when our own
        // cell is outside its fence, so a member lying about its cell cannot relay it to us.
        guard mayHold(op, replica: replica) else { stats.opsRejected["lockedOutsideUs", default: 0] += 1; return ([], nil) }
        if case .createPack = op.body.kind, !takeGenesis(from: from, nowMs: nowMs) { stats.drop(.genesisRateLimited); return ([], nil) }
        if pseudonymLimits[op.author] == nil {
            // Bounded (`pseudonymMemory`): buckets that refilled are forgotten first; with
            // none to forget, a new pseudonym waits (counted as rate-limited).
            // The sweep runs at most once a second, so a flood of new pseudonyms against a full
            // table costs one pass, not one per op.
            if pseudonymLimits.count >= config.pseudonymMemory && nowMs >= nextPseudonymSweepMs {
                nextPseudonymSweepMs = nowMs + 1000
                pseudonymLimits = pseudonymLimits.filter { var b = $0.value; return !b.isFull(nowMs: nowMs) }
            }
            guard pseudonymLimits.count < config.pseudonymMemory else { stats.drop(.pseudonymRateLimited); return ([], nil) }
            pseudonymLimits[op.author] = TokenBucket(rate: config.pseudonymOpsPerMinute / 60, burst: config.pseudonymOpsPerMinute, nowMs: nowMs)
        }
        guard pseudonymLimits[op.author]!.take(1, nowMs: nowMs) else { stats.drop(.pseudonymRateLimited); return ([], nil) }
        switch replica.admit(op, nowMs: nowMs) {
        case .admitted(let list):
            for a in list { stats.opsAdmitted += 1; out.append(.admitted(a)) }
            return (list, nil)
        case .duplicate:
            stats.opsDuplicate += 1
            return ([], id)
        case .pending:
            return ([], nil)
        case .rejected(let r, _):
            stats.opsRejected[r.rawValue, default: 0] += 1
            return ([], nil)
        }
    }

    /// May this node hold `op` under the geofence rule, judged on its own announced cell?
    /// Only locked packs are refused: unlocked ones are open to subscribers anywhere.
    func mayHold(_ op: SignedOp, replica: Replica) -> Bool {
        let scope: PackScope?
        if case .createPack(let c) = op.body.kind { scope = PackScope(id: op.packID, fence: c.fence, locked: c.locked) }
        else { scope = replica.scope(op.packID) }
        guard let s = scope, s.locked else { return true }
        return mayReceive(info, pack: s, isGenesis: false)
    }

    /// Ops pushed to us by the tree, or by repair (`repair`: an answer to a pull, or ops that
    /// came to the sender by one). Only a tree push that brings nothing new, of ops that
    /// first came by a tree push too, prunes its link: the others are no sign of a redundant
    /// edge, and pruning on them cut tree edges (a node that learnt an op by reconciliation
    /// and passed it on lost its one eager link). Ops that came by repair are passed on as
    /// repair too.
    mutating func receiveOps(_ envelopes: [Data], repair: Bool, from: PeerAddress, nowMs: UInt64, replica: inout Replica, into out: inout [GossipDirective]) {
        var fresh: [SignedOp] = []
        var sawDuplicate = false
        for data in envelopes.prefix(64) {
            let (admitted, duplicate) = admit([UInt8](data), from: from, nowMs: nowMs, replica: &replica, into: &out)
            fresh += admitted
            if repair { for op in admitted { plumtree.markNotPushed(op.id) } }
            if let duplicate, plumtree.takeNotPushed(duplicate) { continue }
            sawDuplicate = sawDuplicate || duplicate != nil
        }
        if !repair && sawDuplicate && fresh.isEmpty, isLink(from), !isLazy(from) {
            setLazy(from, true)
            var m = WireMessage(); m.prune = Skwad_Gossip_V1_Prune()
            send(m, to: from, nowMs: nowMs, into: &out)
        }
        if !fresh.isEmpty { forward(fresh, except: from, repair: repair, nowMs: nowMs, replica: replica, into: &out) }
    }

    mutating func receiveIHave(_ ids: [Data], from: PeerAddress, nowMs: UInt64, replica: Replica) {
        for d in ids.prefix(256) where d.count == 8 || d.count == 32 {
            let p = Plumtree.prefix(d)
            if let known = plumtree.recentID(prefix: p), replica.contains(known) { continue }
            if d.count == 32, let id = try? OpID(bytes: [UInt8](d)), replica.contains(id) { continue }
            // Bounded: past `missingCapacity` announced ids, new ones wait for reconciliation.
            if !plumtree.announced(p, by: from, nowMs: nowMs, graftTimeoutMs: config.graftTimeoutMs) { stats.drop(.queueFull) }
        }
    }

    /// Ops announced but not received in time: graft, i.e. ask an announcer for them with a
    /// `Want{graft}`, which makes the link eager at both ends.
    mutating func graftMissing(nowMs: UInt64, into out: inout [GossipDirective]) {
        let wants = plumtree.dueGrafts(nowMs: nowMs, graftTimeoutMs: config.graftTimeoutMs)
        for (peer, ps) in wants.sorted(by: { $0.key < $1.key }) {
            setLazy(peer, false)
            for chunk in stride(from: 0, to: ps.count, by: 120) {
                var m = WireMessage(); var w = Skwad_Gossip_V1_Want()
                w.ids = ps[chunk..<min(ps.count, chunk + 120)].sorted().map { p in Data((0..<8).map { UInt8(truncatingIfNeeded: p >> (56 - 8 * $0)) }) }
                w.graft = true
                m.want = w
                send(m, to: peer, nowMs: nowMs, into: &out)
            }
        }
    }

    /// Sends the wanted ops the requester may receive (geofence rule). A graft makes the
    /// link eager and is answered as a push; any other Want (reconciliation, a missing
    /// genesis) is a pull, answered as such, and leaves the link's mark alone.
    mutating func receiveWant(_ w: Skwad_Gossip_V1_Want, from: PeerAddress, nowMs: UInt64, replica: Replica, into out: inout [GossipDirective]) {
        if w.graft && isLink(from) { setLazy(from, false) }
        let peerInfo = peerInfo(from) ?? NodeInfo()
        var ops: [SignedOp] = []
        for d in w.ids.prefix(256) {
            let id: OpID?
            if d.count == 8 { id = plumtree.recentID(prefix: Plumtree.prefix(d)) } else { id = try? OpID(bytes: [UInt8](d)) }
            guard let id, stem.embargo[id] == nil, let op = replica.op(id), let pack = replica.scope(op.packID) else { continue }
            if mayReceive(peerInfo, pack: pack, isGenesis: op.isDirectoryEntry) { ops.append(op) }
        }
        sendOps(ops, to: from, repair: !w.graft, nowMs: nowMs, into: &out)
    }

    // MARK: - anti-entropy

    /// Each round: up to `reconPacksPerRound` random live packs we may hold ourselves, each
    /// reconciled with a random link (active or vicinity) that may hold it too.
    mutating func reconcileRound(nowMs: UInt64, replica: Replica, into out: inout [GossipDirective]) {
        let links = self.links
        guard !links.isEmpty else { return }
        let mine = replica.liveScopes(nowMs: nowMs).filter { mayReceive(info, pack: $0, isGenesis: false) }
        guard !mine.isEmpty else { return }
        // Round robin over our packs (sorted by id), so that none waits longer than
        // ceil(packs / reconPacksPerRound) rounds.
        let start = reconCursor % mine.count
        reconCursor = start + config.reconPacksPerRound
        for k in 0..<min(config.reconPacksPerRound, mine.count) {
            let state = mine[(start + k) % mine.count]
            let pack = state.id
            let eligible = links.filter { peerInfo($0).map { mayReceive($0, pack: state, isGenesis: false) } ?? false }
            guard let peer = eligible.randomElement(using: &rng) else { continue }
            stats.reconciliations += 1
            sendReconcile(pack: pack, lower: .zero, ranges: Reconciliation.initiate(visibleItems(replica, pack: pack)), initiator: true, to: peer, nowMs: nowMs, into: &out)
        }
    }

    /// Sends ranges, split over as many datagrams as needed (each self-contained).
    /// `pack` nil with `directory` set: the pack directory as seen from `directory`'s cell (§11a).
    mutating func sendReconcile(pack: PackID?, lower: Reconciliation.Bound, ranges: [Reconciliation.RangeMessage], initiator: Bool,
                                directory: NodeInfo? = nil, to: PeerAddress, nowMs: UInt64, into out: inout [GossipDirective]) {
        var start = lower, chunk: [Reconciliation.RangeMessage] = [], size = 60
        func flush(_ engine: inout GossipEngine) {
            guard !chunk.isEmpty else { return }
            var m = WireMessage(); var r = Skwad_Gossip_V1_Reconcile()
            r.lower = start.wire; r.ranges = chunk.map(\.wire); r.initiator = initiator
            if let directory {
                r.directory = true
                r.asker = directory.wire
            } else if let pack, initiator {
                r.pack = Data(pack.bytes)
                // Who asks, so that a peer that does not count us among its links can apply the fence rule.
                let subs = engine.info.subscribed(pack) ? Set([NodeInfo.prefix(pack)]) : []
                r.asker = NodeInfo(cell: engine.info.cell, subscriptions: subs).wire
            } else if let pack {
                r.pack = Data(pack.bytes)
            }
            m.reconcile = r
            let before = engine.stats.bytesOut
            engine.send(m, to: to, nowMs: nowMs, into: &out)
            engine.stats.reconBytesOut += engine.stats.bytesOut - before
            start = chunk.last!.upper
            chunk = []; size = 60
        }
        for r in ranges {
            if size + r.estimatedSize > Frame.maxPlaintext - 40 { flush(&self) }
            chunk.append(r); size += r.estimatedSize
        }
        flush(&self)
    }

    mutating func receiveReconcile(_ r: Skwad_Gossip_V1_Reconcile, from: PeerAddress, nowMs: UInt64, replica: Replica, into out: inout [GossipDirective]) {
        if r.directory { receiveDirectory(r, from: from, nowMs: nowMs, replica: replica, into: &out); return }
        guard let pack = try? PackID(bytes: [UInt8](r.pack)) else { stats.drop(.malformedMessage); return }
        if r.initiator && r.hasAsker && !isLink(from) {
            var asker = NodeInfo(wire: r.asker)
            if let known = inbound[from]?.info, known.cell == asker.cell { asker.subscriptions.formUnion(known.subscriptions) }
            rememberInbound(from, info: asker, nowMs: nowMs)
        }
        if replica.pack(pack) == nil && r.initiator && !replica.contains(pack) {
            // A pack we never heard of (its genesis passed us by): ask for the genesis, whose
            // id is the pack id; the next round reconciles the rest.
            var m = WireMessage(); var w = Skwad_Gossip_V1_Want(); w.ids = [Data(pack.bytes)]; m.want = w
            send(m, to: from, nowMs: nowMs, into: &out)
            return
        }
        guard let state = replica.scope(pack), replica.isLive(pack, nowMs: nowMs),
              let theirs = peerInfo(from), mayReceive(theirs, pack: state, isGenesis: false) else { return }
        let ranges = r.ranges.compactMap(Reconciliation.RangeMessage.init(wire:))
        guard ranges.count == r.ranges.count else { stats.drop(.malformedMessage); return }
        let answer = Reconciliation.answer(visibleItems(replica, pack: pack), lower: Reconciliation.Bound(wire: r.lower), ranges: ranges)
        // Paginated: at most `opsPerAnswer` ops and ids per message; later rounds bring the rest.
        if !answer.have.isEmpty { sendOps(answer.have.prefix(config.opsPerAnswer).compactMap { replica.op($0) }, to: from, repair: true, nowMs: nowMs, into: &out) }
        sendWants(answer.need, to: from, nowMs: nowMs, into: &out)
        if !answer.done {
            sendReconcile(pack: pack, lower: Reconciliation.Bound(wire: r.lower), ranges: answer.ranges, initiator: !r.initiator, to: from, nowMs: nowMs, into: &out)
        }
    }

    /// Asks for ops by full id: at most `opsPerAnswer` per call, 30 per `Want` (so that each
    /// fits one datagram); later rounds bring the rest.
    mutating func sendWants(_ ids: [OpID], to: PeerAddress, nowMs: UInt64, into out: inout [GossipDirective]) {
        let need = ids.prefix(config.opsPerAnswer)
        for chunk in stride(from: need.startIndex, to: need.endIndex, by: 30) {
            var m = WireMessage(); var w = Skwad_Gossip_V1_Want()
            w.ids = need[chunk..<min(need.endIndex, chunk + 30)].map { Data($0.bytes) }; m.want = w
            send(m, to: to, nowMs: nowMs, into: &out)
        }
    }

    // MARK: - dispatch

    mutating func handle(_ m: WireMessage, from: PeerAddress, nowMs: UInt64, replica: inout Replica, into out: inout [GossipDirective]) {
        if active[from] != nil { active[from]!.lastHeardMs = nowMs }
        if vicinity[from] != nil { vicinity[from]!.lastHeardMs = nowMs; vicinity[from]!.askedMs = nil; vicinity[from]!.misses = 0 }
        if !dead.isEmpty { revived(from, nowMs: nowMs) }
        switch m.body {
        case .ops(let o)?: receiveOps(o.envelopes, repair: o.repair, from: from, nowMs: nowMs, replica: &replica, into: &out)
        case .ihave(let ih)?: receiveIHave(ih.ids, from: from, nowMs: nowMs, replica: replica)
        case .want(let w)?: receiveWant(w, from: from, nowMs: nowMs, replica: replica, into: &out)
        case .prune?: if isLink(from) { setLazy(from, true) }
        case .reconcile(let r)?: receiveReconcile(r, from: from, nowMs: nowMs, replica: replica, into: &out)
        case .findPack(let f)?: receiveFindPack(f, from: from, nowMs: nowMs, replica: replica, into: &out)
        case .stem(let s)?: receiveStem(s, from: from, nowMs: nowMs, replica: &replica, into: &out)
        default: handleMembership(m, from: from, nowMs: nowMs, into: &out)
        }
    }
}
