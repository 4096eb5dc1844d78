import SwiftProtobuf
import SkwadCrypto

/// The wire and session layer of the engine (PROTOCOL §8, §13): frame checks, per-address
/// limits, the HELLO / WELCOME / COOKIE handshake, DATA decryption, and sending through
/// sessions. Everything a stranger can reach before it has proven anything lives here.
extension GossipEngine {
    enum FrameOutcome { case dropped, handled, message([UInt8]) }

    /// Checks, limits and decrypts one datagram. `.message` carries an authenticated plaintext.
    mutating func receiveFrame(_ datagram: [UInt8], from: PeerAddress, nowMs: UInt64, into out: inout [GossipDirective]) -> FrameOutcome {
        stats.datagramsIn += 1
        stats.bytesIn += datagram.count
        guard datagram.count <= Frame.maxDatagram else { stats.drop(.tooLarge); return .dropped }
        guard datagram.count >= 4, datagram[0] == Frame.magic[0], datagram[1] == Frame.magic[1] else { stats.drop(.malformedFrame); return .dropped }
        guard datagram[2] == Frame.version else { stats.drop(.badVersion); return .dropped }
        if let accept = addressFilter, !accept(from) { stats.drop(.badAddress); return .dropped }
        let evictedBefore = limits.evictions
        let allowed = limits.take(from: from, bytes: datagram.count, nowMs: nowMs)
        stats.limitEvictions += limits.evictions - evictedBefore
        guard allowed else { stats.drop(.rateLimited); return .dropped }
        switch datagram[3] {
        case Frame.hello: return receiveHello(datagram, from: from, nowMs: nowMs, into: &out)
        case Frame.welcome: return receiveWelcome(datagram, from: from, nowMs: nowMs, into: &out)
        case Frame.cookie: return receiveCookie(datagram, from: from, nowMs: nowMs, into: &out)
        case Frame.data: return receiveData(datagram, from: from, nowMs: nowMs, into: &out)
        default: stats.drop(.malformedFrame); return .dropped
        }
    }

