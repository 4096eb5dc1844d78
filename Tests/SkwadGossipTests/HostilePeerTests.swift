import Testing
import SkwadCrypto
import SkwadReplica
@testable import SkwadGossip
import SkwadTestKit

/// One test per wire-level attack of SECURITY.md "Wire and sessions", each driven by a
/// `HostilePeer` against a real engine: the attack is tried, counted, and the honest link
/// is shown to survive.
@Suite struct HostilePeerTests {
    static let t0: UInt64 = 1_790_000_000_000
    let honestAddress = PeerAddress("10.0.0.1:7400")

    static func ping(_ seq: UInt64) -> [UInt8] {
        var m = WireMessage(); var p = Skwad_Gossip_V1_Ping(); p.seq = seq; m.ping = p
        return try! m.serializedBytes()
    }

    static func pingReq(target: String) -> [UInt8] {
        var m = WireMessage(); var r = Skwad_Gossip_V1_PingReq(); r.seq = 1; r.target = target; m.pingReq = r
        return try! m.serializedBytes()
    }

    /// The Ack sequence numbers `peer` can read among `ds`.
    static func acks(_ ds: [GossipDirective], for peer: HostilePeer) -> [UInt64] {
        var seqs: [UInt64] = []
        for frame in HostilePeer.sent(ds, to: peer.address) {
            guard let pt = peer.open(frame) else { continue }
            for b in WireForge.messages(pt) {
                guard let m = try? WireMessage(serializedBytes: b), case .ack(let a)? = m.body else { continue }
                seqs.append(a.seq)
            }
        }
        return seqs
    }

    /// An engine with one honest peer whose ping was answered.
    func linked(_ config: GossipConfig = .init()) -> (GossipEngine, Replica, HostilePeer) {
        var e = GossipEngine(config: config, seed: 11, secrets: .seeded)
        e.addressFilter = { $0.isCanonical }
        var r = Replica()
        var honest = HostilePeer(address: honestAddress, seed: 1)
        #expect(honest.handshake(with: &e, nowMs: Self.t0, replica: &r))
        #expect(Self.acks(honest.send(Self.ping(1), to: &e, nowMs: Self.t0, replica: &r), for: honest) == [1])
        return (e, r, honest)
    }

    // MARK: finding 1 — counters near 2^64

