import SkwadModel
import SkwadReplica

/// Relays (PROTOCOL §9 "Relays", after libp2p circuit relay v2): when a punch fails (a
/// symmetric NAT gives each destination another port), the two introduced nodes reach each
/// other through their introducer. Each wraps the frames of its own end-to-end session with
/// the other in `Relay{to, frame}` to the relay, which passes them on as `Relayed{from, frame}`:
/// the relay sees only ciphertext of a session it holds no key of. The far peer is then known
/// by a relayed address, "TARGET@RELAY", which never leaves the engine (the wire refuses it).
/// A relay passes frames only between two of its active members, never for itself when it is
/// behind a NAT, within a byte budget per source and in all; what it sends is what it got,
/// to one member: no amplification.
struct RelayState: Sendable {
    /// Per source, its bucket (whose `lastMs` is when it last relayed: the oldest goes when full).
    var sources: [PeerAddress: TokenBucket] = [:]
    var total = TokenBucket(rate: totalBytesPerSecond, burst: totalBytesPerSecond * 8, nowMs: 0)

    mutating func take(_ bytes: Int, from source: PeerAddress, nowMs: UInt64) -> Bool {
        if sources[source] == nil {
            sources.makeRoom(for: source, capacity: Self.capacity) { $0.lastMs }
            sources[source] = TokenBucket(rate: Self.perSourceBytesPerSecond, burst: Self.perSourceBytesPerSecond * 8, nowMs: nowMs)
        }
        guard sources[source]!.take(Double(bytes), nowMs: nowMs) else { return false }
        guard total.take(Double(bytes), nowMs: nowMs) else { return false }
        return true
    }
}

extension PeerAddress {
    /// `target` reached through `relay`.
    static func relayed(_ target: PeerAddress, via relay: PeerAddress) -> PeerAddress { PeerAddress(target.value + "@" + relay.value) }

    /// The target and the relay of a relayed address (nil for a plain one).
    var relayParts: (target: PeerAddress, relay: PeerAddress)? {
        guard let at = value.firstIndex(of: "@") else { return nil }
        return (PeerAddress(String(value[..<at])), PeerAddress(String(value[value.index(after: at)...])))
    }

    /// What the shell's address filter judges: the target of a relayed address.
    var filtered: PeerAddress { relayParts?.target ?? self }

    /// (A byte scan: `String.contains(String)` went through Foundation and allocated, on every
    /// tick of every node.)
    public var isRelayed: Bool { value.utf8.contains(UInt8(ascii: "@")) }

    /// The largest plaintext a message to this address may have: a relayed peer's frames
    /// travel inside the relay's own frame.
    var maxPlaintext: Int { isRelayed ? Frame.maxPlaintext - RelayState.overhead : Frame.maxPlaintext }

    /// The address to tell a peer we see it at (`Observed`): none for a relayed one.
    var observable: PeerAddress? { isRelayed ? nil : self }
}

extension GossipEngine {
    /// A frame for a relayed address goes to its relay, wrapped.
    mutating func emitRelayed(_ frame: [UInt8], target: PeerAddress, relay: PeerAddress, nowMs: UInt64, into out: inout [GossipDirective]) {
        stats.relayFramesOut += 1
        send(.relay(to: target, frame: frame), to: relay, nowMs: nowMs, into: &out)
    }
}

extension Reach {
    /// A member asks us to pass a frame to another member (`behindNat`: what we think of
    /// ourselves; a node behind a NAT relays for no one).
    mutating func passOn(
        to target: PeerAddress, frame: [UInt8], from: PeerAddress, nowMs: UInt64, peers: PeerTable, behindNat: Bool,
        stats: inout GossipStats
    ) -> [ReachAction] {
        guard !behindNat, !from.isRelayed, peers.active[from] != nil, peers.active[target] != nil, target != from else {
            stats.drop(.relayRefused); return []
        }
        guard frame.count <= Frame.maxDatagram, relay.take(frame.count, from: from, nowMs: nowMs) else {
            stats.drop(.relayLimited); return []
        }
        stats.relayedBytes += frame.count
        return [.send(.relayed(from: from, frame: frame), to: target)]
    }

    /// A member passes us a frame from another of its members: the relayed address the frame
    /// is a datagram from (nil: refused).
    func relayed(from source: PeerAddress, relayedBy: PeerAddress, peers: PeerTable, stats: inout GossipStats) -> PeerAddress? {
        guard !relayedBy.isRelayed, peers.active[relayedBy] != nil, source != peers.me else { stats.drop(.relayRefused); return nil }
        return .relayed(source, via: relayedBy)
    }

    /// A punch toward `peer` was never answered: reach it through `via`, the member that
    /// introduced us, if it still is one (and we hold no direct link to it meanwhile).
    func punchFailed(_ peer: PeerAddress, via: PeerAddress, peers: PeerTable, stats: inout GossipStats) -> [ReachAction] {
        guard peers.active[via] != nil, !peer.isRelayed, peers.active[peer] == nil else { return [] }
        let relayed = PeerAddress.relayed(peer, via: via)
        guard !peers.isLink(relayed) else { return [] }
        stats.relayFallbacks += 1
        return [.join(relayed)]
    }
}
