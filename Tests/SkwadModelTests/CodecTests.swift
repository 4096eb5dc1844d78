import Testing
import SkwadCrypto
import SkwadModel
import SkwadTestKit

@Suite struct CodecTests {
    @Test func everyKindRoundTrips() throws {
        var rng = SplitMix64(seed: 3)
        let key = SigningKeyPair.generate()
        let id = try OpID(bytes: rng.bytes(32)), pack = try OpID(bytes: rng.bytes(32))
        let fence = Geofence(center: try GeoPoint(lat: 40.443322, lon: -79.943611), radiusMeters: 750)
        let kinds: [OpKind] = [
            .post(Post(title: "t", body: "b", tags: ["x", "y"])),
            .comment(Comment(post: id, parent: nil, body: "c")),
            .comment(Comment(post: id, parent: pack, body: "reply")),
            .vote(Vote(target: id, value: -1)), .vote(Vote(target: id, value: 0)),
            .delete(Delete(target: id)),
            .editPack(EditPack(name: "n", color: nil, tags: [])), .editPack(EditPack(color: "blue")),
            .moderate(Moderate(target: id, hidden: true, reason: "spam")),
        ]
        for k in kinds {
            let body = OpBody(packID: pack, author: key.publicKey, hlc: HLC(physicalMs: 5, counter: 2), location: "dpph", stamp: 9, kind: k)
            let op = try SignedOp.sign(body, with: key)
            #expect(try SignedOp.open(op.envelope.serialized()).body == body)
        }
        let genesis = OpBody(packID: nil, author: key.publicKey, hlc: HLC(raw: 1),
                             kind: .createPack(CreatePack(name: "p", tags: ["a"], color: "red", fence: fence, locked: true,
                                                          nonce: rng.bytes(16), powBits: 3, hideScore: 4)))
        let op = try SignedOp.sign(genesis, with: key)
        let back = try SignedOp.open(op.envelope.serialized())
        #expect(back.body == genesis && back.packID == op.id)
    }

