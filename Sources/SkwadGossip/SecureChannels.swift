import SkwadCrypto

/// The wire and session layer (PROTOCOL §8, §13) as a state machine: frame checks,
/// per-address limits, the HELLO / WELCOME / COOKIE handshake, DATA decryption, and sealing
/// what the engine sends. Everything a stranger can reach before it has proven anything
/// lives here. It does no I/O: each input returns the `Action`s to carry out, and counts
/// into the `GossipStats` it is handed. Session slots and their legal transitions are in
/// SessionTable.swift: an established session stays until a new one has authenticated DATA.
/// What the engine sends on an established session is held until the engine call ends and
/// then sealed, several messages to a frame (`sealHeld`, MessageBundle.swift, §8 "Bundles").
struct SecureChannels: Sendable {
    enum Action: Sendable, Equatable {
        /// Send these bytes as one datagram.
        case emit([UInt8], to: PeerAddress)
        /// A handshake we started was never answered (`helloAttempts` HELLOs).
        case unreachable(PeerAddress)
    }

    /// What a datagram turned out to be.
    enum Received: Sendable {
        case dropped
        /// A handshake frame, dealt with here.
        case handled
        /// An authenticated plaintext for the engine.
        case message([UInt8])
        /// DATA from an address without a session (dropped): the peer may have restarted.
        case noSession
    }

    /// Its settings: handshake retries, queues, table sizes, session timeouts, cookies.
    let settings: GossipConfig.Sessions
    private(set) var sessions: SessionTable
    private var addressLimits: AddressLimits
    /// Handshakes per second done without a cookie; past it, HELLOs get a COOKIE (§8).
    private var handshakeBudget: TokenBucket
    private var cookies: CookieJar
    /// Initiator sessions whose handshake is under way (a superset; checked when retried).
    private(set) var handshaking: Set<PeerAddress> = []
    /// Seeds for ephemeral keys; nil: drawn from the engine's generator (`EngineSecrets.seeded`).
    var keySeeds: (@Sendable () -> [UInt8])?
    /// Accepts or refuses a peer address before any state is kept for it (nil: any).
    var addressFilter: (@Sendable (PeerAddress) -> Bool)?

    /// A plaintext for an established session, held until the engine call ends.
    struct Held: Sendable {
        let to: PeerAddress
        let plaintext: [UInt8]
        let solicits: Bool
    }
    /// What this engine call sent on established sessions, in the order sent. Sealed at the end
    /// of the call, and before anything changes the session table (`sealEarly`), so that each
    /// is sealed under the session it was sent on.
    private var held: [Held] = []
    /// The time of the call they were sent in.
    private var heldNowMs: UInt64 = 0
    /// Frames sealed before the call ended, not handed out yet.
    private var sealedEarly: [Action] = []

    init(config: GossipConfig, cookieMaster: [UInt8]) {
        settings = config.sessions
        sessions = SessionTable(capacity: settings.maxSessions)
        addressLimits = AddressLimits(
            capacity: settings.maxAddressLimits, datagramsPerSecond: config.limits.peerDatagramsPerSecond,
            bytesPerSecond: config.limits.peerBytesPerSecond)
        handshakeBudget = TokenBucket(rate: settings.handshakesPerSecond, burst: settings.handshakesPerSecond, nowMs: 0)
        cookies = CookieJar(master: cookieMaster, epochMs: settings.cookieEpochMs)
    }

    var count: Int { sessions.count }
    var addressLimitCount: Int { addressLimits.count }

    /// Forgets rate-limit buckets that have refilled (GossipEngine's revive round).
    mutating func sweepLimits(nowMs: UInt64) { addressLimits.sweep(nowMs: nowMs) }
    func hasSession(_ p: PeerAddress) -> Bool { sessions[p] != nil }
    func isEstablished(_ p: PeerAddress) -> Bool { sessions[p]?.established == true }
    /// The binding of the session with `p` that carries our messages (Session.swift).
    func binding(_ p: PeerAddress) -> [UInt8]? { sessions[p]?.binding }

