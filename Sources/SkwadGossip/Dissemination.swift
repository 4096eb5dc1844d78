import Foundation
import SkwadModel
import SkwadReplica

/// Plumtree (Leitão, Pereira, Rodrigues 2007), link-level: ops go eagerly to neighbours not
/// marked lazy; a duplicate arriving eagerly marks its sender lazy (Prune); lazy neighbours
/// get IHAVE notices; an op announced but not received within the graft timeout is
/// requested by id (Want), which makes that link eager again. Every op sent obeys the
/// geofence rule (`mayReceive`).
/// What dissemination asks of the engine, in order.
enum SpreadAction {
    /// A message to a peer, sealed and sent by the engine.
    case send(Message, to: PeerAddress)
    /// Ops to a peer, packed into as few datagrams as fit (`GossipEngine.sendOps`); `repair`:
    /// not the tree's push (an answer to a pull, or ops that came by one).
    case ops([SignedOp], to: PeerAddress, repair: Bool)
    /// Ops pushed on to the links but `except` (`GossipEngine.forward`: a push's two steps).
    case forward([SignedOp], except: PeerAddress?)
    /// A reconciliation step or steps, its bytes counted as reconciliation's (`reconBytesOut`).
    case reconcile(Message, to: PeerAddress)
}

/// A push under way (`Spread.push`, then `announce`): the ops, the links that announced each
/// to us, and the lazy links each may be announced to.
struct Push {
    let ops: [SignedOp]
    let told: [[PeerAddress]]
    var lazy: [(PeerAddress, [Int])] = []
}

extension Spread {
    /// A push's first step: the ops go eagerly (`.ops`) to the links not marked lazy that may
    /// receive them (the geofence rule, `mayReceive`), except to `except`; the lazy links that
    /// may are kept for `announce`. Vicinity links carry an op only when fewer than
    /// `activeEnough` active members may receive it: where the random overlay reaches into
    /// the fence, it suffices.
    mutating func push(
        _ ops: [SignedOp], except: PeerAddress?, repair: Bool, peers: PeerTable, replica: Replica, config: GossipConfig.Spread
    ) -> (Push, [SpreadAction]) {
        // Links that announced an op to us hold it: they get neither the op nor an IHAVE of it
        // (they still use up one of its `lazyFanout` notices, so the others get the notices
        // they got before).
        var push = Push(ops: ops, told: ops.map { plumtree.holds($0.id) })
        let packs = ops.map { replica.scope($0.packID) }
        func may(_ info: NodeInfo, _ i: Int) -> Bool {
            guard let pack = packs[i] else { return false }
            return mayReceive(info, pack: pack, isGenesis: ops[i].isDirectoryEntry)
        }
        // One lookup per link: its info, whether it is an active member (links hold every
        // active member), and for a member, which of the first 64 ops it may receive (asked
        // once; a vicinity link is asked only about ops that too few members may receive).
        let links = peers.links
        var facts: [(peer: PeerAddress, info: NodeInfo, viaVicinity: Bool, may: UInt64)] = []
        facts.reserveCapacity(links.count)
        var activeEligible = [Int](repeating: 0, count: ops.count)
        for peer in links {
            guard let f = peers.linkFacts(of: peer) else { continue }
            var bits: UInt64 = 0
            if f.active {
                for i in ops.indices.prefix(64) where may(f.info, i) { bits |= 1 << UInt64(i) }
                for i in ops.indices where i < 64 ? bits & (1 << UInt64(i)) != 0 : may(f.info, i) { activeEligible[i] += 1 }
            }
            if peer != except { facts.append((peer, f.info, !f.active, bits)) }
        }
        var eager: [SpreadAction] = []
        for (peer, peerInfo, viaVicinity, bits) in facts {
            let lazy = plumtree.isLazy(peer)
            var eligible: [Int] = []
            for i in ops.indices where !viaVicinity || activeEligible[i] < config.activeEnough {
                guard !viaVicinity && i < 64 ? bits & (1 << UInt64(i)) != 0 : may(peerInfo, i) else { continue }
                // No eager copy to a link that announced it; a lazy one stays eligible so that
                // it uses up one of the op's notices (it gets none: see `announce`).
                if !lazy && push.told[i].contains(peer) { continue }
                eligible.append(i)
            }
            guard !eligible.isEmpty else { continue }
            if lazy {
                push.lazy.append((peer, eligible))
            } else {
                eager.append(.ops(eligible.map { ops[$0] }, to: peer, repair: repair))
            }
        }
        return (push, eager)
    }

