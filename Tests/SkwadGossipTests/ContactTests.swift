import Foundation
import Testing
import SkwadCrypto
import SkwadModel
import SkwadReplica
@testable import SkwadGossip
import SkwadTestKit

/// Contact codes (PROTOCOL §9 "Contact codes"; SECURITY.md "Contact codes"): a node proves its
/// contact key only to a holder of its code, bound to their session; a checker believes only
/// a proof of the code's key on its own session.
@Suite struct ContactTests {
    static let t0: UInt64 = 1_790_000_000_000
    static let key = try! SigningKeyPair(seed: [UInt8](repeating: 7, count: 32))
    static let other = try! SigningKeyPair(seed: [UInt8](repeating: 8, count: 32))
    static var fingerprint: [UInt8] { ContactCode.fingerprint(of: key.publicKey) }

    static func probe(fingerprint: [UInt8], binding: [UInt8], padding: Int = ContactProofs.minPadding) -> [UInt8] {
        var m = WireMessage(); var p = Skwad_Gossip_V1_ContactProbe()
        p.tag = Data(Blake2b.hash256(Array("skwad/contact-probe/v1".utf8) + binding, key: fingerprint))
        p.padding = Data(count: padding); m.contactProbe = p
        return try! m.serializedBytes()
    }

    static func proof(_ key: SigningKeyPair, binding: [UInt8]) -> [UInt8] {
        var m = WireMessage(); var p = Skwad_Gossip_V1_ContactProof()
        p.publicKey = Data(key.publicKey.bytes)
        p.signature = Data(key.sign(Array("skwad/contact-proof/v1".utf8) + binding)); m.contactProof = p
        return try! m.serializedBytes()
    }

    /// An engine holding `key` and a hostile peer with a session to it.
    static func engineAndPeer() -> (GossipEngine, Replica, HostilePeer) {
        var (e, r, ps) = HostileFixture.engine(peers: ["198.18.1.1:5000"], nowMs: t0)
        e.contactKey = key
        return (e, r, ps[0])
    }

