import Testing
import SkwadReplica
@testable import SkwadGossip
import SkwadTestKit

/// What one engine call sends to a peer goes out several messages to a datagram (PROTOCOL §8
/// "Bundles", MessageBundle.swift): in order, per peer, within 1,200 bytes and 16 messages.
@Suite struct BundleTests {
    static let t0 = HostileFixture.t0

    /// An engine and hostile peers with established sessions.
    static func linked(_ count: Int) -> (GossipEngine, Replica, [HostilePeer]) {
        var (e, r, ps) = HostileFixture.engine(peers: HostileFixture.addresses(count))
        // A DATA frame from each proves its address: no anti-amplification budget holds our frames back.
        for i in ps.indices { _ = ps[i].send(HostilePeerTests.ping(1), to: &e, nowMs: t0, replica: &r) }
        return (e, r, ps)
    }

    /// Sends `messages` in one call of the engine's: what it hands out at the end.
    static func call(_ e: inout GossipEngine, _ messages: [(Message, PeerAddress)]) -> [GossipDirective] {
        var out: [GossipDirective] = []
        for (m, to) in messages { e.send(m, to: to, nowMs: t0, into: &out) }
        e.finish(nowMs: t0, into: &out)
        return out
    }

    /// The messages `p` reads in each datagram sent to it.
    static func datagrams(_ ds: [GossipDirective], to p: HostilePeer) -> [[WireMessage]] {
        HostilePeer.sent(ds, to: p.address).map { frame in
            WireForge.messages(p.open(frame) ?? []).compactMap { try? WireMessage(serializedBytes: $0) }
        }
    }

    static func seqs(_ ms: [WireMessage]) -> [UInt64] { ms.compactMap { if case .ping(let p)? = $0.body { p.seq } else { nil } } }

    @Test func twoMessagesToOnePeerInOneCallGoAsOneDatagram() {
        var (e, _, p) = Self.linked(1)
        let ds = Self.call(&e, [(.ping(seq: 7, info: nil), p[0].address), (.ping(seq: 8, info: nil), p[0].address)])
        let got = Self.datagrams(ds, to: p[0])
        #expect(got.count == 1 && Self.seqs(got[0]) == [7, 8])
        #expect(e.stats.messagesSent["bundle"] == 1 && e.stats.messagesSent["ping"] == 2)
        // One message alone goes as itself.
        let alone = Self.call(&e, [(.ping(seq: 9, info: nil), p[0].address)])
        #expect(Self.datagrams(alone, to: p[0]).map(Self.seqs) == [[9]] && e.stats.messagesSent["bundle"] == 1)
    }

    /// Per peer, in the order each was first sent to; each peer's messages in the order sent.
    @Test func bundlesKeepEachPeersOrder() {
        var (e, _, p) = Self.linked(2)
        let a = p[0].address, b = p[1].address
        let ds = Self.call(&e, [(.ping(seq: 1, info: nil), a), (.ping(seq: 2, info: nil), b), (.ping(seq: 3, info: nil), a)])
        #expect(Self.datagrams(ds, to: p[0]).map(Self.seqs) == [[1, 3]])
        #expect(Self.datagrams(ds, to: p[1]).map(Self.seqs) == [[2]])
        let order = ds.compactMap { if case .send(_, let to) = $0 { to } else { nil } }
        #expect(order == [a, b])
    }

    /// What does not fit in one datagram of 1,200 bytes goes in the next, in order.
    @Test func aBundleOverADatagramSplits() {
        var (e, _, p) = Self.linked(1)
        let root = [UInt8](repeating: 1, count: 32)
        let blocks = (0..<3).map { (Message.block(root: root, index: $0, data: [UInt8](repeating: 2, count: 500)), p[0].address) }
        let ds = Self.call(&e, blocks)
        let indexes = Self.datagrams(ds, to: p[0]).map { ms in ms.compactMap { if case .block(let b)? = $0.body { b.index } else { nil } } }
        #expect(indexes == [[0, 1], [2]])
        #expect(HostilePeer.sent(ds, to: p[0].address).allSatisfy { $0.count <= 1200 })
    }

    /// At most 16 messages to a bundle.
    @Test func aBundleHoldsAtMostSixteenMessages() {
        var (e, _, p) = Self.linked(1)
        let ds = Self.call(&e, (0..<20).map { (.ping(seq: UInt64($0), info: nil), p[0].address) })
        #expect(Self.datagrams(ds, to: p[0]).map(Self.seqs) == [Array(0..<16), Array(16..<20)])
    }

    /// Two engines: what one sends in a bundle the other handles message by message.
    @Test func enginesUnderstandEachOthersBundles() {
        var h = Harness(count: 2)
        h.start { i in i == 0 ? [] : [0] }
        h.run(ms: 2000)
        #expect(h.nodes[0].engine.activePeers == [Harness.address(1)])
        let before = h.nodes[0].engine.stats.drops
        let to = Harness.address(0)
        let ds = Self.call(&h.nodes[1].engine, [(.ping(seq: 41, info: nil), to), (.ping(seq: 42, info: nil), to)])
        #expect(ds.filter { if case .send = $0 { true } else { false } }.count == 1)
        h.apply(1, ds)
        let acksBefore = h.nodes[0].engine.stats.messagesSent["ack"] ?? 0
        h.run(ms: 50)
        #expect((h.nodes[0].engine.stats.messagesSent["ack"] ?? 0) - acksBefore >= 2)
        #expect(h.nodes[0].engine.stats.drops == before)
    }
}