    /// Forgets an address's sessions and handshake.
    mutating func drop(_ p: PeerAddress) {
        sessions[p] = nil
        handshaking.remove(p)
    }

    // MARK: - receiving

    /// Checks, limits and decrypts one datagram.
    mutating func receive(
        _ datagram: [UInt8], from: PeerAddress, nowMs: UInt64, rng: inout SplitMix,
        stats: inout GossipStats
    ) -> (Received, [Action]) {
        stats.datagramsIn += 1
        stats.bytesIn += datagram.count
        guard datagram.count <= Frame.maxDatagram else { stats.drop(.tooLarge); return (.dropped, []) }
        guard datagram.count >= 4, datagram[0] == Frame.magic[0], datagram[1] == Frame.magic[1] else {
            stats.drop(.malformedFrame); return (.dropped, [])
        }
        guard datagram[2] == Frame.version else { stats.drop(.badVersion); return (.dropped, []) }
        if let accept = addressFilter, !accept(from.filtered) { stats.drop(from.filtered.refusal); return (.dropped, []) }
        let evictedBefore = addressLimits.evictions
        let allowed = addressLimits.take(from: from, bytes: datagram.count, nowMs: nowMs)
        stats.limitEvictions += addressLimits.evictions - evictedBefore
        guard allowed else { stats.drop(.rateLimited); return (.dropped, []) }
        sealEarly(stats: &stats)
        var out: [Action] = []
        let r: Received
        switch datagram[3] {
        case Frame.hello: r = receiveHello(datagram, from: from, nowMs: nowMs, rng: &rng, stats: &stats, into: &out)
        case Frame.welcome: r = receiveWelcome(datagram, from: from, nowMs: nowMs, stats: &stats, into: &out)
        case Frame.cookie: r = receiveCookie(datagram, from: from, nowMs: nowMs, stats: &stats, into: &out)
        case Frame.data: r = receiveData(datagram, from: from, nowMs: nowMs, stats: &stats, into: &out)
        default: stats.drop(.malformedFrame); r = .dropped
        }
        return (r, out)
    }

    private mutating func receiveHello(
        _ d: [UInt8], from: PeerAddress, nowMs: UInt64, rng: inout SplitMix, stats: inout GossipStats,
        into out: inout [Action]
    ) -> Received {
        guard d.count == Frame.helloSize else { stats.drop(.malformedFrame); return .dropped }
        let clientKey = Array(d[4..<36]), cookie = Array(d[36..<52])
        // A repeated HELLO (our WELCOME was lost) gets the same WELCOME, not new keys.
        for pending in [false, true] {
            guard var s = pending ? sessions.pending(from) : sessions[from], s.clientKey == Bytes32(clientKey), let welcome = s.welcome
            else {
                continue
            }
            s.received(d.count)
            if s.mayAmplify(welcome.count) {
                s.sent(welcome.count)
                out.append(.emit(welcome, to: from))
            } else {
                stats.drop(.amplification)
            }
            if pending { sessions.setPending(s, for: from) } else { sessions[from] = s }
            return .handled
        }
        // Both sides said hello at once: the lower public key stays initiator.
        if let mine = sessions[from], mine.isInitiator, !mine.established,
            mine.localPublicKey.lexicographicallyPrecedes(clientKey)
        {
            return .handled
        }
        // Under load, prove the address first (stateless COOKIE, 36 bytes < 3 × 200).
        if cookie.contains(where: { $0 != 0 }) && cookies.isValid(cookie, for: from, nowMs: nowMs) {
            stats.cookieHandshakes += 1
        } else if !handshakeBudget.take(1, nowMs: nowMs) {
            out.append(.emit(cookies.frame(for: from, clientKey: clientKey, nowMs: nowMs), to: from))
            stats.cookiesSent += 1
            return .handled
        }
        if sessions[from] == nil {
            switch sessions.makeRoom(forOurOwn: false) {
            case .free: break
            case .evicted(let a): stats.sessionEvictions += 1; handshaking.remove(a)
            case .full: stats.drop(.sessionTableFull); return .dropped
            }
        }
        guard var s = Session(responderWith: newKx(&rng), clientKey: clientKey, helloBytes: d.count, nowMs: nowMs),
            let welcome = s.welcome
        else { stats.drop(.malformedFrame); return .dropped }
        guard s.mayAmplify(welcome.count) else { stats.drop(.amplification); return .dropped }
        s.sent(welcome.count)
        stats.handshakes += 1
        out.append(.emit(welcome, to: from))
        if let current = sessions[from] {
            // Never replace a session on a HELLO: the new one waits beside it until a DATA
            // frame authenticates under it. Simultaneous open: it may carry our queue.
            if current.isInitiator && !current.established { s.queued = current.queued; flush(&s, to: from, into: &out) }
            // Our own HELLO to it is unanswered or was answered moments ago: the HELLOs crossed.
            s.crossed = current.isInitiator && (!current.established || current.age(nowMs) < settings.unprovenSessionMs)
            sessions.setPending(s, for: from)
        } else {
            sessions[from] = s
        }
        return .handled
    }

