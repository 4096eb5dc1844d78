import Testing
import SkwadCrypto
import SkwadModel
import SkwadReplica
@testable import SkwadGossip

@Suite struct TransportSecurityTests {
    /// Two engines that completed a handshake, and the first DATA frame a sent to b.
    func pair() -> (a: GossipEngine, b: GossipEngine, firstData: [UInt8]) {
        var a = GossipEngine(seed: 1, secrets: .seeded), b = GossipEngine(seed: 2, secrets: .seeded)
        var ra = Replica(), rb = Replica()
        let A = PeerAddress("a"), B = PeerAddress("b")
        let hello = a.start(seeds: [B], nowMs: 1000).compactMap { if case .send(let x, _) = $0 { x } else { nil } }
        #expect(hello.count == 1 && hello[0].count == Frame.helloSize && hello[0][3] == Frame.hello)
        let welcome = b.receive(datagram: hello[0], from: A, nowMs: 1001, replica: &rb).compactMap {
            if case .send(let x, _) = $0 { x } else { nil }
        }
        #expect(welcome.count == 1 && welcome[0][3] == Frame.welcome)
        let data = a.receive(datagram: welcome[0], from: B, nowMs: 1002, replica: &ra).compactMap {
            if case .send(let x, _) = $0 { x } else { nil }
        }
        #expect(data.count == 1 && data[0][3] == Frame.data)  // the queued Join, now encrypted
        return (a, b, data[0])
    }

    @Test func handshakeThenEncryptedJoin() {
        var (_, b, data) = pair()
        var rb = Replica()
        let out = b.receive(datagram: data, from: PeerAddress("a"), nowMs: 1003, replica: &rb)
        #expect(out.contains(.peerUp(PeerAddress("a"))))
        #expect(b.activePeers == [PeerAddress("a")])
    }

    @Test func tamperedFramesAreDroppedAndCounted() {
        var (_, b, data) = pair()
        var rb = Replica()
        for i in [5, 12, data.count - 1] {
            var bad = data; bad[i] ^= 0x01
            #expect(b.receive(datagram: bad, from: PeerAddress("a"), nowMs: 1003, replica: &rb).isEmpty)
        }
        #expect(b.stats.drops["decryptFailed"] == 3)
        // The untouched frame still works afterwards.
        #expect(!b.receive(datagram: data, from: PeerAddress("a"), nowMs: 1004, replica: &rb).isEmpty)
    }

    @Test func replayedFramesAreDropped() {
        var (_, b, data) = pair()
        var rb = Replica()
        _ = b.receive(datagram: data, from: PeerAddress("a"), nowMs: 1003, replica: &rb)
        #expect(b.receive(datagram: data, from: PeerAddress("a"), nowMs: 1004, replica: &rb).isEmpty)
        #expect(b.stats.drops["replay"] == 1)
    }

    @Test func replayWindowAcceptsReorderingButNotOldOrRepeated() {
        var t = Session(initiatorWith: KxKeyPair.generate(), nowMs: 0)
        var s = Session(responderWith: KxKeyPair.generate(), clientKey: t.localPublicKey, helloBytes: Frame.helloSize, nowMs: 0)!
        _ = t.completeAsInitiator(serverKey: s.localPublicKey)
        let frames = (0..<100).map { _ in t.seal([1, 2, 3])! }
        func ok(_ r: Session.OpenResult) -> Bool { if case .plaintext = r { true } else { false } }
        #expect(ok(s.open(frames[10])))
        #expect(ok(s.open(frames[5])))  // late but inside the window
        #expect(!ok(s.open(frames[5])))  // repeated
        #expect(ok(s.open(frames[90])))
        #expect(!ok(s.open(frames[20])))  // more than 64 behind
        #expect(ok(s.open(frames[89])))
    }

