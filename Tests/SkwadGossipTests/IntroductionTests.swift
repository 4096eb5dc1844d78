import SkwadTestTraits
import Foundation
import Testing
import SkwadCrypto
import SkwadReplica
@testable import SkwadGossip
import SkwadTestKit

/// Introductions and hole punching (PROTOCOL §9 "Introductions"; SECURITY.md "Introductions"),
/// each driven by `HostilePeer`s against a real engine: who may introduce, what an
/// introduction makes a node send to an address nobody proved (never more than 3x the
/// introduction's own size), floods, and who gets introduced.
@Suite(.heavy) struct IntroductionTests {
    static let t0: UInt64 = 1_790_000_000_000
    static let victim = PeerAddress("198.51.100.9:4444")

    static func join(behindNat: Bool = false, packs: [[UInt8]] = []) -> [UInt8] {
        var m = WireMessage(); var j = Skwad_Gossip_V1_Join()
        j.info.behindNat = behindNat; j.info.subscriptions = packs.map { Data($0) }
        m.join = j
        return try! m.serializedBytes()
    }

    static func introduce(_ peer: PeerAddress, padding: Int = IntroductionState.minPadding) -> [UInt8] {
        var m = WireMessage(); var i = Skwad_Gossip_V1_Introduce()
        i.peer = peer.value; i.padding = Data(count: padding)
        m.introduce = i
        return try! m.serializedBytes()
    }

    /// An engine at 10.9.9.9 and a peer at 198.18.0.10 that joined it (`member`) or only
    /// shook hands (a stranger).
    static func engine(member: Bool) -> (GossipEngine, Replica, HostilePeer) {
        var e = GossipEngine(seed: 5, secrets: .seeded)
        e.addressFilter = { $0.isCanonical }
        e.selfAddress = PeerAddress("10.9.9.9:7400")
        var r = Replica()
        _ = e.start(seeds: [], nowMs: t0)
        var p = HostilePeer(address: PeerAddress("198.18.0.10:7400"), seed: 1)
        #expect(p.handshake(with: &e, nowMs: t0, replica: &r))
        if member { _ = p.send(join(), to: &e, nowMs: t0, replica: &r) }
        return (e, r, p)
    }

    /// Bytes the engine sends to `to` over `ms` of ticks after `first`.
    static func bytes(to: PeerAddress, first: [GossipDirective], e: inout GossipEngine, r: inout Replica, ms: UInt64) -> Int {
        var total = HostilePeer.sent(first, to: to).reduce(0) { $0 + $1.count }
        var now = t0
        while now < t0 + ms {
            now += 100
            total += HostilePeer.sent(e.tick(nowMs: now, replica: &r), to: to).reduce(0) { $0 + $1.count }
        }
        return total
    }

    @Test func anIntroductionFromAMemberPunchesOnceAndAtMostThreeTimesItsSize() {
        var (e, r, p) = Self.engine(member: true)
        let frame = p.seal(Self.introduce(Self.victim))
        let ds = e.receive(datagram: frame, from: p.address, nowMs: Self.t0, replica: &r)
        #expect(HostilePeer.sent(ds, to: Self.victim).count == 1, "one HELLO at once")
        #expect(e.stats.punches == 1)
        // The same address again within the minute: nothing more.
        let again = e.receive(datagram: p.seal(Self.introduce(Self.victim)), from: p.address, nowMs: Self.t0 + 10, replica: &r)
        #expect(HostilePeer.sent(again, to: Self.victim).isEmpty)
        #expect(e.stats.drops["introductionLimited"] == 1)
        // The HELLO's retries until the engine gives up: at most 3x the one introduction.
        let sent = Self.bytes(to: Self.victim, first: ds, e: &e, r: &r, ms: 10_000)
        #expect(sent > 0 && sent <= 3 * frame.count, "\(sent) bytes to the unproven address for a \(frame.count)-byte introduction")
    }

    @Test func aStrangersIntroductionSendsNothing() {
        var (e, r, p) = Self.engine(member: false)
        let ds = p.send(Self.introduce(Self.victim), to: &e, nowMs: Self.t0, replica: &r)
        #expect(HostilePeer.sent(ds, to: Self.victim).isEmpty)
        #expect(e.stats.drops["notAMember"] == 1 && e.stats.punches == 0)
    }

    @Test func anUnpaddedIntroductionSendsNothing() {
        var (e, r, p) = Self.engine(member: true)
        let ds = p.send(Self.introduce(Self.victim, padding: 16), to: &e, nowMs: Self.t0, replica: &r)
        #expect(HostilePeer.sent(ds, to: Self.victim).isEmpty)
        #expect(e.stats.drops["amplification"] == 1 && e.stats.punches == 0)
    }