    /// A push's second step, once its eager copies are sent: IHAVE notices queued for the
    /// lazy links (flushed each tick, 8-byte id prefixes), each op announced to at most
    /// `lazyFanout` of them, picked at random.
    mutating func announce(_ push: Push, rng: inout SplitMix, config: GossipConfig.Spread) {
        guard !push.lazy.isEmpty else { return }
        var announced = [Int](repeating: 0, count: push.ops.count)
        for (peer, eligible) in push.lazy.shuffled(using: &rng) {
            let ids = eligible.filter { announced[$0] < config.lazyFanout && !push.told[$0].contains(peer) }.map { push.ops[$0].id }
            for i in eligible { announced[i] += 1 }
            if !ids.isEmpty { plumtree.enqueue(ids, for: peer) }
        }
    }

    /// The IHAVEs owed, to the peers still links, at most 120 ids a message.
    mutating func flushLazy(peers: PeerTable) -> [SpreadAction] {
        var acts: [SpreadAction] = []
        for (peer, ids) in plumtree.takeQueue() where peers.isLink(peer) {
            for chunk in stride(from: 0, to: ids.count, by: 120) {
                acts.append(.send(.ihave(ids[chunk..<min(ids.count, chunk + 120)].map { Array($0.bytes.prefix(8)) }), to: peer))
            }
        }
        return acts
    }

    /// Ops announced but not received in time: graft, i.e. ask an announcer for them with a
    /// `Want{graft}`, which makes the link eager at both ends.
    mutating func graftMissing(nowMs: UInt64, config: GossipConfig.Spread) -> [SpreadAction] {
        var acts: [SpreadAction] = []
        let wants = plumtree.dueGrafts(nowMs: nowMs, graftTimeoutMs: config.graftTimeoutMs)
        for (peer, ps) in wants.sorted(by: { $0.key < $1.key }) {
            plumtree.setLazy(peer, false)
            for chunk in stride(from: 0, to: ps.count, by: 120) {
                let ids = ps[chunk..<min(ps.count, chunk + 120)].sorted().map { p in
                    (0..<8).map { UInt8(truncatingIfNeeded: p >> (56 - 8 * $0)) }
                }
                acts.append(.send(.want(ids: ids, graft: true), to: peer))
            }
        }
        return acts
    }

    /// An `IHave`: ids we lack (at most 256 a message; 8-byte prefixes or whole ids) wait for
    /// their op until the graft timeout. Bounded: past `missingCapacity` announced ids, new
    /// ones wait for reconciliation (counted, `queueFull`).
    mutating func iHave(
        _ ids: [[UInt8]], from: PeerAddress, nowMs: UInt64, replica: Replica, config: GossipConfig.Spread, stats: inout GossipStats
    ) {
        for d in ids.prefix(256) where d.count == 8 || d.count == 32 {
            let p = Plumtree.prefix(d)
            if let known = plumtree.recentID(prefix: p), replica.contains(known) {
                plumtree.unqueue(known, for: from)
                continue
            }
            if d.count == 32, let id = try? OpID(bytes: d), replica.contains(id) { continue }
            if !plumtree.announced(p, by: from, nowMs: nowMs, graftTimeoutMs: config.graftTimeoutMs) { stats.drop(.queueFull) }
        }
    }