    private mutating func receiveWelcome(
        _ d: [UInt8], from: PeerAddress, nowMs: UInt64, stats: inout GossipStats,
        into out: inout [Action]
    ) -> Received {
        guard d.count == Frame.welcomeSize, var s = sessions[from], s.hello != nil else {
            stats.drop(.noSession); return .dropped
        }
        guard Array(d[36..<52]) == Blake2b.hash(s.localPublicKey, outputCount: 16),
            s.completeAsInitiator(serverKey: Array(d[4..<36]))
        else { stats.drop(.malformedFrame); return .dropped }
        sessions[from] = s
        sessions.touch(from, nowMs: nowMs)
        stats.handshakes += 1
        flushQueue(from, into: &out)
        return .handled
    }

    /// A COOKIE for our pending HELLO: send the HELLO again with the cookie.
    private mutating func receiveCookie(
        _ d: [UInt8], from: PeerAddress, nowMs: UInt64, stats: inout GossipStats,
        into out: inout [Action]
    ) -> Received {
        guard d.count == Frame.cookieSize, var s = sessions[from], s.hello != nil,
            Array(d[20..<36]) == Blake2b.hash(s.localPublicKey, outputCount: 16)
        else { stats.drop(.noSession); return .dropped }
        guard let hello = s.resendHello(nowMs: nowMs, cookie: Array(d[4..<20])) else { return .handled }
        sessions[from] = s
        out.append(.emit(hello, to: from))
        return .handled
    }

    private mutating func receiveData(
        _ d: [UInt8], from: PeerAddress, nowMs: UInt64, stats: inout GossipStats,
        into out: inout [Action]
    ) -> Received {
        var reason = DropReason.decryptFailed
        let hadCurrent: Bool
        switch sessions.openCurrent(from, d, nowMs: nowMs) {
        case .plaintext(let pt)?: return .message(pt)
        case .replay?: reason = .replay; hadCurrent = true
        case .failed?: hadCurrent = true
        case nil: hadCurrent = false
        }
        guard var p = sessions.pending(from) else {
            if hadCurrent { stats.drop(reason); return .dropped }
            stats.drop(.noSession); return .noSession
        }
        if case .plaintext(let pt) = p.open(d) {
            // Crossed HELLOs: each side holds its own session as current and the other's as
            // pending, and each promoted the other's on its first DATA under it, so that both
            // swapped and neither could read the other (two nodes that sent to each other in
            // the same instant, found in the engine tests). The session whose initiator key is
            // lower wins at both ends: its initiator keeps it and reads the other under the
            // pending one, which expires unpromoted.
            if p.crossed, var current = sessions[from], current.isInitiator,
                current.initiatorKey.bytes.lexicographicallyPrecedes(p.initiatorKey.bytes)
            {
                current.unansweredSinceMs = nil
                sessions[from] = current
                sessions.setPending(p, for: from)
                sessions.touch(from, nowMs: nowMs)
                return .message(pt)
            }
            // The newer session proved itself: it takes over (the peer restarted, or won a
            // simultaneous open).
            sessions.promotePending(from, p)
            sessions.touch(from, nowMs: nowMs)
            handshaking.remove(from)
            stats.sessionsReplaced += 1
            flushQueue(from, into: &out)
            return .message(pt)
        }
        stats.drop(reason)
        return .dropped
    }