    /// Ourselves, the introducer, a name: nothing.
    @Test func introductionsNamingUsTheIntroducerOrANameSendNothing() {
        var (e, r, p) = Self.engine(member: true)
        var sends = 0
        for target in ["10.9.9.9:7400", "198.18.0.10:7400", "example.com:80"] {
            let ds = p.send(Self.introduce(PeerAddress(target)), to: &e, nowMs: Self.t0, replica: &r)
            sends += ds.filter { if case .send = $0 { true } else { false } }.count
        }
        #expect(sends == 0 && e.stats.punches == 0)
    }

    /// A member pouring introductions naming many addresses: the handshakes they cause stay
    /// within the budget for addresses learnt from others (burst 100, then 20/s), and the
    /// table of addresses punched toward within its capacity.
    @Test func aFloodOfIntroductionsIsBounded() {
        var (e, r, p) = Self.engine(member: true)
        var hellos = 0
        for i in 0..<300 {
            let target = PeerAddress("198.51.\(i / 250).\(i % 250 + 1):4444")
            let ds = p.send(Self.introduce(target), to: &e, nowMs: Self.t0, replica: &r)
            hellos += HostilePeer.sent(ds, to: target).count
        }
        #expect(hellos <= 100, "\(hellos)")
        #expect(e.stats.drops["introductionLimited", default: 0] >= 200)
        for i in 0..<2000 {
            let target = PeerAddress("203.0.\(i / 250).\(i % 250 + 1):4444")
            _ = p.send(Self.introduce(target), to: &e, nowMs: Self.t0 + 1000 + UInt64(i) * 50, replica: &r)
        }
        #expect(e.reach.introductions.punched.count <= IntroductionState.capacity)
    }

    /// The introducer's side: two members that say they are behind a NAT and share a pack are
    /// introduced to each other, once; a member not behind a NAT, or sharing nothing, is not.
    @Test func twoMembersBehindNatsSharingAPackAreIntroducedOnce() {
        var e = GossipEngine(seed: 5, secrets: .seeded)
        e.addressFilter = { $0.isCanonical }
        var r = Replica()
        _ = e.start(seeds: [], nowMs: Self.t0)
        let pack: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]
        var a = HostilePeer(address: PeerAddress("198.18.1.1:5000"), seed: 1)
        var b = HostilePeer(address: PeerAddress("198.18.2.1:5000"), seed: 2)
        var c = HostilePeer(address: PeerAddress("198.18.3.1:5000"), seed: 3)
        var d = HostilePeer(address: PeerAddress("198.18.4.1:5000"), seed: 4)
        for i in [0, 1, 2, 3] {
            var peer = [a, b, c, d][i]
            #expect(peer.handshake(with: &e, nowMs: Self.t0, replica: &r))
            switch i {
            case 0: a = peer;
            case 1: b = peer;
            case 2: c = peer;
            default: d = peer
            }
        }
        func introduced(_ p: HostilePeer, _ ds: [GossipDirective]) -> [String] {
            HostilePeer.sent(ds, to: p.address).flatMap { p.messages(in: $0) }.compactMap { pt in
                guard let m = try? WireMessage(serializedBytes: pt), case .introduce(let i)? = m.body else {
                    return nil
                }
                return i.peer
            }
        }
        _ = a.send(Self.join(behindNat: true, packs: [pack]), to: &e, nowMs: Self.t0, replica: &r)
        _ = c.send(Self.join(behindNat: false, packs: [pack]), to: &e, nowMs: Self.t0, replica: &r)
        _ = d.send(Self.join(behindNat: true, packs: [[9, 9, 9, 9, 9, 9, 9, 9]]), to: &e, nowMs: Self.t0, replica: &r)
        #expect(e.stats.introductionsSent == 0, "c is not behind a NAT, d shares nothing")
        let ds = b.send(Self.join(behindNat: true, packs: [pack]), to: &e, nowMs: Self.t0, replica: &r)
        #expect(introduced(b, ds) == [a.address.value])
        #expect(introduced(a, ds) == [b.address.value])
        #expect(introduced(c, ds).isEmpty && introduced(d, ds).isEmpty)
        // b says it again (an Interest): not introduced again within the minute.
        var m = WireMessage(); var info = Skwad_Gossip_V1_NodeInfo(); info.behindNat = true
        info.subscriptions = [Data(pack), Data([7, 7, 7, 7, 7, 7, 7, 7])]; m.interest = info
        let again = b.send(try! m.serializedBytes(), to: &e, nowMs: Self.t0 + 1000, replica: &r)
        #expect(introduced(a, again).isEmpty && introduced(b, again).isEmpty)
        #expect(e.stats.introductionsSent == 2)
    }
}
