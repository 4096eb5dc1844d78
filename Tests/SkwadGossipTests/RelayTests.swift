import Foundation
import Testing
import SkwadCrypto
import SkwadModel
import SkwadReplica
@testable import SkwadGossip
import SkwadTestKit

/// Relays (PROTOCOL §9 "Relays"; SECURITY.md "Relays").
@Suite struct RelayTests {
    static let pack = try! PackID(bytes: [UInt8](repeating: 3, count: 32))

    /// Three engines: n0 public, n1 and n2 behind NATs that never let a datagram between
    /// them through (symmetric NATs: a punch fails). n0 introduces them, the punch fails, and
    /// they link through n0, which passes frames it cannot read.
    static func symmetricPair() -> Harness {
        var h = Harness(count: 3)
        for i in 1...2 { h.nodes[i].engine.localAddresses = [PeerAddress("192.168.\(i).2:7400")] }
        h.filter = { from, to, _ in (from == 1 && to == 2) || (from == 2 && to == 1) }
        for i in 0..<3 { h.apply(i, h.nodes[i].engine.start(seeds: i == 0 ? [] : [Harness.address(0)], nowMs: h.nowMs)) }
        h.run(ms: 3_000)
        for i in 1...2 { h.setInterest(i, cell: nil, subscriptions: [pack]) }
        return h
    }

    @Test func aFailedPunchFallsBackOnTheIntroducerAsRelay() {
        var h = Self.symmetricPair()
        h.run(ms: 20_000)
        let a = h.nodes[1].engine, b = h.nodes[2].engine
        let viaA = PeerAddress.relayed(Harness.address(2), via: Harness.address(0))
        let viaB = PeerAddress.relayed(Harness.address(1), via: Harness.address(0))
        #expect(a.activePeers.contains(viaA), "\(a.activePeers) \(a.stats.drops) \(a.stats.messagesSent)")
        #expect(b.activePeers.contains(viaB), "\(b.activePeers) \(b.stats.drops) \(b.stats.messagesSent)")
        h.run(ms: 60_000)
        #expect(h.nodes[1].engine.activePeers.contains(viaA), "still linked after a minute")
        #expect(h.nodes[0].engine.stats.relayedBytes > 0)
        for i in 0..<3 { #expect(h.nodes[i].engine.stats.drops["tooLarge"] == nil, "node \(i)") }
    }

    /// A relayed peer's messages are packed smaller: wrapped in a `Relay`, the largest still fits
    /// the relay's own frame.
    @Test func theLargestMessageToARelayedPeerFitsTheRelaysFrame() throws {
        let target = PeerAddress("198.18.4.1:65000"), relay = PeerAddress("198.18.0.10:7400")
        let relayed = PeerAddress.relayed(target, via: relay)
        let frame = [UInt8](repeating: 1, count: relayed.maxPlaintext + Frame.dataHeader + AEAD.tagCount)
        let wrapped: [UInt8] = try Message.relay(to: PeerAddress(String(repeating: "1", count: 64)), frame: frame).wire.serializedBytes()
        #expect(wrapped.count <= Frame.maxPlaintext)
        #expect(relay.maxPlaintext == Frame.maxPlaintext)
    }

    static let t0: UInt64 = 1_790_000_000_000

    static func relay(to: String, frame: Int) -> [UInt8] {
        var m = WireMessage(); var r = Skwad_Gossip_V1_Relay(); r.to = to; r.frame = Data(count: frame); m.relay = r
        return try! m.serializedBytes()
    }

    static func join() -> [UInt8] {
        var m = WireMessage(); m.join = Skwad_Gossip_V1_Join()
        return try! m.serializedBytes()
    }

    /// A relay with members m (198.18.1.1) and t (198.18.2.1), and a stranger s with a session.
    static func relayWithMembers() -> (GossipEngine, Replica, HostilePeer, HostilePeer, HostilePeer) {
        var e = GossipEngine(seed: 5, secrets: .seeded)
        e.addressFilter = { $0.isCanonical }
        var r = Replica()
        _ = e.start(seeds: [], nowMs: t0)
        var m = HostilePeer(address: PeerAddress("198.18.1.1:5000"), seed: 1)
        var t = HostilePeer(address: PeerAddress("198.18.2.1:5000"), seed: 2)
        var s = HostilePeer(address: PeerAddress("198.18.3.1:5000"), seed: 3)
        #expect(m.handshake(with: &e, nowMs: t0, replica: &r) && t.handshake(with: &e, nowMs: t0, replica: &r))
        #expect(s.handshake(with: &e, nowMs: t0, replica: &r))
        _ = m.send(join(), to: &e, nowMs: t0, replica: &r)
        _ = t.send(join(), to: &e, nowMs: t0, replica: &r)
        return (e, r, m, t, s)
    }

    /// A member pouring relay requests: what reaches the other member is what it sent, no
    /// more (no amplification), and within the per-source budget (32 KB burst, then 4 KB/s).
    @Test func aRelayFloodIsCutToTheBudgetAndNeverAmplified() {
        var (e, r, m, t, _) = Self.relayWithMembers()
        var bytesIn = 0, bytesOut = 0
        for i in 0..<200 {
            let frame = m.seal(Self.relay(to: t.address.value, frame: 1000))
            bytesIn += frame.count
            let ds = e.receive(datagram: frame, from: m.address, nowMs: Self.t0 + UInt64(i), replica: &r)
            bytesOut += HostilePeer.sent(ds, to: t.address).reduce(0) { $0 + $1.count }
        }
        #expect(bytesOut <= bytesIn, "\(bytesOut) out for \(bytesIn) in")
        #expect(e.stats.relayedBytes <= Int(RelayState.perSourceBytesPerSecond * 8) + 1000, "\(e.stats.relayedBytes)")
        #expect(e.stats.drops["relayLimited", default: 0] >= 160)
    }

    /// A stranger, a member naming a non-member, a member naming itself: nothing is passed on.
    @Test func onlyFramesBetweenTwoMembersArePassedOn() {
        var (e, r, m, t, s) = Self.relayWithMembers()
        var sends = 0
        func count(_ ds: [GossipDirective]) { sends += ds.filter { if case .send = $0 { true } else { false } }.count }
        count(s.send(Self.relay(to: t.address.value, frame: 100), to: &e, nowMs: Self.t0, replica: &r))
        count(m.send(Self.relay(to: "198.51.100.1:4444", frame: 100), to: &e, nowMs: Self.t0, replica: &r))
        count(m.send(Self.relay(to: m.address.value, frame: 100), to: &e, nowMs: Self.t0, replica: &r))
        count(m.send(Self.relay(to: t.address.value + "@" + m.address.value, frame: 100), to: &e, nowMs: Self.t0, replica: &r))
        #expect(sends == 0)
        #expect(e.stats.drops["relayRefused"] == 3 && e.stats.drops["malformedMessage"] == 1)
        #expect(e.stats.relayedBytes == 0)
    }
}
