import Foundation
import SkwadModel
import SkwadReplica

/// Hidden authors, after Dandelion++ (Fanti et al., SIGMETRICS 2018; BIP 156): a node's own
/// new op first walks a *stem* — one link per epoch, the same for all of the node's ops —
/// and each hop spreads it (the normal push, "fluff") with probability `stemFluff`, or
/// passes it on along its own stem. Until an op is fluffed, stem nodes keep it out of their
/// reconciliation answers and `Want` answers (an *embargo*), and each sets a fail-safe timer
/// that fluffs it if it has not come back by the normal push. A neighbour (or a spy that
/// eclipsed a node) that guesses "the first node to hand me an op wrote it" is right about
/// one time in `1 / hops`, not always (PROTOCOL §10a).
struct StemState: Sendable {
    var relay: PeerAddress?
    var epochEndsMs: UInt64 = 0
    /// Ops under embargo, with their fail-safe deadline. Capacity `embargoCapacity`: beyond
    /// it, an op is fluffed at once.
    var embargo: [OpID: UInt64] = [:]
}

extension Spread {
    /// Our stem link for this epoch, chosen at random among the active members that may
    /// receive `op`, or among our other links when none may. Members first: pings keep both
    /// ends of their sessions alive, while a vicinity link quiet for half a minute may have
    /// dropped its end, and a `Stem` sent on a dropped session is lost (the op then waits for
    /// the fail-safe, a second or two).
    mutating func stemRelay(
        for op: SignedOp, peers: PeerTable, replica: Replica, rng: inout SplitMix, nowMs: UInt64, config: GossipConfig.Spread
    ) -> PeerAddress? {
        guard let scope = replica.scope(op.packID) else { return nil }
        let may = peers.links.filter { peers.info(of: $0).map { mayReceive($0, pack: scope, isGenesis: op.isDirectoryEntry) } ?? false }
        let members = may.filter { peers.active[$0] != nil }
        let eligible = members.isEmpty ? may : members
        if nowMs >= stem.epochEndsMs || stem.relay.map({ !eligible.contains($0) }) ?? true {
            stem.relay = eligible.randomElement(using: &rng)
            stem.epochEndsMs = nowMs + config.stemEpochMs
        }
        return stem.relay.flatMap { eligible.contains($0) ? $0 : nil }
    }

    /// Our own new op, or one handed to us on a stem, along our stem (a `Stem` message, the op
    /// under embargo until its fail-safe), or fluffed when there is no stem link but the one we
    /// had it from (`except`), or the embargo is full.
    mutating func stemOrFluff(
        _ op: SignedOp, except: PeerAddress?, peers: PeerTable, replica: Replica, rng: inout SplitMix, stats: inout GossipStats,
        nowMs: UInt64, config: GossipConfig.Spread
    ) -> [SpreadAction] {
        guard config.stemFluff < 1, stem.embargo.count < StemState.embargoCapacity,
            let relay = stemRelay(for: op, peers: peers, replica: replica, rng: &rng, nowMs: nowMs, config: config), relay != except
        else {
            // To every tree link, the stem node we had it from included: it holds the op under
            // embargo and may be our only tree edge to the nodes behind it.
            return fluff(op, stats: &stats)
        }
        plumtree.holds(op.id)
        // Fail-safe: a random wait, so that the stem's nodes do not all fluff at once.
        stem.embargo[op.id] = nowMs + config.stemFailsafeMs + UInt64.random(in: 0...config.stemFailsafeMs, using: &rng)
        stats.stemmed += 1
        return [.send(.stem(envelope: op.envelope.serialized()), to: relay)]
    }

    /// An op spread by the shared tree like any op (`.forward` to every link): the eager links
    /// form one spanning tree whatever the root. (Pushing to lazy links too made their
    /// receivers prune the tree's edges.) Its embargo ends.
    mutating func fluff(_ op: SignedOp, stats: inout GossipStats) -> [SpreadAction] {
        stem.embargo[op.id] = nil
        stats.fluffed += 1
        return [.forward([op], except: nil)]
    }

