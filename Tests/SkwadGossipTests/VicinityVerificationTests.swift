import Testing
import SkwadModel
@testable import SkwadGossip

/// Vicinity entries must prove themselves (PROTOCOL §9, "Vicinity"): a peer named with a
/// cell near us (a liar claiming a fence's centre) or one that talks without ever answering
/// an exchange cannot take over the vicinity view. Found on hostile.toml: adversaries claiming
/// the centre of a locked fence filled honest nodes' vicinity views (14 of 15 entries) and
/// every vicinity round went to them, so fence-edge members never found an honest member.
@Suite struct VicinityVerificationTests {
    static let cells = (0..<8).map { i in Geohash.encode(try! GeoPoint(lat: 40.44 + Double(i) * 0.001, lon: -79.94), precision: 7) }

    static func entry(distance: Double, heardMs: UInt64 = 0, exchangedMs: UInt64 = 0) -> VicinityEntry {
        VicinityEntry(info: NodeInfo(cell: cells[0]), distance: distance, lastHeardMs: heardMs, exchangedMs: exchangedMs)
    }

    @Test func namesAloneTakeAtMostAQuarterOfAFullViewFromPeersThatSpoke() {
        var t = PeerTable(config: GossipConfig())
        for i in 0..<16 { t.offerVicinity(PeerAddress("heard\(i)"), Self.entry(distance: 100 + Double(i), heardMs: 5)) }
        for i in 0..<10 { t.offerVicinity(PeerAddress("name\(i)"), Self.entry(distance: 0)) }
        let named = t.vicinity.values.filter { $0.lastHeardMs == 0 }.count
        #expect(named == PeerTable.namedVicinityShare(16) && named == 4)
        #expect(t.vicinity.count == 16)
        // The four farthest heard entries made room; the twelve nearest stay.
        #expect((0..<12).allSatisfy { t.vicinity[PeerAddress("heard\($0)")] != nil })
        // A name at the same distance as the farthest name does not replace it (no churn
        // among equals: a replaced entry loses its pending exchange and its misses).
        t.offerVicinity(PeerAddress("name-equal"), Self.entry(distance: 0))
        #expect(t.vicinity[PeerAddress("name-equal")] == nil)
        // A peer that spoke to us still displaces the farthest entry.
        t.offerVicinity(PeerAddress("heard-near"), Self.entry(distance: 1, heardMs: 9))
        #expect(t.vicinity[PeerAddress("heard-near")] != nil && t.vicinity[PeerAddress("heard11")] == nil)
    }

    @Test func talkingSettlesNoExchangeUntilAPeerHasAnsweredOne() {
        var t = PeerTable(config: GossipConfig())
        var rng = SplitMix(seed: 3)
        let liar = PeerAddress("liar"), friend = PeerAddress("friend")
        var asked = Self.entry(distance: 0, heardMs: 5); asked.askedMs = 10; asked.misses = 1
        t.offerVicinity(liar, asked)
        var known = asked; known.exchangedMs = 4
        t.offerVicinity(friend, known)
        t.heard(liar, nowMs: 20, using: &rng)
        t.heard(friend, nowMs: 20, using: &rng)
        #expect(t.vicinity[liar]?.askedMs == 10 && t.vicinity[liar]?.misses == 1, "a ping or an interest is no answer")
        #expect(t.vicinity[friend]?.askedMs == nil && t.vicinity[friend]?.misses == 0, "a peer that exchanged before is alive")
        #expect(t.vicinity[liar]?.lastHeardMs == 20)
    }