    // MARK: - sending

    private func newKx(_ rng: inout SplitMix) -> KxKeyPair {
        let seed = keySeeds?() ?? rng.bytes(32)
        return (try? KxKeyPair(seed: seed)) ?? (try! KxKeyPair(seed: rng.bytes(32)))
    }

    /// Holds a plaintext to `to` for sealing at the end of the engine call (`sealHeld`) when
    /// their session is established, or queues it behind a handshake it starts. `solicits`: the
    /// peer always answers it, so a session that hears nothing back is silent (`expire`).
    mutating func send(
        _ pt: [UInt8], to: PeerAddress, solicits: Bool = true, nowMs: UInt64, rng: inout SplitMix, stats: inout GossipStats
    ) -> [Action] {
        if sessions.isEstablished(to) {
            held.append(Held(to: to, plaintext: pt, solicits: solicits))
            heldNowMs = nowMs
            return []
        }
        // A handshake or an eviction may change the table below.
        sealEarly(stats: &stats)
        if sessions[to] == nil {
            switch sessions.makeRoom(forOurOwn: true) {
            case .free: break
            case .evicted(let a): stats.sessionEvictions += 1; handshaking.remove(a)
            case .full: stats.drop(.sessionTableFull); return []
            }
        }
        let isNew = sessions[to] == nil
        var s = sessions[to] ?? Session(initiatorWith: newKx(&rng), nowMs: nowMs)
        guard s.queued.count < settings.maxQueuedPerPeer else { stats.drop(.queueFull); return [] }
        s.queued.append(pt)
        var out: [Action] = []
        if isNew, let hello = s.hello {
            handshaking.insert(to)
            out.append(.emit(hello.bytes, to: to))
        }
        sessions[to] = s
        return out
    }

    private mutating func flushQueue(_ to: PeerAddress, into out: inout [Action]) {
        guard var s = sessions[to], s.established else { return }
        flush(&s, to: to, into: &out)
        sessions[to] = s
    }

    /// Sends what `s` has queued, within its amplification budget.
    private func flush(_ s: inout Session, to: PeerAddress, into out: inout [Action]) {
        var keep: [[UInt8]] = []
        for pt in s.queued {
            guard s.maySend(pt), let frame = s.sealCounted(pt) else { keep.append(pt); continue }
            out.append(.emit(frame, to: to))
        }
        s.queued = keep
    }

    // MARK: - timers

    /// Drops unproven and silent sessions past their time, and sends HELLOs again (or gives
    /// up on an address after `helloAttempts`).
    mutating func tick(nowMs: UInt64, stats: inout GossipStats) -> [Action] {
        sealEarly(stats: &stats)
        let gone = sessions.expire(nowMs: nowMs, unprovenMs: settings.unprovenSessionMs, silentMs: settings.silentSessionMs)
        stats.sessionsExpired += gone.unproven
        stats.sessionsSilent += gone.silent
        var out: [Action] = []
        for addr in handshaking.sorted() {
            guard var s = sessions[addr], let hello = s.hello else { handshaking.remove(addr); continue }
            guard nowMs >= hello.sentAtMs + settings.helloRetryMs else { continue }
            if hello.attempts >= settings.helloAttempts {
                drop(addr)
                out.append(.unreachable(addr))
                continue
            }
            guard let again = s.resendHello(nowMs: nowMs) else { continue }
            sessions[addr] = s
            out.append(.emit(again, to: addr))
        }
        return out
    }

    // MARK: - held messages (§8 "Bundles")

    /// Something was sent in this engine call and not handed out yet.
    var hasHeld: Bool { !held.isEmpty || !sealedEarly.isEmpty }

    /// Seals what is held now (the session table is about to change); the frames are handed
    /// out with the rest by `sealHeld`.
    mutating func sealEarly(stats: inout GossipStats) {
        guard !held.isEmpty else { return }
        sealedEarly = sealHeld(stats: &stats)
    }