    /// A stem hop's new op (admitted by the engine): fluffed with probability `stemFluff` (back
    /// to the stem node too: it holds the op under embargo and is our tree edge to the nodes
    /// behind it), or passed on along our own stem.
    mutating func stemHop(
        _ op: SignedOp, from: PeerAddress, peers: PeerTable, replica: Replica, rng: inout SplitMix, stats: inout GossipStats,
        nowMs: UInt64, config: GossipConfig.Spread
    ) -> [SpreadAction] {
        if Double.random(in: 0..<1, using: &rng) < config.stemFluff { return fluff(op, stats: &stats) }
        return stemOrFluff(op, except: from, peers: peers, replica: replica, rng: &rng, stats: &stats, nowMs: nowMs, config: config)
    }

    /// Ops whose fail-safe ran out without their coming back: fluffed now.
    mutating func stemFailsafe(nowMs: UInt64, replica: Replica, stats: inout GossipStats) -> [SpreadAction] {
        guard !stem.embargo.isEmpty else { return [] }
        var acts: [SpreadAction] = []
        for (id, due) in stem.embargo.sorted(by: { $0.key < $1.key }) where nowMs >= due {
            stem.embargo[id] = nil
            if let op = replica.op(id) {
                stats.failsafes += 1
                acts += fluff(op, stats: &stats)
            }
        }
        return acts
    }
}

extension GossipEngine {
    /// Sends our own new op along the stem, or spreads it (`Spread.stemOrFluff`).
    mutating func stemOrFluff(_ op: SignedOp, except: PeerAddress?, nowMs: UInt64, replica: Replica, into out: inout [GossipDirective]) {
        let acts = spread.stemOrFluff(
            op, except: except, peers: peers, replica: replica, rng: &rng, stats: &stats, nowMs: nowMs, config: config.spread)
        carry(acts, nowMs: nowMs, replica: replica, into: &out)
    }

    /// A stem hop: admit the op like any other, then fluff it or pass it on (`Spread.stemHop`).
    /// A stem that loops back to a node that stemmed the op already fluffs it here, now
    /// (waiting for the fail-safe would cost a second or two).
    mutating func onStem(_ envelope: [UInt8], from: PeerAddress, nowMs: UInt64, replica: inout Replica, into out: inout [GossipDirective]) {
        if let env = try? Envelope(serialized: envelope), replica.contains(env.id) {
            if spread.stem.embargo[env.id] != nil, let op = replica.op(env.id) {
                carry(spread.fluff(op, stats: &stats), nowMs: nowMs, replica: replica, into: &out)
            }
            return
        }
        let (fresh, _) = admit(envelope, from: from, nowMs: nowMs, replica: &replica, into: &out)
        guard let op = fresh.first else { return }
        // Pending ops the stem op released (its genesis arrived with it) spread at once.
        if fresh.count > 1 { forward(Array(fresh.dropFirst()), except: from, nowMs: nowMs, replica: replica, into: &out) }
        let acts = spread.stemHop(
            op, from: from, peers: peers, replica: replica, rng: &rng, stats: &stats, nowMs: nowMs, config: config.spread)
        carry(acts, nowMs: nowMs, replica: replica, into: &out)
    }
}

extension Spread {
    /// Whether an op of `pack` is under our embargo (so reconciliation shows less than we hold).
    func holdsUnderEmbargo(_ pack: PackID, replica: Replica) -> Bool {
        !stem.embargo.isEmpty && stem.embargo.keys.contains { replica.op($0)?.packID == pack }
    }

    /// A pack's (hlc, id) items without the ops under embargo (what reconciliation shows).
    func visibleItems(_ replica: Replica, pack: PackID) -> [Reconciliation.Item] {
        let all = replica.opIDs(inPack: pack)
        guard !stem.embargo.isEmpty else { return all }
        return all.filter { stem.embargo[$0.id] == nil }
    }
}
