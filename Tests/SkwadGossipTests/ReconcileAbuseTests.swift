import Testing
import SkwadModel
import SkwadReplica
@testable import SkwadGossip
import SkwadTestKit

/// The "settled" answer of reconciliation (PROTOCOL §11): an initiator whose set matches ours
/// gets one empty `Reconcile`, never more bytes than it sent, and a `Reconcile` that claims
/// to answer a round we never started is answered with nothing.
@Suite struct ReconcileAbuseTests {
    static let t0: UInt64 = 1_790_000_000_000

    static func frame(_ r: ReconcileRound) -> [UInt8] { try! Message.reconcile(r).wire.serializedBytes() }

    @Test func matchingRoundsGetOneSmallSettledAnswerAndUnaskedAnswersNothing() throws {
        var e = GossipEngine(config: GossipConfig(), seed: 3, secrets: .seeded)
        var r = Replica(config: .noFloors)
        var f = OpFactory(seed: 4, nowMs: Self.t0, floors: false)
        let alpha = f.user()
        let g = f.createPack(by: alpha, name: "open")
        #expect(r.admit(g, nowMs: Self.t0) == .admitted([g]))
        for k in 0..<40 { let p = f.post(by: alpha, in: g, title: "p\(k)"); #expect(r.admit(p, nowMs: Self.t0) == .admitted([p])) }
        var peer = HostilePeer(address: PeerAddress("10.0.0.9:7400"), seed: 5)
        #expect(peer.handshake(with: &e, nowMs: Self.t0, replica: &r))

        // 50 rounds over the same set (a fingerprint that matches): one answer each, empty and
        // no larger than the request.
        let asker = NodeInfo(cell: nil, subscriptions: [NodeInfo.prefix(g.id)])
        let ask = Self.frame(
            ReconcileRound(
                pack: g.id, directory: false, initiator: true, lower: .zero,
                ranges: Reconciliation.initiate(r.opIDs(inPack: g.id)), asker: asker))
        var answers: [[UInt8]] = []
        for _ in 0..<50 {
            let ds = peer.send(ask, to: &e, nowMs: Self.t0, replica: &r)
            answers += HostilePeer.sent(ds, to: peer.address)
        }
        #expect(answers.count == 50)
        let request = peer.seal(ask)
        #expect(answers.allSatisfy { $0.count <= request.count })
        for a in answers {
            let pt = try #require(peer.open(a))
            guard case .reconcile(let rr)? = Message(wire: try WireMessage(serializedBytes: pt)) else {
                Issue.record("not a Reconcile"); continue
            }
            #expect(rr.ranges.isEmpty && !rr.initiator && rr.pack == g.id)
        }

        // "Settled" for a round we never started: no reply, nothing else changes.
        let before = e.stats.datagramsOut
        let unasked = Self.frame(ReconcileRound(pack: g.id, directory: false, initiator: false, lower: .zero, ranges: [], asker: nil))
        for _ in 0..<50 { #expect(HostilePeer.sent(peer.send(unasked, to: &e, nowMs: Self.t0, replica: &r), to: peer.address).isEmpty) }
        #expect(e.stats.datagramsOut == before)
        #expect(e.spread.reconUnanswered.isEmpty)
    }
}
