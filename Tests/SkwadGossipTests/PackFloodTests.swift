import Testing
import SkwadCrypto
import SkwadModel
import SkwadReplica
@testable import SkwadGossip
import SkwadTestKit

/// Issue 24, finding 3, on the wire: eight hostile peers in eight /24s flood a node with 1,000
/// stamped geneses; an honest pack sent afterwards by a peer of another network is admitted
/// and listed at once (PROTOCOL §4 rule 5: the quota is shared per network group, and the
/// engine names the group of the sender).
@Suite struct PackFloodTests {
    static let t0: UInt64 = 1_790_000_000_000

    @Test func eightNetworksOfFloodLeaveRoomForAnHonestPack() {
        var f = OpFactory(seed: 2412, nowMs: Self.t0, floors: false)
        var e = GossipEngine(config: GossipConfig(), seed: 5, secrets: .seeded)
        e.addressFilter = { $0.isCanonical }
        var r = Replica(config: .noFloors)
        let mallory = f.user()
        for g in 0..<8 {
            var peer = HostilePeer(address: PeerAddress("10.\(g + 1).0.9:7400"), seed: UInt64(100 + g))
            #expect(peer.handshake(with: &e, nowMs: f.nowMs, replica: &r))
            let geneses = (0..<125).map { i in f.createPack(by: mallory, name: "spam\(g)-\(i)").envelope.serialized() }
            for chunk in stride(from: 0, to: geneses.count, by: 5) {
                _ = peer.send(WireForge.ops(Array(geneses[chunk..<min(chunk + 5, geneses.count)])), to: &e, nowMs: f.nowMs, replica: &r)
            }
        }
        #expect(r.remotePackCount == ReplicaConfig.defaultMaxRemotePacks)
        let before = e.stats.opsRejected[Rejection.tooManyPacks.rawValue] ?? 0
        var honest = HostilePeer(address: PeerAddress("192.168.7.20:7400"), seed: 7)
        #expect(honest.handshake(with: &e, nowMs: f.nowMs, replica: &r))
        let pack = f.createPack(by: f.user(), name: "study group")
        _ = honest.send(WireForge.ops([pack.envelope.serialized()]), to: &e, nowMs: f.nowMs, replica: &r)
        #expect(r.packs(nowMs: f.nowMs).contains { $0.id == pack.id })
        #expect((e.stats.opsRejected[Rejection.tooManyPacks.rawValue] ?? 0) == before)
        // A ninth flood network gets no more room than the honest one had.
        var late = HostilePeer(address: PeerAddress("10.99.0.9:7400"), seed: 9)
        #expect(late.handshake(with: &e, nowMs: f.nowMs, replica: &r))
        for _ in 0..<10 {
            let spam = (0..<5).map { i in f.createPack(by: mallory, name: "late\(i)").envelope.serialized() }
            _ = late.send(WireForge.ops(spam), to: &e, nowMs: f.nowMs, replica: &r)
        }
        #expect(r.isLive(pack.id, nowMs: f.nowMs))
        #expect((r.remotePacksBySource["10.99.0"] ?? 0) <= 125)
    }
}
