import SkwadModel
import SkwadReplica

/// Introductions and hole punching (PROTOCOL §9 "Introductions", after libp2p DCUtR): a node
/// that holds two active members sharing a pack or a fence sends each the other's address as
/// it sees it (for a node behind a NAT, its router's public address and port), both at once,
/// when both say they are behind a NAT (`NodeInfo.behindNat`: most links see them from an
/// address not their own, `ReflexiveAddresses.behindNat`); each sends
/// the other a `Join`, whose handshake opens the hole in its own NAT while the other's opens
/// the way back. Behind endpoint-independent NATs the two link directly (a direct link is
/// preferred: DirectPreference.swift); two already linked ignore it.
struct IntroductionState: Sendable {
    /// Pairs introduced and when: not again for `againMs`, at most `capacity` (oldest goes).
    var introduced: [Pair: UInt64] = [:]
    /// Introductions we send, pairs per second (each pair is two messages).
    var budget = TokenBucket(rate: 2, burst: 10, nowMs: 0)
    /// Addresses we punched toward because of an introduction, and when: one punch per
    /// address per `againMs`, at most `capacity` remembered.
    var punched: [PeerAddress: UInt64] = [:]
    /// Who introduced each address we punched toward and have not reached yet: the relay
    /// to fall back on (Relay.swift). Bounded with `punched`.
    var introducer: [PeerAddress: PeerAddress] = [:]

    /// Pairs a member may be introduced in, per member (however often it changes its cell or
    /// subscriptions): a burst of 4, then one every 150 s; `capacity` members tracked (the
    /// least recently introduced go).
    var perMember: [PeerAddress: TokenBucket] = [:]
    /// The fences of the live packs we hold (not invite-only ones), at most `capacity`, as of
    /// the last remote round: two members inside one share it.
    var fences: [Geofence] = []

    struct Pair: Hashable, Comparable, Sendable {
        let a: PeerAddress, b: PeerAddress
        init(_ x: PeerAddress, _ y: PeerAddress) { (a, b) = x < y ? (x, y) : (y, x) }
        static func < (l: Pair, r: Pair) -> Bool { (l.a, l.b) < (r.a, r.b) }
    }

    /// Do two members share a pack or a fence? A subscribed pack; or both cells finer than a
    /// stranger's (precision 5 or finer) and either within `directoryNearMeters` (10 km) of
    /// each other — then every unlocked fence one of them is inside is in the other's directory
    /// (§11a) — or both inside the fence of one live pack we hold. An introduction carries no
    /// cell: what the two learn of each other's place is what linking tells any link.
    func share(_ a: NodeInfo, _ b: NodeInfo) -> Bool {
        if !a.subscriptions.isDisjoint(with: b.subscriptions) { return true }
        guard let p = a.place, let q = b.place, let ca = a.cell, let cb = b.cell,
            ca.utf8.count > GossipEngine.strangerPrecision, cb.utf8.count > GossipEngine.strangerPrecision
        else { return false }
        if p.center.distance(to: q.center) <= GossipEngine.directoryNearMeters { return true }
        return fences.contains { $0.contains(cell: p) && $0.contains(cell: q) }
    }

    /// A peer given up on: its fallback relay goes, and so does every fallback through it.
    /// Kept: the pairs it was introduced in, the punches toward it and its allowance
    /// (budgets: `againMs`, `perMember`).
    mutating func forget(_ peer: PeerAddress) {
        guard !introducer.isEmpty else { return }
        introducer[peer] = nil
        if introducer.values.contains(peer) { introducer = introducer.filter { $0.value != peer } }
    }

    /// Whether `pair` may be introduced now, for `member`'s change: not again within `againMs`
    /// (`recently`), and within `member`'s allowance and ours (`limited`); if so it is noted.
    mutating func mayIntroduce(_ pair: Pair, for member: PeerAddress, nowMs: UInt64) -> Verdict {
        if let at = introduced[pair], nowMs < at &+ Self.againMs { return .recently }
        guard takeMember(member, nowMs: nowMs), budget.take(1, nowMs: nowMs) else { return .limited }
        introduced.makeRoom(for: pair, capacity: Self.capacity) { $0 }
        introduced[pair] = nowMs
        return .yes
    }

    enum Verdict { case yes, recently, limited }

