import Testing
import SkwadCrypto
import SkwadModel
@testable import SkwadReplica
import SkwadTestKit

/// Profiles by consent (PROTOCOL.md §3a): a display name counts in its own pack only, the
/// last by (hlc, id) in any order, within its limits; the persona is not the pseudonym.
@Suite struct ProfileViewTests {
    @Test func aNameCountsInItsPackOnlyAndTheLastWins() throws {
        var f = OpFactory(seed: 2611, floors: false)
        let alpha = f.user(), bob = f.user()
        let a = f.createPack(by: alpha, name: "A"), b = f.createPack(by: alpha, name: "B")
        // One key acting in both packs (an admin key would): its profile in B names nothing in A.
        let key = SigningKeyPair.generate()
        let first = f.op(.profile(Profile(name: "Sam")), by: bob, in: a, signer: key)
        let second = f.op(.profile(Profile(name: "Samantha", about: "3rd year")), by: bob, in: a, signer: key)
        let elsewhere = f.op(.profile(Profile(name: "Impostor")), by: bob, in: b, signer: key)
        let post = f.op(.post(Post(title: "hi", body: "")), by: bob, in: a, signer: key)
        let postB = f.op(.post(Post(title: "yo", body: "")), by: bob, in: b, signer: key)
        var views: [[String?]] = []
        for order in [[a, b, first, second, elsewhere, post, postB], [b, a, postB, post, elsewhere, second, first]] {
            var r = Replica(config: .noFloors)
            for op in order { #expect(r.admit(op, nowMs: f.nowMs).isAdmitted) }
            views.append([
                r.feed(packs: [a.id], nowMs: f.nowMs).first?.displayName,
                r.feed(
                    packs: [b.id],
                    nowMs: f.nowMs
                ).first?.displayName
            ])
            #expect(r.profile(of: key.publicKey, in: a.id)?.about == "3rd year")
        }
        #expect(views[0] == ["Samantha", "Impostor"] && views[1] == views[0])
    }

    @Test func namesOutsideTheLimitsAreRefused() {
        var f = OpFactory(seed: 2612, floors: false)
        let alpha = f.user()
        let g = f.createPack(by: alpha)
        var r = Replica(config: .noFloors)
        _ = r.admit(g, nowMs: f.nowMs)
        for p in [
            Profile(name: ""), Profile(name: "  "), Profile(name: String(repeating: "n", count: 33)),
            Profile(name: "ok", about: String(repeating: "a", count: 141))
        ] {
            guard case .rejected(let why, _) = r.receive(f.unchecked(.profile(p), by: alpha, in: g), nowMs: f.nowMs),
                why == .malformed || why == .tooLarge
            else { Issue.record("\(p) admitted"); continue }
        }
    }

    @Test func thePersonaIsNotThePseudonym() {
        var f = OpFactory(seed: 2613)
        let bob = f.user()
        let nonce = [UInt8](repeating: 3, count: 16), other = [UInt8](repeating: 4, count: 16)
        #expect(bob.persona(genesisNonce: nonce).publicKey != bob.pseudonym(genesisNonce: nonce).publicKey)
        #expect(bob.persona(genesisNonce: nonce).publicKey != bob.persona(genesisNonce: other).publicKey)
        #expect(bob.persona(genesisNonce: nonce).publicKey == bob.persona(genesisNonce: nonce).publicKey)
    }
}
