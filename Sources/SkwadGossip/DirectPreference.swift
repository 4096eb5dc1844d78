import SkwadModel

/// The overlay prefers direct links (PROTOCOL §9 "Relays", "Direct links first"): a relayed
/// link ("TARGET@RELAY") is a fallback. Both of its ends keep trying a direct handshake toward
/// the other's address as the relay sees it, on one back-off schedule counted from when the
/// link came up (`firstRetryMs`, doubling up to `maxRetryMs`): the two ends' tries thus leave
/// within a tick of each other, and each opens its own NAT's mapping toward the other for the
/// NAT's UDP timeout (30 s or more), so the other's arrives as a reply when the NATs allow it
/// at all. Once a direct link to TARGET is up (this way, a later introduction, or any other
/// path), the relayed one is retired at once: no more frames go through the relay.
struct DirectRetries: Sendable {
    struct Schedule: Sendable, Equatable { var dueMs: UInt64; var delayMs: UInt64 }
    /// Per relayed active member (at most the active view's size).
    var schedules: [PeerAddress: Schedule] = [:]

    /// The soonest try due (`.max`: none).
    var nextDueMs: UInt64 { schedules.values.lazy.map(\.dueMs).min() ?? .max }

    /// The next try after one due at `s.dueMs`: counted from the schedule, not from when the
    /// tick ran, so both ends stay in step; a node asleep past several tries starts from now.
    static func next(after s: Schedule, nowMs: UInt64) -> Schedule {
        let delay = min(maxRetryMs, s.delayMs &* 2)
        let due = s.dueMs &+ delay
        return Schedule(dueMs: due > nowMs ? due : nowMs &+ delay, delayMs: delay)
    }
}

extension Reach {
    /// The part's due work at a tick (`EnginePart.reach`): each relayed active member whose
    /// try is due gets a `Join` to its target's own address (unless a link or a handshake
    /// there is already under way).
    mutating func retryDirect(nowMs: UInt64, peers: PeerTable, stats: inout GossipStats) -> [ReachAction] {
        // Every tick of every node: nothing to sort or rebuild without a relayed member.
        guard !retries.schedules.isEmpty || peers.active.keys.contains(where: \.isRelayed) else { return [] }
        var acts: [ReachAction] = []
        var kept: [PeerAddress: DirectRetries.Schedule] = [:]
        for r in peers.active.keys.sorted() {
            guard let (target, _) = r.relayParts, let since = peers.active[r]?.sinceMs else { continue }
            let first = DirectRetries.firstRetryMs
            var s = retries.schedules[r] ?? .init(dueMs: since &+ first, delayMs: first)
            if nowMs >= s.dueMs {
                if !peers.isLink(target), target != peers.me {
                    stats.directRetries += 1
                    acts.append(.join(target))
                }
                s = DirectRetries.next(after: s, nowMs: nowMs)
            }
            kept[r] = s
        }
        retries.schedules = kept
        return acts
    }
}

extension GossipEngine {
    /// `peer` is (becoming) a direct member: relayed links to it are retired, every role and
    /// what every part holds about them, without marking them dead (nothing should bring
    /// them back).
    mutating func retireRelayedTwins(of peer: PeerAddress, into out: inout [GossipDirective]) {
        guard !peer.isRelayed, peers.active.keys.contains(where: \.isRelayed) || peers.passive.keys.contains(where: \.isRelayed) else {
            return
        }
        for r in peers.active.keys.sorted() + peers.passive.keys.sorted() where r.relayParts?.target == peer {
            if peers.retire(r) { out.append(.peerDown(r)) }
            forgetInParts(r)
            stats.relayedToDirect += 1
        }
    }

    /// A relayed address whose target is already a direct member is not taken on.
    func hasDirectTwin(_ peer: PeerAddress) -> Bool {
        guard let (target, _) = peer.relayParts else { return false }
        return peers.active[target] != nil
    }
}
