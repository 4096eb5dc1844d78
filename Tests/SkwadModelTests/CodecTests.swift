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
            .post(Post(title: "caption this", body: "", ask: true)), .pick(Pick(ask: id, caption: pack))
        ]
        for k in kinds {
            let body = OpBody(packID: pack, author: key.publicKey, hlc: HLC(physicalMs: 5, counter: 2), location: "dpph", stamp: 9, kind: k)
            let op = try SignedOp.sign(body, with: key)
            #expect(try SignedOp.open(op.envelope.serialized()).body == body)
        }
        let genesis = OpBody(
            packID: nil, author: key.publicKey, hlc: HLC(raw: 1),
            kind: .createPack(
                CreatePack(
                    name: "p", tags: ["a"], color: "red", fence: fence, locked: true,
                    nonce: rng.bytes(16), powBits: 3, hideScore: 4)))
        let op = try SignedOp.sign(genesis, with: key)
        let back = try SignedOp.open(op.envelope.serialized())
        #expect(back.body == genesis && back.packID == op.id)
    }

    @Test func malformedInputsAreErrorsNeverTraps() throws {
        var rng = SplitMix64(seed: 4)
        let key = SigningKeyPair.generate()
        let good = try SignedOp.sign(
            OpBody(
                packID: try OpID(bytes: rng.bytes(32)), author: key.publicKey, hlc: HLC(raw: 1),
                kind: .post(Post(title: "t", body: "b"))), with: key
        ).envelope.serialized()
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
        #expect(throws: ModelError.self) {
            try sign(.post(Post(title: "t", body: "b", tags: Array(repeating: "x", count: Limits.maxTags + 1))))
        }
        #expect(throws: ModelError.self) { try sign(.vote(Vote(target: try OpID(bytes: [UInt8](repeating: 2, count: 32)), value: 2))) }
        #expect(throws: ModelError.self) { try sign(.createPack(CreatePack(name: "p", nonce: [1, 2])), pack: nil) }
        #expect(throws: ModelError.self) {
            try sign(.createPack(CreatePack(name: "p", locked: true, nonce: [UInt8](repeating: 0, count: 16))), pack: nil)
        }
        // The largest allowed post fits the envelope limit.
        try sign(
            .post(
                Post(
                    title: String(repeating: "t", count: Limits.maxTitle), body: String(repeating: "b", count: Limits.maxBody),
                    tags: Array(repeating: String(repeating: "g", count: Limits.maxTag), count: Limits.maxTags))))
    }
}
