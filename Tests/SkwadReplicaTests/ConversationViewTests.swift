import Testing
import SkwadCrypto
import SkwadModel
@testable import SkwadReplica
import SkwadTestKit

/// Direct messages in the replica (PROTOCOL.md §3a, §4, §5): admission looks at the op and
/// its genesis only; the letters view decides the rest, the same whatever the order.
@Suite struct ConversationViewTests {
    @Test func aLetterReachesOnlyItsRecipientAndNotAsAPost() throws {
        var f = OpFactory(seed: 2601, floors: false)
        let alpha = f.user(), bob = f.user(), carol = f.user()
        let g = f.createPack(by: alpha)
        let bobKey = f.pseudonym(bob, in: g)
        let dm = f.directMessage(from: alpha, to: bobKey.publicKey, in: g, text: "welcome")
        var r = Replica(config: .noFloors)
        #expect(r.admit(g, nowMs: f.nowMs).isAdmitted)
        #expect(r.admit(dm, nowMs: f.nowMs).isAdmitted)
        #expect(dm.author != f.pseudonym(alpha, in: g).publicKey)  // carried by a one-off key
        let got = r.letters(in: g.id, openedWith: bobKey)
        #expect(got.map(\.letter.text) == ["welcome"] && got.first?.sender == f.pseudonym(alpha, in: g).publicKey)
        #expect(r.letters(in: g.id, openedWith: f.pseudonym(carol, in: g)).isEmpty)
        #expect(r.directMessageIDs(in: g.id) == [dm.id])
        #expect(r.feed(nowMs: f.nowMs).isEmpty)
        #expect(r.pack(g.id)?.participants.isEmpty == true)  // a DM does not extend the pack's life
    }

    @Test func admissionRefusesASizeOutsideTheClasses() throws {
        var f = OpFactory(seed: 2602, floors: false)
        let alpha = f.user()
        let g = f.createPack(by: alpha)
        var r = Replica(config: .noFloors)
        _ = r.admit(g, nowMs: f.nowMs)
        for n in [0, 100, 305, 900] {
            let bytes = f.unchecked(.directMessage(DirectMessage(sealed: [UInt8](repeating: 1, count: n))), by: alpha, in: g)
            guard case .rejected(.malformed, _) = r.receive(bytes, nowMs: f.nowMs) else { Issue.record("size \(n) admitted"); continue }
        }
        let junk = f.unchecked(.directMessage(DirectMessage(sealed: [UInt8](repeating: 1, count: 304))), by: alpha, in: g)
        #expect(r.receive(junk, nowMs: f.nowMs).isAdmitted)  // a relay cannot tell junk from a letter: it carries it
    }

    @Test func forgedMovedAndUnstampedLettersSayNothing() throws {
        var f = OpFactory(seed: 2603, floors: true)
        let alpha = f.user(), bob = f.user(), mallory = f.user()
        let g = f.createPack(by: alpha), g2 = f.createPack(by: alpha, name: "other")
        let bobKey = f.pseudonym(bob, in: g)
        let forged = f.directMessage(from: alpha, to: bobKey.publicKey, in: g, text: "forged", signer: f.pseudonym(mallory, in: g))
        let moved = f.directMessage(from: alpha, to: bobKey.publicKey, in: g, text: "moved", sealedIn: g2.id)
        // A sender key with no stamp for this pack (a fresh key each time would dodge the per-sender limit).
        let fresh = SigningKeyPair.generate(), carrier = SigningKeyPair.generate()
        let unstamped = try DirectMessage.seal(
            DirectLetter(sender: fresh.publicKey, stamp: 0, recipient: bobKey.publicKey, text: "free"),
            signer: fresh, pack: g.id, carrier: carrier.publicKey)
        let u = f.op(.directMessage(unstamped), by: mallory, in: g, signer: carrier)
        let good = f.directMessage(from: alpha, to: bobKey.publicKey, in: g, text: "real")
        var r = Replica()
        for op in [g, g2, forged, moved, u, good] { #expect(r.admit(op, nowMs: f.nowMs).isAdmitted) }
        #expect(r.letters(in: g.id, openedWith: bobKey).map(\.letter.text) == ["real"])
    }

    /// At most 60 letters of one sender per clock hour count, the first 60 to arrive: a letter
    /// backdated into the hour after the cap displaces none (so the node never announced or
    /// acknowledged a letter its views later drop), and a restore in the stored order counts
    /// the same ones.
    @Test func atMostSixtyLettersPerSenderAndHourCountInArrivalOrder() throws {
        var f = OpFactory(seed: 2604, floors: false)
        let alpha = f.user(), bob = f.user(), carol = f.user()
        let g = f.createPack(by: alpha)
        let bobKey = f.pseudonym(bob, in: g)
        let base = f.nowMs / Lifetime.hour * Lifetime.hour + Lifetime.hour
        let flood = (0..<75).map { i in
            f.directMessage(from: carol, to: bobKey.publicKey, in: g, text: "spam \(i)", hlc: HLC(physicalMs: base + UInt64(i), counter: 0))
        }
        let friend = f.directMessage(
            from: alpha, to: bobKey.publicKey, in: g, text: "still here",
            hlc: HLC(
                physicalMs: base + 100,
                counter: 0))
        // The 15 newest first, then the 60 older ones: the 15 and 45 of the older count.
        let order = Array(flood[60...]) + [friend] + Array(flood[..<60])
        var r = Replica(config: .noFloors)
        _ = r.admit(g, nowMs: base + 200)
        var counted: [String] = []
        for op in order {
            #expect(r.admit(op, nowMs: base + 200).isAdmitted)
            let now = r.letters(in: g.id, openedWith: bobKey).map(\.letter.text)
            #expect(Set(counted).isSubset(of: Set(now)), "a letter that counted stopped counting")
            counted = now
        }
        let expected = Set((60..<75).map { "spam \($0)" } + (0..<45).map { "spam \($0)" } + ["still here"])
        #expect(counted.count == Limits.lettersPerSenderHour + 1 && Set(counted) == expected)
        // Oldest first in the view, whatever the arrival order.
        #expect(counted.first == "spam 0" && counted.last == "still here")
        var again = Replica(config: .noFloors)
        again.restore([g] + order)
        #expect(again.letters(in: g.id, openedWith: bobKey).map(\.letter.text) == counted)
    }
}