    /// Seals what is held, after the frames sealed early: to each peer in the order it was
    /// first sent to, its messages in the order sent, as many to a frame as fit in a datagram
    /// (at most `MessageBundle.maxMessages`); a message alone goes as itself.
    mutating func sealHeld(stats: inout GossipStats) -> [Action] {
        var out = sealedEarly
        sealedEarly = []
        guard !held.isEmpty else { return out }
        var batch: [Held] = []
        swap(&batch, &held)
        if batch.count == 1 {
            seal(batch[0].plaintext, to: batch[0].to, solicits: batch[0].solicits, stats: &stats, into: &out)
        } else {
            var taken = [Bool](repeating: false, count: batch.count)
            var group: [Held] = []
            for i in batch.indices where !taken[i] {
                group.removeAll(keepingCapacity: true)
                for j in i..<batch.count where !taken[j] && batch[j].to == batch[i].to {
                    group.append(batch[j])
                    taken[j] = true
                }
                sealBundled(group, stats: &stats, into: &out)
            }
        }
        batch.removeAll(keepingCapacity: true)
        if held.isEmpty { held = batch }  // keeps its capacity for the next call
        return out
    }

    /// One peer's held messages, in order: packed greedily into bundles that fit its datagrams.
    private mutating func sealBundled(_ group: [Held], stats: inout GossipStats, into out: inout [Action]) {
        let to = group[0].to, limit = to.maxPlaintext
        var k = 0
        while k < group.count {
            var end = k + 1
            var content = MessageBundle.entrySize(group[k].plaintext.count)
            while end < group.count, end - k < MessageBundle.maxMessages {
                let more = content + MessageBundle.entrySize(group[end].plaintext.count)
                guard MessageBundle.size(content: more) <= limit else { break }
                content = more
                end += 1
            }
            if end - k == 1 {
                seal(group[k].plaintext, to: to, solicits: group[k].solicits, stats: &stats, into: &out)
            } else {
                let parts = group[k..<end]
                let pt = MessageBundle.encode(parts.map(\.plaintext), content: content)
                stats.countSent(.bundle, bytes: pt.count - parts.reduce(0) { $0 + $1.plaintext.count })
                seal(pt, to: to, solicits: parts.contains { $0.solicits }, stats: &stats, into: &out)
            }
            k = end
        }
    }

    private mutating func seal(_ pt: [UInt8], to: PeerAddress, solicits: Bool, stats: inout GossipStats, into out: inout [Action]) {
        switch sessions.sealCurrent(to, pt, solicits: solicits, nowMs: heldNowMs, maxQueued: settings.maxQueuedPerPeer) {
        case .frame(let frame)?: out.append(.emit(frame, to: to))
        case .queued?, .failed?: break
        case .queueFull?: stats.drop(.amplification)
        // No established session any more: not reached, what is held is sealed before the table changes.
        case nil: stats.drop(.noSession)
        }
    }

    /// One more datagram from `from` against its budget, with no bytes (they were counted with
    /// the datagram): each message of a bundle after the first (§8 "Bundles").
    mutating func takeBundled(from: PeerAddress, nowMs: UInt64, stats: inout GossipStats) -> Bool {
        let evictedBefore = addressLimits.evictions
        let allowed = addressLimits.take(from: from, bytes: 0, nowMs: nowMs)
        stats.limitEvictions += addressLimits.evictions - evictedBefore
        return allowed
    }

    var handshakesUnderWay: Bool { !handshaking.isEmpty }
    /// When the next session may expire (the soonest deadline the last scan saw).
    var nextExpiryMs: UInt64 { sessions.nextExpiryScanMs }
}

extension SecureChannels: PeerState {
    /// Its sessions and handshake go. Kept: its datagram and byte budget (`addressLimits`).
    mutating func forget(_ peer: PeerAddress) { drop(peer) }
}

extension SecureChannels: TimedPart {
    /// A handshake under way (its HELLO is sent again, or given up on, at a tick).
    var busy: Bool { handshakesUnderWay }
    /// When the next session may expire.
    func nextDeadlineMs(nowMs: UInt64) -> UInt64 { nextExpiryMs }
}