    @Test func aHolderOfTheCodeGetsAProofOfTheKeyBoundToItsSession() throws {
        var (e, r, p) = Self.engineAndPeer()
        let probe = p.seal(Self.probe(fingerprint: Self.fingerprint, binding: p.binding))
        let answers = HostilePeer.sent(e.receive(datagram: probe, from: p.address, nowMs: Self.t0, replica: &r), to: p.address)
        let proofs = try answers.compactMap { p.open($0) }.map { try WireMessage(serializedBytes: $0) }.filter {
            if case .contactProof = $0.body { true } else { false }
        }
        #expect(proofs.count == 1)
        let pk = try PublicKey(bytes: [UInt8](try #require(proofs.first).contactProof.publicKey))
        #expect(pk == Self.key.publicKey)
        let sig = [UInt8](proofs[0].contactProof.signature)
        #expect(pk.verify(signature: sig, message: Array("skwad/contact-proof/v1".utf8) + p.binding))
        // No reflection: the proof frame is smaller than 3x the probe frame.
        #expect(answers.map(\.count).max()! < 3 * probe.count)
        #expect(e.stats.contactProofsSent == 1)
    }

    /// Without the code (another fingerprint), or with a tag made on another session: no answer.
    @Test func aProbeWithoutTheCodeOrFromAnotherSessionIsUnanswered() {
        var (e, r, p) = Self.engineAndPeer()
        var q = HostilePeer(address: PeerAddress("198.18.2.1:5000"), seed: 2)
        #expect(q.handshake(with: &e, nowMs: Self.t0, replica: &r))
        let wrong = ContactCode.fingerprint(of: Self.other.publicKey)
        var sends = HostilePeer.sent(
            p.send(Self.probe(fingerprint: wrong, binding: p.binding), to: &e, nowMs: Self.t0, replica: &r), to: p.address)
        // q replays p's tag (it learnt p's binding somehow): bound to p's session, not q's.
        sends += HostilePeer.sent(
            q.send(Self.probe(fingerprint: Self.fingerprint, binding: p.binding), to: &e, nowMs: Self.t0, replica: &r), to: q.address)
        #expect(sends.isEmpty)
        #expect(e.stats.drops["contactRefused"] == 2)
        #expect(e.stats.contactProofsSent == 0)
    }

    @Test func aShortProbeIsRefused() {
        var (e, r, p) = Self.engineAndPeer()
        let ds = p.send(Self.probe(fingerprint: Self.fingerprint, binding: p.binding, padding: 10), to: &e, nowMs: Self.t0, replica: &r)
        #expect(HostilePeer.sent(ds, to: p.address).isEmpty)
        #expect(e.stats.drops["amplification"] == 1)
    }

    /// Each proof costs a signature: a flood of good probes gets at most the budget's burst.
    @Test func aProbeFloodIsCutToTheProofBudget() {
        var (e, r, p) = Self.engineAndPeer()
        var answered = 0
        for _ in 0..<200 {
            let ds = p.send(Self.probe(fingerprint: Self.fingerprint, binding: p.binding), to: &e, nowMs: Self.t0, replica: &r)
            answered += HostilePeer.sent(ds, to: p.address).count
        }
        #expect(answered == Int(ContactProofs.proofsPerSecond))
        #expect(e.stats.drops["contactLimited"] == 200 - Int(ContactProofs.proofsPerSecond))
    }

    /// The checker's side: a proof nobody asked for is dropped; another key, or the right key
    /// signing another session's binding, fails; the right key on this session is proven.
    @Test func aCheckerBelievesOnlyTheCodesKeyOnItsOwnSession() {
        var (e, r, p) = Self.engineAndPeer()
        _ = p.send(Self.proof(Self.key, binding: p.binding), to: &e, nowMs: Self.t0, replica: &r)
        #expect(e.stats.drops["contactUnasked"] == 1 && e.contactCheck(p.address) == nil)

        func check(answer: [UInt8]) -> ContactCheck? {
            let asked = e.checkContact(p.address, fingerprint: Self.fingerprint, nowMs: Self.t0)
            #expect(HostilePeer.sent(asked, to: p.address).count == 1)
            #expect(e.contactCheck(p.address) == .pending)
            _ = p.send(answer, to: &e, nowMs: Self.t0, replica: &r)
            return e.contactCheck(p.address)
        }
        #expect(check(answer: Self.proof(Self.other, binding: p.binding)) == .failed)
        #expect(check(answer: Self.proof(Self.key, binding: [UInt8](repeating: 1, count: 32))) == .failed)
        #expect(check(answer: Self.proof(Self.key, binding: p.binding)) == .proven(Self.key.publicKey))
        #expect(e.stats.contactsFailed == 2 && e.stats.contactsProven == 1)
    }

    /// Two engines: the one that typed the code links to the other and finds its key proven.
    @Test func twoEnginesCheckAContactCodeEndToEnd() throws {
        var h = Harness(count: 2)
        h.nodes[0].engine.contactKey = Self.key
        for i in 0..<2 { h.apply(i, h.nodes[i].engine.start(seeds: [], nowMs: h.nowMs)) }
        let target = Harness.address(0)
        h.apply(1, h.nodes[1].engine.introduce(target, nowMs: h.nowMs))
        h.run(ms: 200)
        #expect(h.nodes[1].engine.isKeyed(with: target))
        let ds = h.nodes[1].engine.checkContact(target, fingerprint: Self.fingerprint, nowMs: h.nowMs)
        h.apply(1, ds)
        h.run(ms: 200)
        #expect(h.nodes[1].engine.contactCheck(target) == .proven(Self.key.publicKey))
        // A code naming another key: the same node fails the check.
        let wrong = ContactCode.fingerprint(of: Self.other.publicKey)
        let again = h.nodes[1].engine.checkContact(target, fingerprint: wrong, nowMs: h.nowMs)
        h.apply(1, again)
        h.run(ms: 200)
        #expect(h.nodes[1].engine.contactCheck(target) == .pending, "an unanswered probe stays pending")
        #expect(h.nodes[0].engine.stats.drops["contactRefused"] == 1)
    }
}