    /// A `Want`: the wanted ops the requester may receive (the geofence rule), none under our
    /// embargo. A graft makes the link eager and is answered as a push; any other Want
    /// (reconciliation, a missing genesis) is a pull, answered as such, and leaves the link's
    /// mark alone. A peer that never heard of a pack we asked it to reconcile answers with a
    /// Want of its genesis (whose id is the pack id, §11): that is its answer to our round.
    mutating func want(
        ids: [[UInt8]], graft: Bool, from: PeerAddress, peers: inout PeerTable, replica: Replica
    ) -> [SpreadAction] {
        if graft && peers.isLink(from) { plumtree.setLazy(from, false) }
        if !graft, !reconUnanswered.isEmpty {
            for d in ids.prefix(4) where d.count == 32 {
                guard let id = try? OpID(bytes: d) else { continue }
                if reconUnanswered.remove(ReconAsked(pack: id, peer: from)) != nil { peers[reconMisses: from] = 0 }
            }
        }
        let peerInfo = peers.info(of: from) ?? NodeInfo()
        var ops: [SignedOp] = []
        for d in ids.prefix(256) {
            let id: OpID?
            if d.count == 8 { id = plumtree.recentID(prefix: Plumtree.prefix(d)) } else { id = try? OpID(bytes: d) }
            guard let id, stem.embargo[id] == nil, let op = replica.op(id),
                let pack = replica.scope(op.packID) ?? replica.goneScope(op.packID)
            else { continue }
            if mayReceive(peerInfo, pack: pack, isGenesis: op.isDirectoryEntry) { ops.append(op) }
        }
        return [.ops(ops, to: from, repair: !graft)]
    }
}

/// Plumtree (Leitão, Pereira, Rodrigues 2007), link-level: ops go eagerly to neighbours not
/// marked lazy; a duplicate arriving eagerly marks its sender lazy (Prune); lazy neighbours
/// get IHAVE notices; an op announced but not received within the graft timeout is
/// requested by id (Want), which makes that link eager again. Every op sent obeys the
/// geofence rule (`mayReceive`). The steps are the spread part's (above); the engine carries
/// out their actions.
extension GossipEngine {
    func isLazy(_ p: PeerAddress) -> Bool { spread.plumtree.isLazy(p) }
    mutating func setLazy(_ p: PeerAddress, _ lazy: Bool) { spread.plumtree.setLazy(p, lazy) }

    /// Sends admitted ops on to interested links: eagerly, or as IHAVE notices queued for
    /// lazy ones (`Spread.push`, then `announce`), except to `except`.
    mutating func forward(
        _ ops: [SignedOp], except: PeerAddress?, repair: Bool = false, nowMs: UInt64, replica: Replica,
        into out: inout [GossipDirective]
    ) {
        let (push, eager) = spread.push(ops, except: except, repair: repair, peers: peers, replica: replica, config: config.spread)
        carry(eager, nowMs: nowMs, replica: replica, into: &out)
        spread.announce(push, rng: &rng, config: config.spread)
    }

    /// Carries out dissemination's actions, in order (a push reads the replica).
    mutating func carry(_ actions: [SpreadAction], nowMs: UInt64, replica: Replica, into out: inout [GossipDirective]) {
        for a in actions {
            switch a {
            case .send(let m, let to): send(m, to: to, nowMs: nowMs, into: &out)
            case .ops(let ops, let to, let repair): sendOps(ops, to: to, repair: repair, nowMs: nowMs, into: &out)
            case .forward(let ops, let except): forward(ops, except: except, nowMs: nowMs, replica: replica, into: &out)
            case .reconcile(let m, let to):
                let before = stats.bytesOut
                send(m, to: to, nowMs: nowMs, into: &out)
                stats.reconBytesOut += stats.bytesOut - before
            }
        }
    }

    /// Dissemination's due work at a tick (`EnginePart.spread`): IHAVEs owed, grafts of
    /// announced ops, the stem's fail-safes.
    mutating func tickSpread(nowMs: UInt64, replica: Replica, into out: inout [GossipDirective]) {
        carry(spread.flushLazy(peers: peers), nowMs: nowMs, replica: replica, into: &out)
        carry(spread.graftMissing(nowMs: nowMs, config: config.spread), nowMs: nowMs, replica: replica, into: &out)
        carry(spread.stemFailsafe(nowMs: nowMs, replica: replica, stats: &stats), nowMs: nowMs, replica: replica, into: &out)
    }