    @Test func dataCountersNearTwoToThe64NeitherTrapNorMoveTheWindow() {
        var (e, r, honest) = linked()
        // Forged frames (bad ciphertext) with extreme counters: the old window check computed
        // `counter + 64` and trapped on the first of these.
        let forged: [UInt64] = [.max, .max - 1, .max - 10, .max - 63, 1 << 63, 0, 2]
        for c in forged { _ = e.receive(datagram: HostilePeer.forgedData(counter: c), from: honestAddress, nowMs: Self.t0, replica: &r) }
        #expect(e.stats.drops["replay"] == 2)  // 0 and 2^64-1 are never valid counters
        #expect(e.stats.drops["decryptFailed"] == 5)  // the rest fail authentication and change nothing
        // A correctly sealed frame with counter 2^64-1 is refused before decryption.
        _ = e.receive(datagram: honest.seal(Self.ping(9), counter: .max), from: honestAddress, nowMs: Self.t0, replica: &r)
        #expect(e.stats.drops["replay"] == 3)
        // The honest link goes on at counter 2.
        #expect(Self.acks(honest.send(Self.ping(2), to: &e, nowMs: Self.t0, replica: &r), for: honest) == [2])
        // Its last valid counter, 2^64-2, works once; then older counters are too old.
        #expect(
            Self.acks(
                e.receive(datagram: honest.seal(Self.ping(3), counter: .max - 1), from: honestAddress, nowMs: Self.t0, replica: &r),
                for: honest) == [3])
        _ = e.receive(datagram: honest.seal(Self.ping(4), counter: .max - 1), from: honestAddress, nowMs: Self.t0, replica: &r)
        _ = e.receive(datagram: honest.seal(Self.ping(5), counter: 3), from: honestAddress, nowMs: Self.t0, replica: &r)
        #expect(e.stats.drops["replay"] == 5)
    }

    // MARK: bundles (PROTOCOL §8 "Bundles")

    /// Each message of a bundle is handled in order as if it came alone (the answers go back in
    /// one bundle); one that does not decode is dropped alone.
    @Test func aBundlesMessagesAreEachHandledAndOneThatDoesNotDecodeDropsAlone() {
        var (e, r, honest) = linked()
        let ds = honest.send(WireForge.bundle([Self.ping(2), [0xFF, 0xFF], Self.ping(3)]), to: &e, nowMs: Self.t0, replica: &r)
        #expect(Self.acks(ds, for: honest) == [2, 3])
        #expect(HostilePeer.sent(ds, to: honestAddress).count == 1)
        #expect(e.stats.drops["malformedMessage"] == 1)
    }

    /// A bundle inside a bundle is refused whole: none of its messages is handled.
    @Test func aBundleInsideABundleIsRefusedWhole() {
        var (e, r, honest) = linked()
        let nested = WireForge.bundle([Self.ping(2), WireForge.bundle([Self.ping(3), Self.ping(4)])])
        #expect(Self.acks(honest.send(nested, to: &e, nowMs: Self.t0, replica: &r), for: honest).isEmpty)
        #expect(e.stats.drops["nestedBundle"] == 1)
        #expect(Self.acks(honest.send(Self.ping(5), to: &e, nowMs: Self.t0, replica: &r), for: honest) == [5])
    }

    /// Past the cap of 16 messages a bundle is refused whole; 16 are all handled.
    @Test func aBundlePastTheCapIsRefusedWhole() {
        var (e, r, honest) = linked()
        let over = WireForge.bundle((0..<17).map { Self.ping(100 + UInt64($0)) })
        #expect(Self.acks(honest.send(over, to: &e, nowMs: Self.t0, replica: &r), for: honest).isEmpty)
        #expect(e.stats.drops["bundleOverCap"] == 1)
        let full = WireForge.bundle((0..<16).map { Self.ping(200 + UInt64($0)) })
        #expect(Self.acks(honest.send(full, to: &e, nowMs: Self.t0, replica: &r), for: honest) == (200..<216).map { UInt64($0) })
    }

    /// A truncated bundle does not parse: the whole datagram is dropped, none of it handled.
    @Test func aTruncatedBundleIsDroppedWhole() {
        var (e, r, honest) = linked()
        var cut = WireForge.bundle([Self.ping(2), Self.ping(3)])
        cut.removeLast()
        #expect(Self.acks(honest.send(cut, to: &e, nowMs: Self.t0, replica: &r), for: honest).isEmpty)
        #expect(e.stats.drops["malformedMessage"] == 1)
    }

    /// Each message of a bundle after the first takes a datagram from the sender's budget, as if
    /// it came alone: bundling buys no more messages per second.
    @Test func aBundlesMessagesCountAgainstTheDatagramBudget() {
        var config = GossipConfig()
        config.limits.peerDatagramsPerSecond = 6
        var (e, r, honest) = linked(config)
        let ds = honest.send(WireForge.bundle((0..<8).map { Self.ping(10 + UInt64($0)) }), to: &e, nowMs: Self.t0, replica: &r)
        let acked = Self.acks(ds, for: honest)
        let limited = e.stats.drops["rateLimited"] ?? 0
        #expect(!acked.isEmpty && limited > 0 && acked.count + limited == 8)
        #expect(acked == (0..<acked.count).map { 10 + UInt64($0) })
    }

    @Test func replayWindowEdges() {
        var w = ReplayWindow()
        #expect(!w.mayAccept(0) && !w.mayAccept(.max) && w.mayAccept(1) && w.mayAccept(.max - 1))
        w.accept(1)
        #expect(!w.mayAccept(1) && w.mayAccept(2))
        w.accept(.max - 1)  // a jump of 2^64-3: the bitmap restarts
        #expect(w.highest == .max - 1 && w.bitmap == 1)
        #expect(w.mayAccept(.max - 64) && !w.mayAccept(.max - 65) && !w.mayAccept(1))
        w.accept(.max - 64)
        #expect(!w.mayAccept(.max - 64) && w.mayAccept(.max - 2))
    }

    // MARK: finding 2 — session takeover

    @Test func aForgedHelloFromALinkedAddressDoesNotBreakTheLink() {
        var (e, r, honest) = linked()
        // The attacker spoofs the honest address with a HELLO of its own key.
        let attacker = HostilePeer(address: honestAddress, seed: 666)
        let answer = e.receive(datagram: attacker.hello(), from: honestAddress, nowMs: Self.t0 + 10, replica: &r)
        #expect(HostilePeer.sent(answer, to: honestAddress).map(\.count) == [52])  // a WELCOME, nothing more
        // The working session stays: the honest peer's next frames are answered at once.
        for seq in 2...4 as ClosedRange<UInt64> {
            #expect(Self.acks(honest.send(Self.ping(seq), to: &e, nowMs: Self.t0 + 20, replica: &r), for: honest) == [seq])
        }
        #expect(e.stats.sessionsReplaced == 0 && e.stats.drops["decryptFailed"] == nil)
        // The forged session never authenticates anything and expires.
        _ = e.tick(nowMs: Self.t0 + 10 + e.config.sessions.unprovenSessionMs, replica: &r)
        #expect(e.stats.sessionsExpired == 1)
        #expect(e.sessions.pending(honestAddress) == nil)
        #expect(Self.acks(honest.send(Self.ping(5), to: &e, nowMs: Self.t0 + 4000, replica: &r), for: honest) == [5])
    }

    @Test func aRestartedPeerTakesOverOnlyOnceItsDataAuthenticates() {
        var (e, r, old) = linked()
        var restarted = HostilePeer(address: honestAddress, seed: 2)
        #expect(restarted.handshake(with: &e, nowMs: Self.t0 + 100, replica: &r))
        #expect(e.stats.sessionsReplaced == 0)
        // Until the new session proves itself, the old one still works.
        #expect(Self.acks(old.send(Self.ping(2), to: &e, nowMs: Self.t0 + 110, replica: &r), for: old) == [2])
        #expect(Self.acks(restarted.send(Self.ping(3), to: &e, nowMs: Self.t0 + 120, replica: &r), for: restarted) == [3])
        #expect(e.stats.sessionsReplaced == 1)
        // Now the old keys are gone.
        #expect(old.send(Self.ping(4), to: &e, nowMs: Self.t0 + 130, replica: &r).isEmpty)
        #expect(e.stats.drops["decryptFailed"] == 1)
    }

    @Test func aRepeatedHelloGetsTheSameWelcome() {
        var e = GossipEngine(seed: 3, secrets: .seeded)
        var r = Replica()
        var p = HostilePeer(address: honestAddress, seed: 4)
        let w1 = HostilePeer.sent(e.receive(datagram: p.hello(), from: honestAddress, nowMs: Self.t0, replica: &r), to: honestAddress)
        let w2 = HostilePeer.sent(e.receive(datagram: p.hello(), from: honestAddress, nowMs: Self.t0 + 500, replica: &r), to: honestAddress)
        #expect(w1 == w2 && w1.count == 1 && e.stats.handshakes == 1)
        let accepted = p.accept(w2[0])
        #expect(accepted)
        #expect(Self.acks(p.send(Self.ping(1), to: &e, nowMs: Self.t0 + 501, replica: &r), for: p) == [1])
    }

    // MARK: finding 7 — bounded tables, cookies

    @Test func theSessionTableIsBoundedAndStrangersCannotEvictALink() {
        var c = GossipConfig(); c.sessions.maxSessions = 32; c.sessions.handshakesPerSecond = 1_000_000
        var (e, r, honest) = linked(c)
        _ = HostilePeer.sprayHellos(
            count: 500, address: { PeerAddress("10.1.\($0 / 250).\($0 % 250 + 1):9") }, into: &e, nowMs: Self.t0 + 1, replica: &r)
        #expect(e.sessionCount == 32)
        #expect(e.stats.sessionEvictions == 500 - 31)
        #expect(Self.acks(honest.send(Self.ping(2), to: &e, nowMs: Self.t0 + 2, replica: &r), for: honest) == [2])
        // Sessions that never authenticated DATA expire quickly; the link stays.
        _ = e.tick(nowMs: Self.t0 + 1 + c.sessions.unprovenSessionMs, replica: &r)
        #expect(e.sessionCount == 1)
        #expect(Self.acks(honest.send(Self.ping(3), to: &e, nowMs: Self.t0 + 5000, replica: &r), for: honest) == [3])
    }

    @Test func whenEverySlotIsProvenAStrangersHelloIsRefused() {
        var c = GossipConfig(); c.sessions.maxSessions = 1
        var (e, r, honest) = linked(c)
        let stranger = HostilePeer(address: PeerAddress("10.9.9.9:1"), seed: 5)
        #expect(
            HostilePeer.sent(
                e.receive(datagram: stranger.hello(), from: stranger.address, nowMs: Self.t0 + 1, replica: &r), to: stranger.address
            ).isEmpty)
        #expect(e.stats.drops["sessionTableFull"] == 1)
        #expect(Self.acks(honest.send(Self.ping(2), to: &e, nowMs: Self.t0 + 2, replica: &r), for: honest) == [2])
    }

    @Test func thePerAddressLimitTableIsBounded() {
        var c = GossipConfig(); c.sessions.maxAddressLimits = 64
        var (e, r, honest) = linked(c)
        for i in 0..<1000 {
            _ = e.receive(
                datagram: [0x53, 0x4B, 1, 9], from: PeerAddress("10.2.\(i / 250).\(i % 250 + 1):9"), nowMs: Self.t0 + 1, replica: &r)
        }
        #expect(e.addressLimitCount <= 64)
        #expect(e.stats.limitEvictions >= 1000 - 64)
        #expect(e.stats.drops["malformedFrame"] == 1000)  // each datagram still judged, none rate limited
        #expect(Self.acks(honest.send(Self.ping(2), to: &e, nowMs: Self.t0 + 2, replica: &r), for: honest) == [2])
    }

    @Test func underHelloLoadAStatelessCookieComesFirst() {
        var c = GossipConfig(); c.sessions.handshakesPerSecond = 10
        var e = GossipEngine(config: c, seed: 6, secrets: .seeded)
        e.addressFilter = { $0.isCanonical }
        var r = Replica()
        let spray = HostilePeer.sprayHellos(
            count: 100, address: { PeerAddress("10.3.0.\($0 + 1):9") }, into: &e, nowMs: Self.t0, replica: &r)
        #expect(e.stats.handshakes == 10 && e.stats.cookiesSent == 90 && e.sessionCount == 10)
        // Never more than 3x what an unproven address sent (one 200-byte HELLO each).
        var perAddress: [PeerAddress: Int] = [:]
        for case .send(let b, let a) in spray { perAddress[a, default: 0] += b.count }
        #expect(perAddress.count == 100 && perAddress.values.allSatisfy { $0 <= 3 * 200 })
        #expect(perAddress.values.filter { $0 == 36 }.count == 90)
        // An honest newcomer gets a COOKIE, echoes it, and is in.
        var honest = HostilePeer(address: honestAddress, seed: 7)
        #expect(honest.handshake(with: &e, nowMs: Self.t0 + 1, replica: &r))
        #expect(e.stats.cookieHandshakes == 1 && e.stats.cookiesSent == 91)
        #expect(Self.acks(honest.send(Self.ping(1), to: &e, nowMs: Self.t0 + 2, replica: &r), for: honest) == [1])
        // Its cookie is worth nothing from another address, or two time buckets later.
        let cookie = honest.cookie!
        let other = HostilePeer(address: PeerAddress("10.3.1.1:9"), seed: 8)
        _ = e.receive(datagram: other.hello(cookie: cookie), from: other.address, nowMs: Self.t0 + 3, replica: &r)
        #expect(e.stats.cookiesSent == 92 && e.stats.cookieHandshakes == 1)
        let later = Self.t0 + 3 + 2 * c.sessions.cookieEpochMs
        for i in 0..<10 {
            _ = e.receive(
                datagram: HostilePeer(address: PeerAddress("10.4.0.\(i + 1):9"), seed: UInt64(100 + i)).hello(),
                from: PeerAddress("10.4.0.\(i + 1):9"), nowMs: later, replica: &r)
        }  // spend the budget
        let retry = HostilePeer(address: honestAddress, seed: 9)
        _ = e.receive(datagram: retry.hello(cookie: cookie), from: honestAddress, nowMs: later, replica: &r)
        #expect(e.stats.cookieHandshakes == 1 && e.stats.cookiesSent == 93)
    }

    // MARK: finding 8 — no names from the wire

    static func join() -> [UInt8] {
        var m = WireMessage(); m.join = Skwad_Gossip_V1_Join()
        return try! m.serializedBytes()
    }

    static func forwardJoin(_ joiner: String) -> [UInt8] {
        var m = WireMessage(); var f = Skwad_Gossip_V1_ForwardJoin(); f.ttl = 0; f.joiner.address = joiner; m.forwardJoin = f
        return try! m.serializedBytes()
    }

    @Test func addressesFromTheWireMustBeCanonicalLiterals() {
        var (e, r, honest) = linked()
        _ = honest.send(Self.join(), to: &e, nowMs: Self.t0 + 1, replica: &r)
        #expect(e.activePeers == [honestAddress])
        // A member introduces a canonical joiner: the engine reaches it (a HELLO).
        let good = honest.send(Self.forwardJoin("10.0.0.2:7400"), to: &e, nowMs: Self.t0 + 2, replica: &r)
        #expect(HostilePeer.sent(good, to: PeerAddress("10.0.0.2:7400")).map(\.count) == [200])
        let sessionsBefore = e.sessionCount
        // Names and non-canonical spellings: nothing is sent, no session, no DNS (the engine
        // cannot resolve; the shell only turns canonical literals into socket addresses).
        for target in ["evil.example.com:53", "localhost:7400", "127.0.0.1:0049499", "127.0.0.01:7400", "[::0:1]:7400"] {
            let out = honest.send(Self.forwardJoin(target), to: &e, nowMs: Self.t0 + 3, replica: &r)
            #expect(HostilePeer.sent(out, to: PeerAddress(target)).isEmpty, "\(target)")
        }
        #expect((e.stats.drops["badAddress"] ?? 0) >= 5 && e.sessionCount == sessionsBefore)
        // A datagram "from" a non-canonical address (a buggy or hostile shell) keeps no state.
        let limitsBefore = e.addressLimitCount
        _ = e.receive(datagram: honest.hello(), from: PeerAddress("10.0.0.1:07400"), nowMs: Self.t0 + 4, replica: &r)
        #expect(e.addressLimitCount == limitsBefore && e.sessionCount == sessionsBefore)
    }

    @Test func canonicalAddressForms() {
        for ok in ["127.0.0.1:7400", "0.0.0.0:1", "255.255.255.255:65535", "[::1]:7400", "[2001:db8::1]:80", "[::ffff:1.2.3.4]:9"] {
            #expect(PeerAddress.canonical(ok) != nil, "\(ok)")
        }
        for bad in [
            "127.0.0.1:0049499", "127.0.0.1:0", "127.0.0.1:65536", "127.0.0.1", "1.2.3:4", "1.2.3.4.5:6", "01.2.3.4:5",
            "256.1.1.1:5", "a.b.c.d:1", "localhost:1", "::1:7400", "[::1]", "[::0001]:1", "[2001:DB8::1]:80",
            " 1.2.3.4:5", "1.2.3.4:+5", "1.2.3.4:-5", "", ":", "[]:1", "1.2.3.4:5\n"
        ] {
            #expect(PeerAddress.canonical(bad) == nil, "\(bad)")
        }
    }
}
