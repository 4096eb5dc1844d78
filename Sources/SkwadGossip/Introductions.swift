import SkwadModel

/// Introductions and hole punching (PROTOCOL §9 "Introductions", after libp2p DCUtR): a node
/// that holds two active members sharing a pack sends each the other's address as it sees it
/// (for a node behind a NAT, its router's public address and port), both at once, when both
/// say they are behind a NAT (`NodeInfo.behindNat`: most links see them from an address not
/// their own, `ReflexiveAddresses.behindNat`); each sends
/// the other a `Join`, whose handshake opens the hole in its own NAT while the other's opens
/// the way back. Behind endpoint-independent NATs the two link directly (a direct link is
/// preferred: it is an active member like any other); two already linked ignore it.
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

    static let capacity = 256
    static let againMs: UInt64 = 60_000
    /// Pairs introduced per new member or interest change, at most.
    static let pairsPerChange = 2
    /// The zero padding an introduction carries, at least: its DATA frame (plaintext + 28
    /// bytes) is then over 266 bytes, and the handshake it causes toward an unproven address
    /// (a 200-byte HELLO, at most 4 tries: 800 bytes) is at most 3x its size.
    static let minPadding = 240

    struct Pair: Hashable, Comparable, Sendable {
        let a: PeerAddress, b: PeerAddress
        init(_ x: PeerAddress, _ y: PeerAddress) { (a, b) = x < y ? (x, y) : (y, x) }
        static func < (l: Pair, r: Pair) -> Bool { (l.a, l.b) < (r.a, r.b) }
    }
}

extension GossipEngine {
    /// `peer` became an active member or told us new subscriptions: introduce it to up to
    /// `pairsPerChange` other members sharing a pack with it and not introduced to it lately.
    mutating func introduceSharers(of peer: PeerAddress, nowMs: UInt64, into out: inout [GossipDirective]) {
        guard let me = peers.active[peer]?.info, me.behindNat, !me.subscriptions.isEmpty else { return }
        var made = 0
        for other in activePeers where other != peer && made < IntroductionState.pairsPerChange {
            guard let them = peers.active[other]?.info, them.behindNat, !them.subscriptions.isDisjoint(with: me.subscriptions) else {
                continue
            }
            let pair = IntroductionState.Pair(peer, other)
            if let at = reach.introductions.introduced[pair], nowMs < at &+ IntroductionState.againMs { continue }
            guard reach.introductions.budget.take(1, nowMs: nowMs) else { stats.drop(.introductionLimited); return }
            reach.introductions.introduced.makeRoom(for: pair, capacity: IntroductionState.capacity) { $0 }
            reach.introductions.introduced[pair] = nowMs
            let padding = [UInt8](repeating: 0, count: IntroductionState.minPadding)
            send(.introduce(peer: other, padding: padding), to: peer, nowMs: nowMs, into: &out)
            send(.introduce(peer: peer, padding: padding), to: other, nowMs: nowMs, into: &out)
            stats.introductionsSent += 2
            made += 1
        }
    }

    /// An introduction: from an active member only, padded, naming a canonical address that
    /// is neither us, the introducer, nor a link already; each address punched toward once
    /// per `againMs`, within the engine's budget for addresses learnt from others (20/s).
    mutating func onIntroduce(_ target: PeerAddress, padding: Int, from: PeerAddress, nowMs: UInt64, into out: inout [GossipDirective]) {
        guard peers.active[from] != nil else { stats.drop(.notAMember); return }
        guard padding >= IntroductionState.minPadding else { stats.drop(.amplification); return }
        guard target != from, target != selfAddress, addressFilter?(target) ?? true else { stats.drop(.badAddress); return }
        stats.introductionsHeard += 1
        guard !isLink(target) else { return }
        if let at = reach.introductions.punched[target], nowMs < at &+ IntroductionState.againMs {
            stats.drop(.introductionLimited); return
        }
        reach.introductions.punched.makeRoom(for: target, capacity: IntroductionState.capacity) { $0 }
        reach.introductions.punched[target] = nowMs
        reach.introductions.introducer = reach.introductions.introducer.filter { reach.introductions.punched[$0.key] != nil }
        reach.introductions.introducer[target] = from
        let (sent, ds) = introduce(target, nowMs: nowMs)
        out += ds
        if sent { stats.punches += 1 }
    }
}
