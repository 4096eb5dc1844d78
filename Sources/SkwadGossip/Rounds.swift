import SkwadModel
import SkwadReplica

// The rounds part (`EnginePart.rounds`): the periodic rounds, their timers, and their due work
// at a tick (`tickRounds`).

/// The engine's periodic rounds, in the order a tick runs the due ones (`tickRounds`).
enum Round: Int, CaseIterable, Sendable {
    /// Peers dead too long forgotten, one dead peer asked again (`reviveRound`): every
    /// `reviveIntervalMs`, from the first tick.
    case revive
    /// An exchange with the nearest peer not asked yet (`vicinityRound`): backs off, but not
    /// while a vicinity entry only named by others waits to be asked.
    case vicinity
    /// Contacts inside the fences we need one in; Plumtree's marks and reconciliation misses
    /// pruned to the links (`remoteRound`): every `vicinityIntervalMs`, from `start`.
    case remote
    /// A HyParView shuffle (`shuffle`): backs off.
    case shuffle
    /// The pack directory reconciled, rim contacts pulled (`directoryRound`, `rimRound`):
    /// backs off.
    case directory
    /// Live packs reconciled (`reconcileRound`): backs off, but not while a reconciliation
    /// of the round before is unanswered.
    case reconcile
}

/// When each periodic round runs next (`tickRounds`), and when the shell is due
/// to tick us.
struct Rounds: Sendable {
    /// Each round's timer (Backoff.swift), by `Round`.
    private var timers: [Backoff]
    /// The active and vicinity view versions the rounds last saw (`noticeViewChanges`).
    var seenVersions = PeerTable.Versions()
    /// When we last asked the shell to tick us (shells keep the earliest request).
    var tickDueMs: UInt64 = .max
    var started = false

    init(config: GossipConfig) {
        timers = Round.allCases.map { round in
            switch round {
            case .revive: Backoff(baseMs: config.membership.reviveIntervalMs, maxMs: config.membership.reviveIntervalMs, dueMs: 0)
            case .vicinity: Backoff(baseMs: config.membership.vicinityIntervalMs, maxMs: config.ticks.quietMaxMs)
            case .remote: Backoff(baseMs: config.membership.vicinityIntervalMs, maxMs: config.membership.vicinityIntervalMs, dueMs: 0)
            case .shuffle: Backoff(baseMs: config.membership.shuffleIntervalMs, maxMs: config.ticks.quietMaxMs)
            case .directory: Backoff(baseMs: config.spread.directoryIntervalMs, maxMs: config.ticks.quietMaxMs)
            case .reconcile: Backoff(baseMs: config.spread.reconIntervalMs, maxMs: config.spread.reconQuietMaxMs)
            }
        }
    }

    subscript(round: Round) -> Backoff {
        get { timers[round.rawValue] }
        set { timers[round.rawValue] = newValue }
    }

    /// The soonest any round falls due.
    var nextDueMs: UInt64 { timers.reduce(UInt64.max) { min($0, $1.dueMs) } }

    /// Starts every round's clock but the revive round's, which runs from the first tick.
    mutating func start(nowMs: UInt64) {
        for round in Round.allCases where round != .revive { self[round].start(nowMs: nowMs) }
    }
}

extension Rounds: TimedPart {
    /// The soonest round.
    func nextDeadlineMs(nowMs: UInt64) -> UInt64 { nextDueMs }
}

extension GossipEngine {
    /// The periodic rounds that fell due, in `Round`'s order, each prepared first; then the
    /// view changes they made are noted.
    mutating func tickRounds(nowMs: UInt64, replica: inout Replica, into out: inout [GossipDirective]) {
        for round in Round.allCases {
            prepare(round, nowMs: nowMs, replica: replica, into: &out)
            if rounds[round].fire(nowMs: nowMs) { run(round, nowMs: nowMs, replica: &replica, into: &out) }
        }
        noticeViewChanges(nowMs: nowMs)
    }

    /// What a tick does before it asks whether `round` is due: view changes seen so far make
    /// the vicinity round prompt again; work a round left undone keeps it from backing off
    /// (§9); links that came up since the last tick have their directory reconciled at once,
    /// before the directory round (§11a).
    mutating func prepare(_ round: Round, nowMs: UInt64, replica: Replica, into out: inout [GossipDirective]) {
        switch round {
        case .revive, .remote, .shuffle: break
        case .vicinity:
            noticeViewChanges(nowMs: nowMs)
            // A vicinity entry named by others and not asked yet is work left.
            if rounds[.vicinity].isDue(nowMs: nowMs), peers.hasUncontactedVicinity { rounds[.vicinity].unsettled() }
        case .directory:
            flushNewLinks(nowMs: nowMs, replica: replica, into: &out)
        case .reconcile:
            if !spread.reconUnanswered.isEmpty, rounds[.reconcile].isDue(nowMs: nowMs) { rounds[.reconcile].unsettled() }
        }
    }

    /// Runs one round that fell due.
    mutating func run(_ round: Round, nowMs: UInt64, replica: inout Replica, into out: inout [GossipDirective]) {
        switch round {
        case .revive:
            sweepRateLimits(nowMs: nowMs)
            reviveRound(nowMs: nowMs, into: &out)
        case .vicinity: vicinityRound(nowMs: nowMs, into: &out)
        case .remote:
            let linkSet = Set(links)
            spread.plumtree.retain(links: linkSet)
            peers.retainReconMisses(links: linkSet)
            remoteRound(nowMs: nowMs, replica: replica, into: &out)
            noteFences(replica, nowMs: nowMs)
        case .shuffle: shuffle(nowMs: nowMs, into: &out)
        case .directory:
            directoryRound(nowMs: nowMs, replica: replica, into: &out)
            rimRound(nowMs: nowMs, replica: replica, into: &out)
        case .reconcile: reconcileRound(nowMs: nowMs, replica: replica, into: &out)
        }
    }

    /// Views that changed since the last look make their rounds prompt again: a new or lost
    /// member (shuffle, reconciliation, directory), a new or lost vicinity entry (vicinity).
    mutating func noticeViewChanges(nowMs: UInt64) {
        let v = peers.versions
        if v.active != rounds.seenVersions.active {
            rounds[.shuffle].poke(nowMs: nowMs); rounds[.reconcile].poke(nowMs: nowMs); rounds[.directory].poke(nowMs: nowMs)
        }
        if v.vicinity != rounds.seenVersions.vicinity { rounds[.vicinity].poke(nowMs: nowMs) }
        rounds.seenVersions = v
    }
}
