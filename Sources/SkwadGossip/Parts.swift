import SkwadModel
import SkwadReplica

// The engine's parts and what the engine asks of each: its due work at a tick, whether it has
// prompt work, its next deadline (`TimedPart`), and to drop a peer (`PeerState`). `EnginePart`
// lists them once; `tick`, `busy`, `idleWait` and `forgetInParts` walk that list.

/// The engine's parts, in the order a tick runs their due work (`GossipEngine.tick`). Each is
/// asked the same four things (the switches below): its due work at a tick (`tick`), whether
/// it has work that must not wait for an idle tick (`busy`), when its next work falls due
/// (`nextDeadlineMs`), and what it drops of a peer the engine gives up on (`forget`). A new
/// part is one case here, its line in each switch (the compiler asks for them), and its file.
enum EnginePart: Int, CaseIterable, Sendable {
    /// The session layer (`channels`, SecureChannels.swift): HELLOs sent again or given up
    /// on, sessions expired.
    case channels
    /// Dissemination (`spread`, Dissemination.swift): IHAVEs owed, grafts of announced ops, the
    /// stem's fail-safes.
    case spread
    /// SWIM (`swim`, FailureDetector.swift, on the peer table's clocks): pings of silent
    /// members, their timeouts, the dead dropped.
    case swim
    /// Reach (`reach`, DirectPreference.swift): direct tries of relayed members, after the
    /// dead are dropped (a dead one is not tried) and before the view is filled.
    case reach
    /// HyParView (`membership`, Membership.swift): trials ended, a neighbour request under way
    /// ended, a new one while the active view has room, a re-join through the seeds.
    case membership
    /// Pictures (`pictures`, Pictures.swift): waiting asks answered empty, asks timed out
    /// sent again, blocks still lacking asked for.
    case pictures
    /// The pack directory (`directory`, Directory.swift): nothing of its own at a tick; its
    /// pulls run with the rounds (the directory round, and new links' pulls just before it).
    case directory
    /// The vicinity (`vicinity`, Vicinity.swift, RemoteContacts.swift): nothing of its own at a
    /// tick; its exchanges and remote contacts run with the rounds (vicinity, remote).
    case vicinity
    /// The periodic rounds that fell due (`rounds`, Rounds.swift).
    case rounds
}

extension GossipEngine {
    /// `part`'s due work at a tick.
    mutating func tick(_ part: EnginePart, nowMs: UInt64, replica: inout Replica, into out: inout [GossipDirective]) {
        switch part {
        case .channels: perform(channels.tick(nowMs: nowMs, stats: &stats), nowMs: nowMs, into: &out)
        case .spread: tickSpread(nowMs: nowMs, replica: replica, into: &out)
        case .swim: detectFailures(nowMs: nowMs, into: &out)
        case .reach: retryDirect(nowMs: nowMs, into: &out)
        case .membership: fillActiveView(nowMs: nowMs, into: &out)
        case .pictures: pumpPictures(nowMs: nowMs, replica: replica, into: &out)
        case .directory, .vicinity: break
        case .rounds: tickRounds(nowMs: nowMs, replica: &replica, into: &out)
        }
    }

    /// Whether `part` has work that must not wait for an idle tick.
    func busy(_ part: EnginePart) -> Bool {
        switch part {
        case .channels: channels.busy
        case .spread: spread.busy
        case .swim: swim.busy
        case .reach: reach.busy
        case .membership: membership.busy
        case .pictures: pictures.busy
        case .directory: directory.busy
        case .vicinity: vicinity.busy
        case .rounds: rounds.busy
        }
    }

    /// When `part`'s next work falls due (`.max`: none of its own).
    func nextDeadlineMs(_ part: EnginePart, nowMs: UInt64) -> UInt64 {
        switch part {
        case .channels: channels.nextDeadlineMs(nowMs: nowMs)
        case .spread: spread.nextDeadlineMs(nowMs: nowMs)
        case .swim: peers.swimDeadlineMs
        case .reach: reach.nextDeadlineMs(nowMs: nowMs)
        case .membership: peers.membershipDeadlineMs(nowMs: nowMs)
        case .pictures: pictures.nextDeadlineMs(nowMs: nowMs)
        case .directory: directory.nextDeadlineMs(nowMs: nowMs)
        case .vicinity: vicinity.nextDeadlineMs(nowMs: nowMs)
        case .rounds: rounds.nextDeadlineMs(nowMs: nowMs)
        }
    }

    /// Drops what `part` holds about `peer` (`PeerState`).
    mutating func forget(_ peer: PeerAddress, in part: EnginePart) {
        switch part {
        case .channels:
            channels.sealEarly(stats: &stats)  // what was sent to it in this call goes under its session
            channels.forget(peer)
        case .spread: spread.forget(peer)
        case .swim: swim.forget(peer)  // its clocks are the peer table's, dropped with the peer's roles (the caller's)
        case .reach: reach.forget(peer)
        case .membership: membership.forget(peer)
        case .pictures: pictures.forget(peer)
        case .directory: directory.forget(peer)
        case .vicinity: vicinity.forget(peer)
        case .rounds: break  // no peer
        }
    }

    /// Work that must not wait for an idle tick, in any part: handshakes under way, lazy
    /// notices to flush, announced ops to graft, a neighbour request under way, pictures being
    /// fetched, new links' directories to pull.
    var busy: Bool {
        for part in EnginePart.allCases where busy(part) { return true }
        return false
    }

    /// How long an engine without prompt work sleeps: until the soonest deadline of any part
    /// (a session's expiry, a ping, an ack or death timeout, a direct try, a trial, a round),
    /// at least `tickMs`, at most `idleTickMs`. Every deadline set between ticks is at least
    /// `idleTickMs` away (rounds poked to their base interval, a new member's first ping, a
    /// session's expiry), or comes with prompt work.
    func idleWait(nowMs: UInt64) -> UInt64 {
        var due = nowMs &+ config.ticks.idleTickMs
        for part in EnginePart.allCases { due = min(due, nextDeadlineMs(part, nowMs: nowMs)) }
        return due > nowMs ? max(config.ticks.tickMs, due - nowMs) : config.ticks.tickMs
    }

    /// What every part holds about `peer`, dropped (the peer table's roles are the caller's:
    /// `forget`, `retireRelayedTwins`). The rate limits (`limits`) hold budgets only.
    mutating func forgetInParts(_ peer: PeerAddress) {
        for part in EnginePart.allCases { forget(peer, in: part) }
    }
}

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
