import Testing
import SkwadCrypto
import SkwadModel
@testable import SkwadReplica
import SkwadTestKit

/// Invite-only packs in the replica (PROTOCOL.md §3b): members open sealed ops, non-members
/// hold ciphertext and list nothing; a rotation leaves a removed member's later ops unopened
/// whatever the arrival order; admission judges the clear part only.
@Suite struct PrivatePackTests {
    static let k0 = [UInt8](repeating: 7, count: 32), k1 = [UInt8](repeating: 9, count: 32)

    @Test func aMemberReadsAndANonMemberHoldsCiphertextOnly() throws {
        var f = OpFactory(seed: 2601, floors: false)
        let alpha = f.user(), bob = f.user()
        let g = f.createPrivatePack(by: alpha, name: "flat 4b", key: Self.k0)
        let post = f.sealed(.post(Post(title: "rent is due", body: "friday")), by: bob, in: g, key: Self.k0)
        var member = Replica(config: .noFloors), relay = Replica(config: .noFloors)
        member.addPackKey(Self.k0, epoch: 0, pack: g.id)
        for op in [g, post] {
            #expect(member.admit(op, nowMs: f.nowMs).isAdmitted)
            #expect(relay.admit(op, nowMs: f.nowMs).isAdmitted)
        }
        #expect(member.packs(nowMs: f.nowMs).map(\.name) == ["flat 4b"])
        #expect(member.feed(packs: [g.id], nowMs: f.nowMs).map(\.title) == ["rent is due"])
        // The relay holds both ops, lists no pack, reads no post, and finds nothing by name.
        #expect(relay.count == 2 && relay.packs(nowMs: f.nowMs).isEmpty)
        #expect(relay.feed(packs: [g.id], nowMs: f.nowMs).isEmpty)
        #expect(relay.findPacks("flat 4b", nowMs: f.nowMs, limit: 5).isEmpty)
        #expect(relay.pack(g.id)?.create.name == "")
        // What it would forward is the envelope as received, identical on both.
        #expect(member.op(post.id)?.envelope == relay.op(post.id)?.envelope)
        if case .sealed = relay.op(post.id)!.body.kind {} else { Issue.record("the relay opened a sealed op") }
        // Same participants (the pack's lifetime) on both.
        #expect(member.pack(g.id)?.expiresMs == relay.pack(g.id)?.expiresMs)
    }

    @Test func aKeyThatComesLaterOpensWhatIsHeld() throws {
        var f = OpFactory(seed: 2602, floors: false)
        let alpha = f.user(), bob = f.user()
        let g = f.createPrivatePack(by: alpha, key: Self.k0)
        let post = f.sealed(.post(Post(title: "hello", body: "")), by: bob, in: g, key: Self.k0)
        var r = Replica(config: .noFloors)
        _ = r.admit(g, nowMs: f.nowMs); _ = r.admit(post, nowMs: f.nowMs)
        #expect(r.feed(packs: [g.id], nowMs: f.nowMs).isEmpty)
        r.addPackKey(Self.k0, epoch: 0, pack: g.id)
        #expect(r.feed(packs: [g.id], nowMs: f.nowMs).map(\.title) == ["hello"])
        #expect(r.packs(nowMs: f.nowMs).map(\.name) == ["roommates"])
        // A wrong key opens nothing.
        var wrong = Replica(config: .noFloors)
        wrong.addPackKey(Self.k1, epoch: 0, pack: g.id)
        _ = wrong.admit(g, nowMs: f.nowMs); _ = wrong.admit(post, nowMs: f.nowMs)
        #expect(wrong.feed(packs: [g.id], nowMs: f.nowMs).isEmpty)
    }

