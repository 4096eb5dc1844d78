import Testing
import SkwadCrypto
import SkwadModel
import SkwadReplica
@testable import SkwadGossip
import SkwadTestKit

/// Bans and reports under attack (SECURITY.md "Moderation"), pushed by a `HostilePeer` through
/// a real session into a real engine and replica: a ban by a member, a ban in another pack
/// naming a pseudonym of this one, a ban of a moderator, and a report framing a pseudonym that
/// did not write it.
@Suite struct ModerationAttackTests {
    @Test func forgedBansAndFramedReportsChangeNothing() throws {
        let t0: UInt64 = 1_790_000_000_000
        var f = OpFactory(seed: 47, nowMs: t0, floors: false)
        let alpha = f.user(), bob = f.user(), carol = f.user(), mallory = f.user()
        let g = f.createPack(by: alpha, name: "housing")
        let other = f.createPack(by: mallory, name: "elsewhere")
        let bobs = f.post(by: bob, in: g, title: "bob's listing")
        let alphas = f.post(by: alpha, in: g, title: "rules")
        var e = GossipEngine(seed: 47, secrets: .seeded)
        var r = Replica(config: .noFloors)
        var peer = HostilePeer(address: PeerAddress("10.0.0.47:7000"), seed: 47)
        #expect(peer.handshake(with: &e, nowMs: t0, replica: &r))
        for op in [g, other, bobs, alphas] { #expect(r.admit(op, nowMs: t0).isAdmitted) }
        let bobKey = f.pseudonym(bob, in: g).publicKey
        let alphaKey = f.pseudonym(alpha, in: g).publicKey

        let byMember = f.ban(by: mallory, in: g, author: bobKey)  // not a moderator of g
        let elsewhere = f.ban(by: mallory, in: other, author: bobKey)  // her own pack, bob's key of g
        let ofAlpha = f.ban(by: mallory, in: g, author: alphaKey)  // a member banning the Alpha
        let framed = f.report(by: carol, in: g, on: alphas.id, reason: "framed", signer: f.pseudonym(bob, in: g))
        for op in [byMember, elsewhere, ofAlpha, framed] {
            _ = peer.send(WireForge.ops([op.envelope.serialized()]), to: &e, nowMs: t0 + 10, replica: &r)
        }
        // Refused at admission (and counted), or admitted where it names nothing of this pack.
        #expect(!r.contains(byMember.id) && !r.contains(ofAlpha.id))
        #expect(e.stats.opsRejected[Rejection.notAllowed.rawValue] == 2)
        #expect(r.contains(elsewhere.id) && r.contains(framed.id))
        #expect(Set(r.feed(packs: [g.id], nowMs: t0 + 10).map(\.id)) == [bobs.id, alphas.id])
        #expect(r.banned(in: g.id).isEmpty)
        // The framed report names bob as its reporter without bob's signature: it opens for no one.
        #expect(r.reports(in: g.id, openedWith: f.pseudonym(alpha, in: g)).isEmpty)
        // Mallory's ban counts in her own pack only; the Alpha's own ban counts in g.
        #expect(r.banned(in: other.id) == [bobKey])
        let real = f.ban(by: alpha, in: g, author: bobKey)
        _ = peer.send(WireForge.ops([real.envelope.serialized()]), to: &e, nowMs: t0 + 20, replica: &r)
        #expect(r.feed(packs: [g.id], nowMs: t0 + 20).map(\.id) == [alphas.id])
        #expect(r.banned(in: g.id) == [bobKey])
    }
}
