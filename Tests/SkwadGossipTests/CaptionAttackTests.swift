import Testing
import SkwadCrypto
import SkwadModel
import SkwadReplica
@testable import SkwadGossip
import SkwadTestKit

/// Picks under attack (SECURITY.md "Captions"), pushed by a `HostilePeer` through a real
/// session into a real engine and replica: a pick by anyone but the asker, and a pick naming
/// a caption from another pack (short ids: `CodecTests`).
@Suite struct CaptionAttackTests {
    @Test func picksByOthersOrAcrossPacksChangeNothing() throws {
        let t0: UInt64 = 1_790_000_000_000
        var f = OpFactory(seed: 40, nowMs: t0, floors: false)
        let asker = f.user(), mallory = f.user()
        let g = f.createPack(by: asker, name: "capgrab")
        let other = f.createPack(by: mallory, name: "elsewhere")
        let ask = f.op(.post(Post(title: "caption this", body: "", ask: true)), by: asker, in: g)
        let honest = f.comment(by: asker, in: g, on: ask, text: "mine")
        let theirs = f.comment(by: mallory, in: g, on: ask, text: "pick me")
        let pick = f.op(.pick(Pick(ask: ask.id, caption: honest.id)), by: asker, in: g)
        var e = GossipEngine(seed: 40, secrets: .seeded)
        var r = Replica(config: .noFloors)
        var peer = HostilePeer(address: PeerAddress("10.0.0.40:7000"), seed: 40)
        #expect(peer.handshake(with: &e, nowMs: t0, replica: &r))
        for op in [g, other, ask, honest, theirs, pick] { #expect(r.admit(op, nowMs: t0).isAdmitted) }

        let forged = [
            f.op(.pick(Pick(ask: ask.id, caption: theirs.id)), by: mallory, in: g),  // not the asker
            f.op(.pick(Pick(ask: ask.id, caption: theirs.id)), by: mallory, in: other)
        ]  // from another pack
        for op in forged { _ = peer.send(WireForge.ops([op.envelope.serialized()]), to: &e, nowMs: t0 + 10, replica: &r) }
        for op in forged { #expect(r.contains(op.id)) }
        #expect(r.thread(ask.id, nowMs: t0 + 10)?.post.picked == honest.id)
    }
}