    /// Packs envelopes into as few datagrams as fit.
    /// `repair`: not the tree's push (an answer to a pull, or ops that came by one).
    mutating func sendOps(_ ops: [SignedOp], to: PeerAddress, repair: Bool = false, nowMs: UInt64, into out: inout [GossipDirective]) {
        var batch: [[UInt8]] = [], size = 0
        func flush(_ engine: inout GossipEngine) {
            guard !batch.isEmpty else { return }
            engine.send(.ops(envelopes: batch, repair: repair), to: to, nowMs: nowMs, into: &out)
            engine.stats.opsSent += batch.count
            batch = []; size = 0
        }
        for op in ops {
            let bytes = op.envelope.serialized()
            if size + bytes.count + 4 > to.maxPlaintext - 8 { flush(&self) }
            batch.append(bytes); size += bytes.count + 4
        }
        flush(&self)
    }

    /// New packs from one source address: `genesesPerSecond`, burst `genesisBurst` (enough
    /// for a directory pull), in a table of at most `genesisSources` addresses (the least
    /// recently used goes first). Packs cost stamp work besides (PROTOCOL §2, §13).
    mutating func takeGenesis(from: PeerAddress, nowMs: UInt64) -> Bool {
        if limits.genesis[from] == nil {
            limits.genesis.makeRoom(for: from, capacity: config.limits.genesisSources) { $0.lastMs }
            limits.genesis[from] = TokenBucket(rate: config.limits.genesesPerSecond, burst: config.limits.genesisBurst, nowMs: nowMs)
        }
        return limits.genesis[from]!.take(1, nowMs: nowMs)
    }