    mutating func receiveHello(_ d: [UInt8], from: PeerAddress, nowMs: UInt64, into out: inout [GossipDirective]) -> FrameOutcome {
        guard d.count == Frame.helloSize else { stats.drop(.malformedFrame); return .dropped }
        let clientKey = Array(d[4..<36]), cookie = Array(d[36..<52])
        // A repeated HELLO (our WELCOME was lost) gets the same WELCOME, not new keys.
        for pending in [false, true] {
            guard var s = pending ? sessions.pending(from) : sessions[from], s.role == .responder, s.clientKey == clientKey else { continue }
            s.bytesReceivedUnverified += d.count
            if s.mayAmplify(s.welcome.count) {
                s.bytesSentUnverified += s.welcome.count
                emit(s.welcome, to: from, into: &out)
            } else { stats.drop(.amplification) }
            if pending { sessions.setPending(s, for: from) } else { sessions[from] = s }
            return .handled
        }
        // Both sides said hello at once: the lower public key stays initiator.
        if let mine = sessions[from], mine.role == .initiator, !mine.established,
           mine.localKx.publicKey.lexicographicallyPrecedes(clientKey) { return .handled }
        // Under load, prove the address first (stateless COOKIE, 36 bytes < 3 × 200).
        if cookie.contains(where: { $0 != 0 }) && cookies.isValid(cookie, for: from, nowMs: nowMs) {
            stats.cookieHandshakes += 1
        } else if !handshakeBudget.take(1, nowMs: nowMs) {
            emit(cookies.frame(for: from, clientKey: clientKey, nowMs: nowMs), to: from, into: &out)
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
        var s = Session(role: .responder, localKx: newKx(), nowMs: nowMs)
        guard s.completeAsResponder(clientKey: clientKey) else { stats.drop(.malformedFrame); return .dropped }
        s.bytesReceivedUnverified = d.count
        s.welcome = Frame.header(Frame.welcome) + s.localKx.publicKey + Blake2b.hash(clientKey, outputCount: 16)
        guard s.mayAmplify(s.welcome.count) else { stats.drop(.amplification); return .dropped }
        s.bytesSentUnverified += s.welcome.count
        stats.handshakes += 1
        emit(s.welcome, to: from, into: &out)
        if let current = sessions[from] {
            // Never replace a session on a HELLO: the new one waits beside it until a DATA
            // frame authenticates under it. Simultaneous open: it may carry our queue.
            if current.role == .initiator && !current.established { s.queued = current.queued; flush(&s, to: from, into: &out) }
            sessions.setPending(s, for: from)
        } else {
            sessions[from] = s
        }
        return .handled
    }

    mutating func receiveWelcome(_ d: [UInt8], from: PeerAddress, nowMs: UInt64, into out: inout [GossipDirective]) -> FrameOutcome {
        guard d.count == Frame.welcomeSize, var s = sessions[from], s.role == .initiator, !s.established else {
            stats.drop(.noSession); return .dropped
        }
        guard Array(d[36..<52]) == Blake2b.hash(s.localKx.publicKey, outputCount: 16),
              s.completeAsInitiator(serverKey: Array(d[4..<36])) else { stats.drop(.malformedFrame); return .dropped }
        sessions[from] = s
        sessions.touch(from, nowMs: nowMs)
        stats.handshakes += 1
        flushQueue(from, into: &out)
        return .handled
    }

    /// A COOKIE for our pending HELLO: send the HELLO again with the cookie.
    mutating func receiveCookie(_ d: [UInt8], from: PeerAddress, nowMs: UInt64, into out: inout [GossipDirective]) -> FrameOutcome {
        guard d.count == Frame.cookieSize, var s = sessions[from], s.role == .initiator, !s.established,
              Array(d[20..<36]) == Blake2b.hash(s.localKx.publicKey, outputCount: 16) else { stats.drop(.noSession); return .dropped }
        let hello = Frame.helloFrame(publicKey: s.localKx.publicKey, cookie: Array(d[4..<20]))
        guard hello != s.helloBytes else { return .handled }
        s.helloBytes = hello
        s.helloSentAtMs = nowMs
        sessions[from] = s
        emit(hello, to: from, into: &out)
        return .handled
    }

    mutating func receiveData(_ d: [UInt8], from: PeerAddress, nowMs: UInt64, into out: inout [GossipDirective]) -> FrameOutcome {
        let current = sessions[from], pending = sessions.pending(from)
        guard current?.established == true || pending != nil else {
            stats.drop(.noSession)
            // The peer lost its session (restart): offer a new handshake if we know it.
            // A peer we gave up on (its session went with it) counts too: it may only have lost
            // a few datagrams, and its own session to us would otherwise stay a black hole.
            if isLink(from) || passive[from] != nil || dead[from] != nil || seeds.contains(from) {
                sessions[from] = nil; send(pingMessage(for: from), to: from, nowMs: nowMs, into: &out)
            }
            return .dropped
        }
        var reason = DropReason.decryptFailed
        if var s = current, s.established {
            switch s.open(d) {
            case .plaintext(let pt):
                s.unansweredSinceMs = nil
                sessions[from] = s
                sessions.touch(from, nowMs: nowMs)
                return .message(pt)
            case .replay: reason = .replay
            case .failed: break
            }
        }
        if var p = pending, case .plaintext(let pt) = p.open(d) {
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

    /// Drops unproven sessions past their time (tick).
    mutating func expireSessions(nowMs: UInt64) {
        stats.sessionsExpired += sessions.expire(nowMs: nowMs, unprovenMs: config.unprovenSessionMs, silentMs: config.silentSessionMs)
    }

    // MARK: - sending

    mutating func newKx() -> KxKeyPair {
        let seed = keySeeds?() ?? rng.bytes(32)
        return (try? KxKeyPair(seed: seed)) ?? (try! KxKeyPair(seed: rng.bytes(32)))
    }

    mutating func emit(_ bytes: [UInt8], to: PeerAddress, into out: inout [GossipDirective]) {
        stats.datagramsOut += 1
        stats.bytesOut += bytes.count
        out.append(.send(bytes, to: to))
    }

    /// Encrypts and sends, or queues behind a handshake it starts.
    mutating func send(_ m: WireMessage, to: PeerAddress, nowMs: UInt64, into out: inout [GossipDirective]) {
        if let accept = addressFilter, !accept(to) { stats.drop(.badAddress); return }
        guard let pt = try? m.serializedBytes() as [UInt8], pt.count <= Frame.maxPlaintext else { stats.drop(.tooLarge); return }
        stats.messagesSent[m.kind, default: 0] += 1
        if var s = sessions[to], s.established {
            guard s.mayAmplify(pt.count + Frame.dataHeader + AEAD.tagCount) else {
                if s.queued.count < config.maxQueuedPerPeer { s.queued.append(pt) } else { stats.drop(.amplification) }
                sessions[to] = s; return
            }
            guard let frame = s.seal(pt) else { return }
            if s.unansweredSinceMs == nil { s.unansweredSinceMs = nowMs }
            if !s.verified { s.bytesSentUnverified += frame.count }
            sessions[to] = s
            emit(frame, to: to, into: &out)
            return
        }
        if sessions[to] == nil {
            switch sessions.makeRoom(forOurOwn: true) {
            case .free: break
            case .evicted(let a): stats.sessionEvictions += 1; handshaking.remove(a)
            case .full: stats.drop(.sessionTableFull); return
            }
        }
        var s = sessions[to] ?? Session(role: .initiator, localKx: newKx(), nowMs: nowMs)
        guard s.queued.count < config.maxQueuedPerPeer else { stats.drop(.queueFull); return }
        s.queued.append(pt)
        if s.helloAttempts == 0 {
            s.helloBytes = Frame.helloFrame(publicKey: s.localKx.publicKey, cookie: nil)
            s.helloAttempts = 1
            s.helloSentAtMs = nowMs
            handshaking.insert(to)
            emit(s.helloBytes, to: to, into: &out)
        }
        sessions[to] = s
    }

    mutating func flushQueue(_ to: PeerAddress, into out: inout [GossipDirective]) {
        guard var s = sessions[to], s.established else { return }
        flush(&s, to: to, into: &out)
        sessions[to] = s
    }

    /// Sends what `s` has queued, within its amplification budget.
    mutating func flush(_ s: inout Session, to: PeerAddress, into out: inout [GossipDirective]) {
        var keep: [[UInt8]] = []
        for pt in s.queued {
            guard s.mayAmplify(pt.count + Frame.dataHeader + AEAD.tagCount), let frame = s.seal(pt) else { keep.append(pt); continue }
            if !s.verified { s.bytesSentUnverified += frame.count }
            emit(frame, to: to, into: &out)
        }
        s.queued = keep
    }

    mutating func retryHandshakes(nowMs: UInt64, into out: inout [GossipDirective]) {
        for addr in handshaking.sorted() {
            guard var s = sessions[addr], s.role == .initiator, !s.established else { handshaking.remove(addr); continue }
            guard nowMs >= s.helloSentAtMs + config.helloRetryMs else { continue }
            if s.helloAttempts >= config.helloAttempts {
                giveUp(addr, .unreachable, cell: cell(of: addr), nowMs: nowMs, into: &out)
                continue
            }
            s.helloAttempts += 1
            s.helloSentAtMs = nowMs
            sessions[addr] = s
            emit(s.helloBytes, to: addr, into: &out)
        }
    }
}
