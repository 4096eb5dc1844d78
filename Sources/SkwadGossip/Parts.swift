import SkwadModel

// The engine's parts (GossipEngine's stored properties) and what the engine asks of them: to
// drop a peer (`PeerState`), and their own time (`TimedPart`).

/// A part of the engine that keeps state about single peers, by address. When the engine
/// gives up on a peer (`forget`) or retires a relayed link for a direct one
/// (`retireRelayedTwins`), every such part drops it in one call (`forgetInParts`); the peer
/// table, told why, drops the peer's roles itself. What a part keeps past that it keeps on
/// purpose, and its `forget` says what and why: budgets per address (a peer must not get its
/// allowance back by being forgotten; each such table is bounded on its own) and work in
/// flight that ends by itself. `ForgetTests` holds every stored property of the engine to it.
protocol PeerState {
    /// Drops what this part holds about `peer`.
    mutating func forget(_ peer: PeerAddress)
}

extension GossipEngine {
    /// What every part holds about `peer`, dropped (the peer table's roles are the caller's:
    /// `forget`, `retireRelayedTwins`). The rate limits (`limits`) hold budgets only.
    mutating func forgetInParts(_ peer: PeerAddress) {
        channels.sealEarly(stats: &stats)  // what was sent to it in this call goes under its session
        channels.forget(peer)
        spread.forget(peer)
        membership.forget(peer)
        reach.forget(peer)
        pictures.forget(peer)
    }
}

extension SecureChannels: PeerState {
    /// Its sessions and handshake go. Kept: its datagram and byte budget (`addressLimits`).
    mutating func forget(_ peer: PeerAddress) { drop(peer) }
}

extension Spread: PeerState {
    /// Its Plumtree mark goes: a link that comes back starts eager. Kept, each ending by
    /// itself: the IHAVEs owed to it (the next tick sends them to links only), its
    /// announcements of ids we lack (grafted from each announcer in turn, then left to
    /// reconciliation), a directory pull owed to it as a new link (the next tick, links
    /// only), reconciliations it left unanswered (counted when the round ends), and the stem
    /// link (chosen again at its next use when it is no link).
    mutating func forget(_ peer: PeerAddress) { plumtree.setLazy(peer, false) }
}

extension MembershipState: PeerState {
    /// A neighbour request to it goes. Kept: the seeds (configuration), pings relayed for it
    /// or toward it (each ends with its ack, or the oldest goes: `indirectCapacity`), and
    /// when it last joined (a budget: `MembershipGuard.lastJoinMs`).
    mutating func forget(_ peer: PeerAddress) { if pendingNeighbor?.address == peer { pendingNeighbor = nil } }
}

extension Reach: PeerState {
    /// What it told us it sees us as, our direct tries toward it, fallbacks through it, and
    /// contact checks of it go (each part says what it keeps).
    mutating func forget(_ peer: PeerAddress) {
        reflexive.forget(peer)
        introductions.forget(peer)
        retries.schedules[peer] = nil
        contacts.forget(peer)
    }
}

/// A part of the engine with timed work of its own. A tick runs every part's due work
/// (`GossipEngine.tick`); after a tick or an input the engine asks the parts whether any
/// has work that must not wait for an idle tick (`busy`: it ticks again after `tickMs`), and
/// otherwise sleeps until the soonest part's deadline (`idleWait`).
protocol TimedPart {
    /// Work that must not wait for an idle tick.
    var busy: Bool { get }
    /// When its next work falls due (`.max`: none of its own).
    func nextDeadlineMs(nowMs: UInt64) -> UInt64
}

extension TimedPart {
    var busy: Bool { false }
    func nextDeadlineMs(nowMs: UInt64) -> UInt64 { .max }
}

extension GossipEngine {
    /// Work that must not wait for an idle tick, in any part: lazy notices to flush, announced
    /// ops to graft, handshakes and a neighbour request under way, pictures being fetched.
    var busy: Bool { spread.busy || channels.busy || membership.busy || pictures.busy }

    /// How long an engine without prompt work sleeps: until the soonest deadline of any part
    /// (a round, a ping, an ack or death timeout, a trial, a session's expiry, a direct try),
    /// at least `tickMs`, at most `idleTickMs`. Every deadline set between ticks is at least
    /// `idleTickMs` away (rounds poked to their base interval, a new member's first ping, a
    /// session's expiry), or comes with prompt work.
    func idleWait(nowMs: UInt64) -> UInt64 {
        let due = min(
            nowMs &+ config.idleTickMs, channels.nextDeadlineMs(nowMs: nowMs), rounds.nextDeadlineMs(nowMs: nowMs),
            reach.nextDeadlineMs(nowMs: nowMs), peers.nextDeadlineMs(nowMs: nowMs))
        return due > nowMs ? max(config.tickMs, due - nowMs) : config.tickMs
    }
}

extension SecureChannels: TimedPart {
    /// A handshake under way (its HELLO is sent again, or given up on, at a tick).
    var busy: Bool { handshakesUnderWay }
    /// When the next session may expire.
    func nextDeadlineMs(nowMs: UInt64) -> UInt64 { nextExpiryMs }
}

extension Rounds: TimedPart {
    /// The soonest round.
    func nextDeadlineMs(nowMs: UInt64) -> UInt64 { nextDueMs }
}

extension Spread: TimedPart {
    /// Lazy notices to flush, announced ops to graft, new links' directories to pull, ops
    /// under embargo (their fail-safe).
    var busy: Bool { plumtree.hasPromptWork || !newLinks.isEmpty || !stem.embargo.isEmpty }
}

extension MembershipState: TimedPart {
    /// A neighbour request under way.
    var busy: Bool { pendingNeighbor != nil }
}

extension Reach: TimedPart {
    /// The soonest direct try of a relayed member.
    func nextDeadlineMs(nowMs: UInt64) -> UInt64 { retries.nextDueMs }
}

extension PictureFetches: TimedPart {}

extension PeerTable: TimedPart {
    /// Membership's clocks (SWIM, Membership.swift): per active member its ack or death
    /// timeout, or its next ping; a trial's end; while the view has room, the next ask of a
    /// passive peer (`fillingTickMs`, the pace of its own retry clocks).
    func nextDeadlineMs(nowMs: UInt64) -> UInt64 {
        var due = UInt64.max
        func at(_ t: UInt64) { if t < due { due = t } }
        for (_, m) in activeClocks {
            if m.suspectSinceMs != nil {
                at(m.lastHeardMs &+ swim.deadAfterMs)
            } else if let sent = m.pingSentMs, m.lastHeardMs <= sent {
                at(sent &+ swim.ackTimeoutMs)
            }
            // Up to `fillingTickMs` after the ping falls due, spread by when we last heard it:
            // woken exactly when due, two members that ping each other wake together, each
            // one's ping crosses the other's, and twice as many pings go.
            else {
                at(m.lastHeardMs &+ swim.pingIntervalMs &+ GossipEngine.spread(m.lastHeardMs))
            }
        }
        for c in candidates.values { at(c.sinceMs &+ MembershipGuard.candidateTimeoutMs) }
        if hasRoom { at(nowMs &+ GossipEngine.fillingTickMs) }
        return due
    }
}