    /// Decodes, verifies and admits one envelope under the per-source and per-pseudonym
    /// limits. Returns the ops newly admitted (the op, and pending ops it released) and
    /// whether it was a duplicate.
    mutating func admit(
        _ bytes: [UInt8], from: PeerAddress, nowMs: UInt64, replica: inout Replica,
        into out: inout [GossipDirective]
    ) -> (fresh: [SignedOp], duplicate: OpID?) {
        guard let env = try? Envelope(serialized: bytes) else {
            stats.opsRejected[Rejection.malformed.rawValue, default: 0] += 1; return ([], nil)
        }
        let id = env.id
        if replica.contains(id) {
            stats.opsDuplicate += 1
            // An op we stemmed coming back by the normal push: fluffed, embargo lifted. Its
            // first return is expected, not a sign of a redundant eager link (no Prune), and we
            // spread it as if it were new: we held it back so far, so the part of the tree
            // behind us has not got it.
            if spread.stem.embargo.removeValue(forKey: id) != nil, let op = replica.op(id) {
                return ([op], nil)
            }
            return ([], id)
        }
        let op: SignedOp
        do { op = try opener(env, id) } catch {
            let reason: Rejection = "\(error)" == "bad signature" ? .badSignature : .malformed
            stats.opsRejected[reason.rawValue, default: 0] += 1
            return ([], nil)
        }
        // The fence rule on receipt (PROTOCOL §12): a locked pack's op is refused when our own
        // cell is outside its fence, so a member lying about its cell cannot relay it to us.
        guard mayHold(op, replica: replica) else { stats.opsRejected["lockedOutsideUs", default: 0] += 1; return ([], nil) }
        if case .createPack = op.body.kind, !takeGenesis(from: from, nowMs: nowMs) { stats.drop(.genesisRateLimited); return ([], nil) }
        if limits.pseudonym[op.author] == nil {
            // Bounded (`pseudonymMemory`): buckets that refilled are forgotten first; with
            // none to forget, a new pseudonym waits (counted as rate-limited).
            // The sweep runs at most once a second, so a flood of new pseudonyms against a full
            // table costs one pass, not one per op.
            if limits.pseudonym.count >= config.limits.pseudonymMemory && nowMs >= limits.nextSweepMs {
                limits.nextSweepMs = nowMs + 1000
                limits.pseudonym.forgetRefilled(nowMs: nowMs)
            }
            guard limits.pseudonym.count < config.limits.pseudonymMemory else { stats.drop(.pseudonymRateLimited); return ([], nil) }
            limits.pseudonym.forgetRefilledBeforeGrowing(nowMs: nowMs)
            limits.pseudonym[op.author] = TokenBucket(
                rate: config.limits.pseudonymOpsPerMinute / 60, burst: config.limits.pseudonymOpsPerMinute,
                nowMs: nowMs)
        }
        guard limits.pseudonym[op.author]!.take(1, nowMs: nowMs) else { stats.drop(.pseudonymRateLimited); return ([], nil) }
        // Where it came from matters only to the quotas on new packs and on ops waiting for a
        // genesis: the sender's network group is not computed for the ops of known packs.
        let arrival = op.body.packID == nil || !replica.hasPack(op.packID) ? Arrival(source: from.netgroup, here: info.place) : nil
        switch replica.admit(op, nowMs: nowMs, arrival: arrival) {
        case .admitted(let list):
            for a in list {
                stats.opsAdmitted += 1
                somethingNew(a, own: false, nowMs: nowMs)
                notePictureOrigin(a, from: from, nowMs: nowMs)
                out.append(.admitted(a))
            }
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

    /// Forgets the rate-limit buckets that have refilled, per pseudonym, per genesis source
    /// and per address (every `reviveIntervalMs`): a new bucket starts full, so only memory
    /// changes (most buckets refill within a second of their last op or datagram).
    mutating func sweepRateLimits(nowMs: UInt64) {
        limits.pseudonym.forgetRefilled(nowMs: nowMs)
        limits.genesis.forgetRefilled(nowMs: nowMs)
        channels.sweepLimits(nowMs: nowMs)
    }

    /// May this node hold `op` under the geofence rule, judged on its own announced cell?
    /// Only locked packs are refused: unlocked ones are open to subscribers anywhere.
    func mayHold(_ op: SignedOp, replica: Replica) -> Bool {
        let scope: PackScope?
        if case .createPack(let c) = op.body.kind {
            scope = PackScope(id: op.packID, fence: c.fence, locked: c.locked, isPrivate: c.inviteOnly)
        } else {
            scope = replica.scope(op.packID)
        }
        guard let s = scope, s.locked else { return true }
        return mayReceive(info, pack: s, isGenesis: false)
    }

    /// Ops pushed to us by the tree, or by repair (`repair`: an answer to a pull, or ops that
    /// came to the sender by one). Only a tree push that brings nothing new, of ops that
    /// first came by a tree push too, prunes its link: the others are no sign of a redundant
    /// edge, and pruning on them cut tree edges (a node that learnt an op by reconciliation
    /// and passed it on lost its one eager link). Ops that came by repair are passed on as
    /// repair too.
    mutating func onOps(
        _ envelopes: [[UInt8]], repair: Bool, from: PeerAddress, nowMs: UInt64, replica: inout Replica, into out: inout [GossipDirective]
    ) {
        var fresh: [SignedOp] = []
        var sawDuplicate = false
        for data in envelopes.prefix(64) {
            let (admitted, duplicate) = admit(data, from: from, nowMs: nowMs, replica: &replica, into: &out)
            fresh += admitted
            if repair { for op in admitted { spread.plumtree.markNotPushed(op.id) } }
            if let duplicate, spread.plumtree.takeNotPushed(duplicate) { continue }
            sawDuplicate = sawDuplicate || duplicate != nil
        }
        if !repair && sawDuplicate && fresh.isEmpty, isLink(from), !isLazy(from) {
            setLazy(from, true)
            send(.prune, to: from, nowMs: nowMs, into: &out)
        }
        if !fresh.isEmpty { forward(fresh, except: from, repair: repair, nowMs: nowMs, replica: replica, into: &out) }
    }

    mutating func onIHave(_ ids: [[UInt8]], from: PeerAddress, nowMs: UInt64, replica: Replica) {
        spread.iHave(ids, from: from, nowMs: nowMs, replica: replica, config: config.spread, stats: &stats)
    }

    mutating func onWant(ids: [[UInt8]], graft: Bool, from: PeerAddress, nowMs: UInt64, replica: Replica, into out: inout [GossipDirective])
    {
        carry(spread.want(ids: ids, graft: graft, from: from, peers: &peers, replica: replica), nowMs: nowMs, replica: replica, into: &out)
    }
}
