import Testing
import SkwadModel
import SkwadReplica
@testable import SkwadGossip
import SkwadTestKit

/// The "settled" answer of reconciliation (PROTOCOL §11): an initiator whose set matches ours
/// gets one empty `Reconcile`, never more bytes than it sent, and a `Reconcile` that claims
/// to answer a round we never started is answered with nothing. A `Reconciles` batch is
/// answered step by step in one batch, and one longer than `Message.maxBatched` is dropped.
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

    @Test func aBatchIsAnsweredStepByStepInOneDatagramAndAnOverlongOneIsDropped() throws {
        var e = GossipEngine(config: GossipConfig(), seed: 6, secrets: .seeded)
        var r = Replica(config: .noFloors)
        var f = OpFactory(seed: 7, nowMs: Self.t0, floors: false)
        let alpha = f.user()
        let open = (0..<7).map { f.createPack(by: alpha, name: "open\($0)") }
        let fence = Geofence(center: try GeoPoint(lat: 40.44, lon: -79.94), radiusMeters: 500)
        let locked = f.createPack(by: alpha, name: "lab", fence: fence, locked: true)
        for g in open + [locked] { #expect(r.admit(g, nowMs: Self.t0) == .admitted([g])) }
        var peer = HostilePeer(address: PeerAddress("10.0.0.9:7400"), seed: 8)
        #expect(peer.handshake(with: &e, nowMs: Self.t0, replica: &r))

        // 7 open packs the asker subscribes to, and a locked one it claims no cell for.
        let steps = (open + [locked]).map { g in
            ReconcileRound(
                pack: g.id, directory: false, initiator: true, lower: .zero, ranges: Reconciliation.initiate(r.opIDs(inPack: g.id)),
                asker: NodeInfo(cell: nil, subscriptions: [NodeInfo.prefix(g.id)]))
        }
        let ask: [UInt8] = try Message.reconciles(steps).wire.serializedBytes()
        let answers = HostilePeer.sent(peer.send(ask, to: &e, nowMs: Self.t0, replica: &r), to: peer.address)
        #expect(answers.count == 1, "one datagram answers the batch")
        #expect(answers.allSatisfy { $0.count <= peer.seal(ask).count })
        let pt = try #require(answers.first.flatMap { peer.open($0) })
        guard case .reconciles(let settled)? = Message(wire: try WireMessage(serializedBytes: pt)) else {
            Issue.record("not a Reconciles"); return
        }
        #expect(Set(settled.compactMap(\.pack)) == Set(open.map(\.id)), "settled, each open pack; the locked one unanswered")
        #expect(settled.allSatisfy { $0.ranges.isEmpty && !$0.initiator })

        // One step more than a batch may hold: dropped whole, counted, unanswered.
        var wire = Skwad_Gossip_V1_Reconciles()
        wire.rounds = (0...Message.maxBatched).map { k in
            ReconcileRound(pack: open[k % open.count].id, directory: false, initiator: true, lower: .zero, ranges: [], asker: nil).wire
        }
        var m = WireMessage(); m.reconciles = wire
        let malformed = e.stats.drops[DropReason.malformedMessage.rawValue] ?? 0
        #expect(HostilePeer.sent(peer.send(try m.serializedBytes(), to: &e, nowMs: Self.t0, replica: &r), to: peer.address).isEmpty)
        #expect(e.stats.drops[DropReason.malformedMessage.rawValue] == malformed + 1)
    }
}