    @Test func malformedInputsAreErrorsNeverTraps() throws {
        var rng = SplitMix64(seed: 4)
        let key = SigningKeyPair.generate()
        let good = try SignedOp.sign(OpBody(packID: try OpID(bytes: rng.bytes(32)), author: key.publicKey, hlc: HLC(raw: 1),
                                            kind: .post(Post(title: "t", body: "b"))), with: key).envelope.serialized()
        // Every truncation and many random byte flips decode to an error or a valid op, never a crash.
        for n in 0..<good.count { _ = try? SignedOp.open(Array(good.prefix(n))) }
        for _ in 0..<2000 {
            var b = good
            b[Int.random(in: 0..<b.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            _ = try? SignedOp.open(b)
        }
        for _ in 0..<500 { _ = try? SignedOp.open(rng.bytes(Int.random(in: 0..<300, using: &rng))) }
        #expect(throws: ModelError.self) { try SignedOp.open([]) }
        #expect(throws: ModelError.self) { try SignedOp.open(Array(good.prefix(good.count - 1))) }
    }

    @Test func limitsAreEnforcedWhenSigning() throws {
        let key = SigningKeyPair.generate()
        func sign(_ k: OpKind, pack: OpID? = try! OpID(bytes: [UInt8](repeating: 1, count: 32))) throws {
            _ = try SignedOp.sign(OpBody(packID: pack, author: key.publicKey, hlc: HLC(raw: 1), kind: k), with: key)
        }
        #expect(throws: ModelError.self) { try sign(.post(Post(title: "", body: "b"))) }
        #expect(throws: ModelError.self) { try sign(.post(Post(title: "t", body: "b", tags: Array(repeating: "x", count: Limits.maxTags + 1)))) }
        #expect(throws: ModelError.self) { try sign(.vote(Vote(target: try OpID(bytes: [UInt8](repeating: 2, count: 32)), value: 2))) }
        #expect(throws: ModelError.self) { try sign(.createPack(CreatePack(name: "p", nonce: [1, 2])), pack: nil) }
        #expect(throws: ModelError.self) { try sign(.createPack(CreatePack(name: "p", locked: true, nonce: [UInt8](repeating: 0, count: 16))), pack: nil) }
        // The largest allowed post fits the envelope limit.
        try sign(.post(Post(title: String(repeating: "t", count: Limits.maxTitle), body: String(repeating: "b", count: Limits.maxBody),
                            tags: Array(repeating: String(repeating: "g", count: Limits.maxTag), count: Limits.maxTags))))
    }
}

@Suite struct ClockAndGeoTests {
    @Test func hybridClockIsMonotoneAndFollowsRemoteTime() {
        var c = HybridClock()
        let a = c.tick(physicalMs: 1000), b = c.tick(physicalMs: 1000), d = c.tick(physicalMs: 999)
        #expect(a < b && b < d && d.physicalMs == 1000 && d.counter == 2)
        c.observe(HLC(physicalMs: 5000, counter: 7), physicalMs: 1001)
        let e = c.tick(physicalMs: 1002)
        #expect(e == HLC(physicalMs: 5000, counter: 8))
        #expect(c.tick(physicalMs: 6000) == HLC(physicalMs: 6000, counter: 0))
    }

    @Test func geohashKnownValuesAndRoundTrip() throws {
        // Niemeyer's example: 57.64911,10.40744 -> u4pruydqqvj
        #expect(Geohash.encode(try GeoPoint(lat: 57.64911, lon: 10.40744), precision: 11) == "u4pruydqqvj")
        let cell = try Geohash.decode("u4pruydqqvj")
        #expect(abs(cell.center.lat - 57.64911) < 1e-5 && abs(cell.center.lon - 10.40744) < 1e-5)
        #expect(throws: ModelError.self) { try Geohash.decode("u4a") }   // 'a' is not in the alphabet
        #expect(throws: ModelError.self) { try Geohash.decode("") }
        let coarse = try Geohash.decode("dpph")
        #expect(coarse.radiusMeters > 10_000 && coarse.radiusMeters < 30_000)
    }

    @Test func haversineAndFences() throws {
        let cmu = try GeoPoint(lat: 40.4433, lon: -79.9436), pitt = try GeoPoint(lat: 40.4444, lon: -79.9608)
        #expect(abs(cmu.distance(to: pitt) - 1460) < 30)
        #expect(abs(try GeoPoint(lat: 0, lon: 0).distance(to: try GeoPoint(lat: 0, lon: 1)) - 111_195) < 10)
        let fence = Geofence(center: cmu, radiusMeters: 1000)
        #expect(!fence.contains(pitt) && fence.contains(pitt, marginMeters: 500))
        #expect(fence.contains(geohash: Geohash.encode(cmu, precision: 7)))
        #expect(!fence.contains(geohash: Geohash.encode(try GeoPoint(lat: 40.6, lon: -79.9436), precision: 7)))
        #expect(throws: ModelError.self) { try GeoPoint(lat: 91, lon: 0) }
        #expect(throws: ModelError.self) { try GeoPoint(parsing: "40.1;-79") }
        #expect(try GeoPoint(parsing: " 40.5 , -79.25 ") == GeoPoint(lat: 40.5, lon: -79.25))
    }
}

@Suite struct EnvelopeEncodingTests {
    @Test func handWrittenEncodingMatchesProtobuf() throws {
        var rng = SplitMix64(seed: 12)
        for n in [0, 1, 127, 128, 300, 1000] {
            let env = Envelope(body: rng.bytes(n), signature: rng.bytes(64))
            let back = try Envelope(serialized: env.serialized())
            #expect(back == env || n == 0)
            #expect(env.serialized().count == (n == 0 ? 0 : 1 + (n < 128 ? 1 : 2) + n) + 66)
        }
    }
}
