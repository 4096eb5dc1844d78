import Testing
import SkwadCrypto
import SkwadReplica
@testable import SkwadGossip
import SkwadTestKit

/// Reflexive addresses (PROTOCOL §9, "Reflexive addresses"; SECURITY.md): what links say they
/// see us as (`Observed`) is believed only when links in two network groups, and a majority of
/// the groups reporting, agree; an engine tells each new member how it sees it.
@Suite struct ReflexiveTests {
    static let t0: UInt64 = 1_790_000_000_000

    static func join() -> [UInt8] {
        var m = WireMessage(); m.join = Skwad_Gossip_V1_Join()
        return try! m.serializedBytes()
    }

    static func ack(observed: String) -> [UInt8] {
        var m = WireMessage(); var o = Skwad_Gossip_V1_Observed(); o.address = observed; m.observed = o
        return try! m.serializedBytes()
    }

    /// An engine and `n` peers at `addresses` that joined it (active members: links).
    static func engineWithLinks(_ addresses: [String]) -> (GossipEngine, Replica, [HostilePeer]) {
        var (e, r, ps) = HostileFixture.engine(seed: 3, peers: addresses, nowMs: t0)
        for i in ps.indices { _ = ps[i].send(join(), to: &e, nowMs: t0, replica: &r) }
        return (e, r, ps)
    }

    @Test func oneWitnessIsNotBelieved() {
        var (e, r, ps) = Self.engineWithLinks(["198.18.0.10:7400"])
        _ = ps[0].send(Self.ack(observed: "198.51.100.7:40000"), to: &e, nowMs: Self.t0, replica: &r)
        #expect(e.reflexiveWitnesses == 1)
        #expect(e.reflexiveAddresses.isEmpty)
    }

    @Test func twoNetworkGroupsAgreeingConfirmIt() {
        var (e, r, ps) = Self.engineWithLinks(["198.18.0.10:7400", "198.19.0.10:7400"])
        for i in ps.indices { _ = ps[i].send(Self.ack(observed: "198.51.100.7:40000"), to: &e, nowMs: Self.t0, replica: &r) }
        #expect(e.reflexiveAddresses == [PeerAddress("198.51.100.7:40000")])
    }

    /// A liar with many ports in one /24 is one witness: it cannot confirm its own claim.
    @Test func manyPortsOfOneNetworkGroupAreOneWitness() {
        var (e, r, ps) = Self.engineWithLinks((1...4).map { "203.0.113.66:\(7400 + $0)" })
        for i in ps.indices { _ = ps[i].send(Self.ack(observed: "203.0.113.66:1"), to: &e, nowMs: Self.t0, replica: &r) }
        #expect(e.reflexiveWitnesses == 4)
        #expect(e.reflexiveAddresses.isEmpty)
    }

    /// Behind a symmetric NAT every witness sees another port: nothing is confirmed. And a
    /// minority cannot add an address the majority does not see.
    @Test func disagreementConfirmsNothingAndAMinorityLoses() {
        var (e, r, ps) = Self.engineWithLinks(["198.18.0.10:7400", "198.19.0.10:7400", "198.20.0.10:7400"])
        for i in ps.indices { _ = ps[i].send(Self.ack(observed: "198.51.100.7:\(40000 + i)"), to: &e, nowMs: Self.t0, replica: &r) }
        #expect(e.reflexiveAddresses.isEmpty)
        var (e2, r2, qs) = Self.engineWithLinks(["198.18.0.10:7400", "198.19.0.10:7400", "198.20.0.10:7400", "198.21.0.10:7400"])
        for (i, o) in ["198.51.100.7:1", "198.51.100.7:1", "6.6.6.6:6", "6.6.6.6:6"].enumerated() {
            _ = qs[i].send(Self.ack(observed: o), to: &e2, nowMs: Self.t0, replica: &r2)
        }
        #expect(e2.reflexiveAddresses.isEmpty, "two against two: no majority")
    }

    /// Only links are heard, only canonical addresses kept, and the witnesses are bounded.
    @Test func strangersAndBadAddressesAreIgnoredAndWitnessesBounded() {
        var e = GossipEngine(seed: 3, secrets: .seeded)
        e.addressFilter = { $0.isCanonical }
        var r = Replica()
        _ = e.start(seeds: [], nowMs: Self.t0)
        var stranger = HostilePeer(address: PeerAddress("198.18.0.10:7400"), seed: 1)
        #expect(stranger.handshake(with: &e, nowMs: Self.t0, replica: &r))
        _ = stranger.send(Self.ack(observed: "198.51.100.7:1"), to: &e, nowMs: Self.t0, replica: &r)
        #expect(e.reflexiveWitnesses == 0)
        var (e2, r2, ps) = Self.engineWithLinks(["198.18.0.10:7400"])
        _ = ps[0].send(Self.ack(observed: "example.com:80"), to: &e2, nowMs: Self.t0, replica: &r2)
        _ = ps[0].send(Self.ack(observed: String(repeating: "9", count: 200)), to: &e2, nowMs: Self.t0, replica: &r2)
        #expect(e2.reflexiveWitnesses == 0)
        var table = ReflexiveAddresses()
        for i in 0..<100 { table.record(PeerAddress("1.2.3.4:5"), by: PeerAddress("10.\(i).0.1:7400"), nowMs: UInt64(i)) }
        #expect(table.reports.count == ReflexiveAddresses.capacity)
    }

    /// A joiner is told how we see it, in the accepting `NeighborReply`.
    @Test func aNewMemberIsToldItsAddress() {
        var e = GossipEngine(seed: 3, secrets: .seeded)
        e.addressFilter = { $0.isCanonical }
        var r = Replica()
        _ = e.start(seeds: [], nowMs: Self.t0)
        var p = HostilePeer(address: PeerAddress("198.18.0.10:7400"), seed: 1)
        #expect(p.handshake(with: &e, nowMs: Self.t0, replica: &r))
        var told: [String] = []
        for frame in HostilePeer.sent(p.send(Self.join(), to: &e, nowMs: Self.t0, replica: &r), to: p.address) {
            guard let pt = p.open(frame), let m = try? WireMessage(serializedBytes: pt), case .neighborReply(let o)? = m.body else {
                continue
            }
            told.append(o.observed)
        }
        #expect(told == ["198.18.0.10:7400"])
    }
}

/// Reflexive addresses among real engines (the in-memory network): every member is told how
/// each of its members sees it.
@Suite struct ReflexiveNetworkTests {
    @Test func everyNodeLearnsHowEachMemberSeesIt() {
        var h = Harness(count: 3)
        for i in 0..<3 { h.apply(i, h.nodes[i].engine.start(seeds: i == 0 ? [] : [Harness.address(0)], nowMs: h.nowMs)) }
        h.run(ms: 20_000)
        for i in 0..<3 {
            let e = h.nodes[i].engine
            #expect(e.activePeers.count == 2)
            #expect(e.reflexiveWitnesses == e.activePeers.count, "node \(i)")
        }
    }
}
