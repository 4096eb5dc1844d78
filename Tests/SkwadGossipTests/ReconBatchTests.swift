import Testing
import SkwadModel
import SkwadReplica
@testable import SkwadGossip
import SkwadTestKit

/// The pack steps a node opens with one link in one round travel in one `Reconciles`
/// (PROTOCOL §11): in a city most rounds ask one or two links about four packs, and a
/// datagram per step was about a quarter of all the messages a node sent.
@Suite struct ReconBatchTests {
    @Test func aRoundsStepsToOneLinkGoInOneDatagram() throws {
        let fence = Geofence(center: try GeoPoint(lat: 40.44, lon: -79.94), radiusMeters: 500)
        let lab = ReconRoundFixture(seed: 31, fence: fence, locked: false)
        var replica = lab.replica
        var e = GossipEngine(seed: 11, secrets: .seeded)
        let follows = Set(lab.open.map(\.id))
        _ = e.setInterest(cell: nil, subscriptions: follows, nowMs: lab.nowMs)
        var peer = HostilePeer(address: PeerAddress("10.0.0.7:7400"), seed: 12)
        #expect(peer.handshake(with: &e, nowMs: lab.nowMs, replica: &replica))
        // Its first message confirms the session (the responder sends on it only then).
        _ = peer.send(try Message.ping(seq: 1, info: nil).wire.serializedBytes(), to: &e, nowMs: lab.nowMs, replica: &replica)
        let promoted = e.peers.promote(
            peer.address, info: NodeInfo(cell: nil, subscriptions: Set(follows.map(NodeInfo.prefix))), nowMs: lab.nowMs)
        #expect(promoted)
        _ = e.markReconciled(peer.address, nowMs: lab.nowMs)

        for k in 0..<2 {
            var out: [GossipDirective] = []
            e.reconcileRound(nowMs: lab.nowMs + UInt64(k) * 1000, replica: replica, into: &out)
            e.finish(nowMs: lab.nowMs + UInt64(k) * 1000, into: &out)
            let sent = HostilePeer.sent(out, to: peer.address)
            #expect(sent.count == 1, "round \(k): one datagram")
            let pt = try #require(sent.first.flatMap { peer.open($0) })
            guard case .reconciles(let steps)? = Message(wire: try WireMessage(serializedBytes: pt)) else {
                Issue.record("round \(k): not a Reconciles"); continue
            }
            #expect(steps.count == e.config.spread.reconPacksPerRound && steps.allSatisfy { $0.initiator })
            let asked = Set(e.spread.reconUnanswered.filter { $0.peer == peer.address }.map(\.pack))
            #expect(Set(steps.compactMap(\.pack)) == asked, "each step awaits its answer")
            #expect(Set(steps.compactMap(\.pack)).isSubset(of: follows))
        }
    }
}