    /// Whether a punch toward `target`, introduced by `via`, may go now (one per address per
    /// `againMs`); if so it is noted, and `via` is the relay to fall back on.
    mutating func mayPunch(_ target: PeerAddress, via: PeerAddress, nowMs: UInt64) -> Bool {
        if let at = punched[target], nowMs < at &+ Self.againMs { return false }
        punched.makeRoom(for: target, capacity: Self.capacity) { $0 }
        punched[target] = nowMs
        introducer = introducer.filter { punched[$0.key] != nil }
        introducer[target] = via
        return true
    }

    /// Takes one pair from `member`'s allowance.
    mutating func takeMember(_ member: PeerAddress, nowMs: UInt64) -> Bool {
        if perMember[member] == nil {
            perMember.makeRoom(for: member, capacity: Self.capacity) { $0.lastMs }
            perMember[member] = TokenBucket(rate: Self.perMemberPerSecond, burst: Self.perMemberBurst, nowMs: nowMs)
        }
        return perMember[member]!.take(1, nowMs: nowMs)
    }
}

extension Reach {
    /// `peer` became an active member or told us a new cell or subscriptions: introduce it to
    /// up to `pairsPerChange` other members sharing a pack or a fence with it and not
    /// introduced to it lately, within its own allowance and ours. Relayed members are not
    /// introduced (their address means nothing to anyone else).
    mutating func introduceSharers(of peer: PeerAddress, nowMs: UInt64, peers: PeerTable, stats: inout GossipStats) -> [ReachAction] {
        guard let me = peers.active[peer]?.info, me.behindNat, !peer.isRelayed else { return [] }
        var acts: [ReachAction] = []
        var made = 0
        for other in peers.active.keys.sorted() where other != peer && made < IntroductionState.pairsPerChange {
            guard !other.isRelayed, let them = peers.active[other]?.info, them.behindNat, introductions.share(me, them) else {
                continue
            }
            switch introductions.mayIntroduce(IntroductionState.Pair(peer, other), for: peer, nowMs: nowMs) {
            case .recently: continue
            case .limited: stats.drop(.introductionLimited); return acts
            case .yes: break
            }
            let padding = [UInt8](repeating: 0, count: IntroductionState.minPadding)
            acts.append(.send(.introduce(peer: other, padding: padding), to: peer))
            acts.append(.send(.introduce(peer: peer, padding: padding), to: other))
            stats.introductionsSent += 2
            if me.subscriptions.isDisjoint(with: them.subscriptions) { stats.fenceIntroductions += 1 }
            made += 1
        }
        return acts
    }

    /// An introduction: from an active member only, padded, naming a canonical address that
    /// is neither us, the introducer, nor a link already; each address punched toward once
    /// per `againMs`, within the engine's budget for addresses learnt from others (20/s).
    /// `established`: whether a session with `target` is keyed.
    mutating func introduced(
        _ target: PeerAddress, padding: Int, from: PeerAddress, nowMs: UInt64, peers: PeerTable, accept: ((PeerAddress) -> Bool)?,
        established: Bool, stats: inout GossipStats
    ) -> [ReachAction] {
        guard peers.active[from] != nil else { stats.drop(.notAMember); return [] }
        guard padding >= IntroductionState.minPadding else { stats.drop(.amplification); return [] }
        guard target != from, target != peers.me, accept?(target) ?? true else { stats.drop(target.refusal); return [] }
        stats.introductionsHeard += 1
        // A link whose handshake is still under way (a walk named it just before) is being
        // punched toward already: only its fallback is noted, so that an unanswered
        // handshake still reaches it through this introducer.
        let underWay = peers.isLink(target) && !established
        guard !peers.isLink(target) || underWay else { return [] }
        guard introductions.mayPunch(target, via: from, nowMs: nowMs) else { stats.drop(.introductionLimited); return [] }
        guard !underWay else { stats.punches += 1; return [] }
        return [.punch(target)]
    }
}

extension GossipEngine {
    /// The fences two members may share (`IntroductionState.share`): our live packs', not
    /// invite-only ones (whose fence only their holders know).
    mutating func noteFences(_ replica: Replica, nowMs: UInt64) {
        reach.introductions.fences = spread.packViews.publicFences(replica, nowMs: nowMs, limit: IntroductionState.capacity)
    }
}