    /// Carol is removed at epoch 1: her epoch-0 post after the rotation stays unopened, in any
    /// order; her post before it still reads; she cannot read what is sealed under epoch 1.
    @Test func afterARotationTheRemovedMemberNeitherReadsNorIsRead() throws {
        var f = OpFactory(seed: 2603, floors: false)
        let alpha = f.user(), bob = f.user(), carol = f.user()
        let g = f.createPrivatePack(by: alpha, key: Self.k0)
        let before = f.sealed(.post(Post(title: "carol before", body: "")), by: carol, in: g, key: Self.k0)
        let rotation = f.packKeys(by: alpha, in: g, key: Self.k1, epoch: 1, members: [bob])
        let after = f.sealed(.post(Post(title: "carol after", body: "")), by: carol, in: g, key: Self.k0)
        let secret = f.sealed(.post(Post(title: "new flat plan", body: "")), by: bob, in: g, key: Self.k1, epoch: 1)
        let all = [g, before, rotation, after, secret]
        var seen: [[String]] = []
        for order in [all, [g, secret, after, before, rotation], [g, after, secret, rotation, before]] {
            var r = Replica(config: .noFloors)
            r.addPackKey(Self.k0, epoch: 0, pack: g.id)
            for op in order { #expect(r.admit(op, nowMs: f.nowMs).isAdmitted) }
            // Bob opens his key from the rotation op with his pseudonym.
            guard case .packKeys(let k) = rotation.body.kind else { Issue.record("not a key op"); return }
            let bobKey = try #require(k.open(with: f.pseudonym(bob, in: g)))
            #expect(k.open(with: f.pseudonym(carol, in: g)) == nil)
            r.addPackKey(bobKey, epoch: 1, pack: g.id)
            seen.append(r.feed(packs: [g.id], nowMs: f.nowMs).map(\.title).sorted())
        }
        #expect(seen.allSatisfy { $0 == ["carol before", "new flat plan"] })
        // Carol holds epoch 0 only.
        var c = Replica(config: .noFloors)
        c.addPackKey(Self.k0, epoch: 0, pack: g.id)
        for op in all { _ = c.admit(op, nowMs: f.nowMs) }
        #expect(!c.feed(packs: [g.id], nowMs: f.nowMs).map(\.title).contains("new flat plan"))
    }

    @Test func admissionJudgesTheClearPartOnly() throws {
        var f = OpFactory(seed: 2604, floors: false)
        let alpha = f.user(), bob = f.user()
        let g = f.createPrivatePack(by: alpha, key: Self.k0)
        let pub = f.createPack(by: alpha)
        var r = Replica(config: .noFloors)
        _ = r.admit(g, nowMs: f.nowMs); _ = r.admit(pub, nowMs: f.nowMs)
        func refused(_ bytes: [UInt8], _ reason: Rejection) {
            guard case .rejected(let why, _) = r.receive(bytes, nowMs: f.nowMs), why == reason else {
                Issue.record("not refused as \(reason)"); return
            }
        }
        // A clear post in an invite-only pack, and a sealed op in a public one.
        refused(f.unchecked(.post(Post(title: "spam", body: "")), by: bob, in: g), .notAllowed)
        let box = try Sealed.seal(
            .post(Post(title: "x", body: "")), key: Self.k0, epoch: 0, pack: pub.id,
            author: f.pseudonym(bob, in: pub).publicKey, nonce: f.rng.bytes(24))
        refused(f.unchecked(.sealed(box), by: bob, in: pub), .notAllowed)
        // Keys handed out by someone other than the Alpha; too many; of the wrong size; epoch 0.
        let forged = try PackKeys.make(key: Self.k1, epoch: 1, members: [f.pseudonym(bob, in: g).publicKey])
        refused(f.unchecked(.packKeys(forged), by: bob, in: g), .notAllowed)
        let many = PackKeys(epoch: 1, sealed: Array(repeating: forged.sealed[0], count: Limits.maxPackKeyEntries + 1))
        refused(f.unchecked(.packKeys(many), by: alpha, in: g), .tooLarge)
        refused(f.unchecked(.packKeys(PackKeys(epoch: 1, sealed: [[1, 2, 3]])), by: alpha, in: g), .malformed)
        refused(f.unchecked(.packKeys(PackKeys(epoch: 0, sealed: forged.sealed)), by: alpha, in: g), .malformed)
        // A clear genesis name on an invite-only pack; a sealed box off the size classes.
        refused(f.unchecked(.sealed(Sealed(epoch: 0, box: [UInt8](repeating: 1, count: 105))), by: bob, in: g), .malformed)
        // A non-member's sealed op (garbage under no key) is admitted as ciphertext but never read.
        let garbage = Sealed(epoch: 0, box: [UInt8](repeating: 5, count: 24 + 16 + 64))
        #expect(r.receive(f.unchecked(.sealed(garbage), by: bob, in: g), nowMs: f.nowMs).isAdmitted)
        r.addPackKey(Self.k0, epoch: 0, pack: g.id)
        #expect(r.feed(packs: [g.id], nowMs: f.nowMs).isEmpty && r.privateMembers(g.id).isEmpty)
    }

    @Test func aSealedBoxMovedToAnotherAuthorDoesNotOpen() throws {
        var f = OpFactory(seed: 2605, floors: false)
        let alpha = f.user(), bob = f.user(), mallory = f.user()
        let g = f.createPrivatePack(by: alpha, key: Self.k0)
        let honest = f.sealed(.post(Post(title: "bob's", body: "")), by: bob, in: g, key: Self.k0)
        guard case .sealed(let s) = honest.body.kind else { Issue.record("not sealed"); return }
        let copy = f.op(.sealed(s), by: mallory, in: g)
        var r = Replica(config: .noFloors)
        r.addPackKey(Self.k0, epoch: 0, pack: g.id)
        for op in [g, honest, copy] { #expect(r.admit(op, nowMs: f.nowMs).isAdmitted) }
        #expect(r.feed(packs: [g.id], nowMs: f.nowMs).map(\.id) == [honest.id])
    }
}