    @Test func aPeerDroppedAsSilentComesBackOnlyByAnsweringItself() {
        var e = GossipEngine(seed: 11, secrets: .seeded)
        e.selfAddress = PeerAddress("me")
        _ = e.setInterest(cell: Self.cells[1], subscriptions: [], nowMs: 1)
        let liar = PeerAddress("liar")
        e.offerVicinity(liar, info: NodeInfo(cell: Self.cells[1]), heard: true, nowMs: 1)
        #expect(e.peers.vicinity[liar] != nil)
        var out: [GossipDirective] = []
        e.forget(liar, .silent, nowMs: 2, into: &out)
        #expect(e.peers.vicinity[liar] == nil && e.peers.muted[liar] != nil)
        e.offerVicinity(liar, info: NodeInfo(cell: Self.cells[1]), heard: false, nowMs: 3)
        e.offerVicinity(liar, info: NodeInfo(cell: Self.cells[1]), heard: true, nowMs: 3)
        #expect(e.peers.vicinity[liar] == nil, "named again, or heard in a ping or a join: still barred")
        #expect(e.vicinitySample(for: NodeInfo.decode(Self.cells[1]), excluding: PeerAddress("x")).isEmpty)
        e.offerVicinity(liar, info: NodeInfo(cell: Self.cells[1]), heard: true, answered: true, nowMs: 4)
        #expect(e.peers.vicinity[liar] != nil && e.peers.muted[liar] == nil, "a Vicinity message of its own lifts the bar")
        // The bar is forgotten with the dead, after `deadForgetMs`.
        e.forget(liar, .unreachable, nowMs: 5, into: &out)
        #expect(e.peers.muted[liar] != nil)
        e.peers.expireDead(nowMs: 5 + e.config.membership.deadForgetMs, forgetMs: e.config.membership.deadForgetMs)
        #expect(e.peers.muted[liar] == nil)
    }

    @Test func aPeerThatTalksButNeverExchangedIsAskedFirstAndGoes() {
        var e = GossipEngine(seed: 12, secrets: .seeded)
        e.selfAddress = PeerAddress("me")
        _ = e.setInterest(cell: Self.cells[0], subscriptions: [], nowMs: 1)
        let friend = PeerAddress("friend"), talker = PeerAddress("talker")
        e.offerVicinity(friend, info: NodeInfo(cell: Self.cells[0]), heard: true, answered: true, nowMs: 1)
        e.offerVicinity(talker, info: NodeInfo(cell: Self.cells[5]), heard: true, nowMs: 1)
        var out: [GossipDirective] = []
        var rng = SplitMix(seed: 1)
        var now: UInt64 = 10
        e.vicinityRound(nowMs: now, into: &out)
        #expect(e.peers.vicinity[talker]?.askedMs == now, "the never-exchanged talker before the nearer friend")
        // It keeps talking (a ping every second), never answers: gone after 3 unanswered asks.
        while now < 20_000 && e.peers.vicinity[talker] != nil {
            now += 1000
            e.peers.heard(talker, nowMs: now, using: &rng)
            e.vicinityRound(nowMs: now, into: &out)
        }
        #expect(e.peers.vicinity[talker] == nil && e.peers.muted[talker] != nil)
        #expect(now <= 3 * e.config.membership.vicinityTimeoutMs + 2000)
    }

    @Test func aMutedMemberIsNotPassedOn() {
        var e = GossipEngine(seed: 13, secrets: .seeded)
        e.selfAddress = PeerAddress("me")
        _ = e.setInterest(cell: Self.cells[0], subscriptions: [], nowMs: 1)
        let member = PeerAddress("member")
        var out: [GossipDirective] = []
        e.addActive(member, info: NodeInfo(cell: Self.cells[1]), nowMs: 1, into: &out)
        #expect(e.vicinitySample(for: NodeInfo.decode(Self.cells[0]), excluding: PeerAddress("x")).map(\.address) == [member])
        e.forget(member, .silent, nowMs: 2, into: &out)
        #expect(e.peers.active[member] != nil, "a silent vicinity entry stays an active member")
        #expect(e.vicinitySample(for: NodeInfo.decode(Self.cells[0]), excluding: PeerAddress("x")).isEmpty)
    }
}