    /// A DATA frame is the header (the associated data) followed by the AEAD of the
    /// plaintext under nonce 0^16 || counter, built in one buffer: the same bytes as the
    /// header, counter and `AEAD.seal` output concatenated, and `AEAD.open` of its tail.
    @Test func dataFramesAreHeaderThenSealedPlaintext() throws {
        var t = Session(initiatorWith: KxKeyPair.generate(), nowMs: 0)
        var s = Session(responderWith: KxKeyPair.generate(), clientKey: t.localPublicKey, helloBytes: Frame.helloSize, nowMs: 0)!
        _ = t.completeAsInitiator(serverKey: s.localPublicKey)
        #expect(MemoryLayout<Frame.DataHeader>.size == Frame.dataHeader && MemoryLayout<Frame.Nonce>.size == AEAD.nonceCount)
        for (counter, plaintext) in [
            (UInt64(1), [UInt8](repeating: 7, count: 1)), (2, Array(0..<200)), (3, [UInt8](repeating: 1, count: Frame.maxPlaintext))
        ] {
            let frame = t.seal(plaintext)!
            var header = Frame.header(Frame.data)
            withUnsafeBytes(of: counter.bigEndian) { header += $0 }
            var nonce = [UInt8](repeating: 0, count: 16)
            withUnsafeBytes(of: counter.bigEndian) { nonce += $0 }
            #expect(frame == header + (try AEAD.seal(plaintext, additionalData: header, nonce: nonce, key: t.keys!.tx.bytes)))
            #expect(try AEAD.open(Array(frame[12...]), additionalData: header, nonce: nonce, key: s.keys!.rx.bytes) == plaintext)
            guard case .plaintext(let opened) = s.open(frame) else { Issue.record("frame \(counter) did not open"); continue }
            #expect(opened == plaintext)
        }
    }

    @Test func unverifiedAddressesGetAtMostThreeTimesTheirBytes() {
        var b = GossipEngine(seed: 2, secrets: .seeded)
        var rb = Replica()
        // A spoofed HELLO: the WELCOME (52 bytes) fits 3x 200, but data queued for that
        // address waits until the address proves itself.
        var hello = Frame.header(Frame.hello) + KxKeyPair.generate().publicKey
        hello += [UInt8](repeating: 0, count: Frame.helloSize - hello.count)
        let out = b.receive(datagram: hello, from: PeerAddress("victim"), nowMs: 1, replica: &rb)
        let sent = out.compactMap { if case .send(let x, _) = $0 { x.count } else { nil } }.reduce(0, +)
        #expect(sent <= 3 * hello.count && sent > 0)
        let s = b.sessions[PeerAddress("victim")]!
        #expect(!s.verified && s.mayAmplify(3 * 200 - 52) && !s.mayAmplify(3 * 200 - 51))
        // A short HELLO (amplification bait) gets nothing at all.
        #expect(b.receive(datagram: Array(hello.prefix(60)), from: PeerAddress("x"), nowMs: 2, replica: &rb).isEmpty)
        #expect(b.stats.drops["malformedFrame"] == 1)
    }

    @Test func aFloodingPeerIsRateLimited() {
        var config = GossipConfig(); config.limits.peerDatagramsPerSecond = 50
        var b = GossipEngine(config: config, seed: 3, secrets: .seeded)
        var rb = Replica()
        for i in 0..<200 {
            _ = b.receive(datagram: [0x53, 0x4B, 1, 9, UInt8(i & 0xff)], from: PeerAddress("flood"), nowMs: 10, replica: &rb)
        }
        #expect(b.stats.drops["rateLimited"] == 150)
        // Another peer is not starved by the flood.
        _ = b.receive(datagram: [0x53, 0x4B, 1, 9], from: PeerAddress("polite"), nowMs: 10, replica: &rb)
        #expect(b.stats.drops["rateLimited"] == 150 && b.stats.drops["malformedFrame"] == 51)
        // Tokens come back with time.
        _ = b.receive(datagram: [0x53, 0x4B, 1, 9], from: PeerAddress("flood"), nowMs: 1010, replica: &rb)
        #expect(b.stats.drops["malformedFrame"] == 52)
    }

    @Test func garbageNeverCrashesTheEngine() {
        var b = GossipEngine(seed: 4, secrets: .seeded)
        var rb = Replica()
        var rng = SplitMix(seed: 9)
        for n in 0..<500 {
            var d = rng.bytes(Int(rng.next() % 300))
            if n % 2 == 0 && d.count > 4 { d[0] = 0x53; d[1] = 0x4B; d[2] = 1; d[3] = UInt8(1 + n % 3) }
            _ = b.receive(datagram: d, from: PeerAddress("fuzz\(n % 7)"), nowMs: UInt64(n), replica: &rb)
        }
        #expect(b.stats.datagramsIn == 500)
        #expect(b.stats.drops.values.reduce(0, +) > 400)
    }
}
