import Testing
import SkwadModel
@testable import SkwadGossip
import SkwadTestKit

/// Reconciliation asks, among the links that left the fewest of its rounds unanswered, the one
/// that reconciled with it least recently, and one round in 8 any link (PROTOCOL §11): a link
/// that answers pings but drops every reconciliation no longer wastes a node's rounds, and a
/// rim member's one link into the rest of its pack is not left undrawn.
@Suite struct ReconPreferenceTests {
    @Test func aLinkThatLeftRoundsUnansweredIsAskedRarely() {
        var e = GossipEngine(seed: 3, secrets: .seeded)
        var rng = SplitMix(seed: 3)
        let a = PeerAddress("a"), b = PeerAddress("b"), c = PeerAddress("c")
        e.peers[reconMisses: a] = 3
        var picks: [PeerAddress: Int] = [:]
        for _ in 0..<800 { picks[e.peers.preferredLink(among: [a, b, c], draw: .next(&rng))!, default: 0] += 1 }
        // Expected: a ≈ 800 / 8 / 3 ≈ 33, b and c ≈ 383 each; at random each would get ≈ 267.
        #expect((picks[a] ?? 0) < 80, "picks: \(picks)")
        #expect((picks[a] ?? 0) > 5, "a link with misses is still asked now and then: \(picks)")
        #expect((picks[b] ?? 0) > 300 && (picks[c] ?? 0) > 300, "picks: \(picks)")
    }

    @Test func theLinkReconciledWithLeastRecentlyIsAskedFirst() {
        var e = GossipEngine(seed: 4, secrets: .seeded)
        var rng = SplitMix(seed: 4)
        let a = PeerAddress("a"), b = PeerAddress("b"), c = PeerAddress("c")
        e.peers.noteReconciled(a, nowMs: 5_000, capacity: 8)
        e.peers.noteReconciled(b, nowMs: 1_000, capacity: 8)
        e.peers.noteReconciled(c, nowMs: 9_000, capacity: 8)
        var picks: [PeerAddress: Int] = [:]
        for _ in 0..<800 { picks[e.peers.preferredLink(among: [a, b, c], draw: .next(&rng))!, default: 0] += 1 }
        // Expected: b ≈ 700 + 33, a and c ≈ 33 each; drawn at random each would get ≈ 267.
        #expect((picks[b] ?? 0) > 650, "picks: \(picks)")
        #expect((picks[a] ?? 0) > 5 && (picks[c] ?? 0) > 5, "one round in 8 is drawn among all: \(picks)")
        // A link that never reconciled with us comes first; misses still come before age.
        let d = PeerAddress("d")
        #expect((0..<80).filter { _ in e.peers.preferredLink(among: [a, b, c, d], draw: .next(&rng)) == d }.count > 60)
        e.peers[reconMisses: d] = 1
        #expect((0..<80).filter { _ in e.peers.preferredLink(among: [a, b, c, d], draw: .next(&rng)) == b }.count > 60)
    }

    @Test func aRoundsOneDrawSendsItsPacksToOneLinkWithEachPacksOddsKept() {
        var e = GossipEngine(seed: 5, secrets: .seeded)
        let a = PeerAddress("a"), b = PeerAddress("b"), c = PeerAddress("c"), d = PeerAddress("d")
        e.peers.noteReconciled(a, nowMs: 5_000, capacity: 8)
        e.peers.noteReconciled(b, nowMs: 1_000, capacity: 8)
        var picks: [PeerAddress: Int] = [:], oneLink = 0
        var rng = SplitMix(seed: 6)
        for _ in 0..<800 {
            let draw = ReconDraw.next(&rng)
            // Packs held by all four links, by three, by two: one link for all where it can.
            let all = e.peers.preferredLink(among: [a, b, c, d], draw: draw)!
            let three = e.peers.preferredLink(among: [b, c, d], draw: draw)!
            let two = e.peers.preferredLink(among: [c, d], draw: draw)!
            if all == three && three == two { oneLink += 1 }
            picks[all, default: 0] += 1
        }
        // c and d never reconciled with us: tied first, each ≈ 350 + 25; a and b ≈ 25 each.
        #expect((picks[c] ?? 0) > 280 && (picks[d] ?? 0) > 280, "picks: \(picks)")
        #expect((picks[a] ?? 0) > 5 && (picks[b] ?? 0) > 5 && (picks[a] ?? 0) + (picks[b] ?? 0) < 100, "picks: \(picks)")
        #expect(oneLink > 650, "the three packs went to one link in \(oneLink) rounds of 800")
    }

    @Test func aWantOfThePacksGenesisAnswersTheRoundAndClearsTheMisses() throws {
        var h = Harness(count: 2)
        h.start { i in i == 0 ? [] : [0] }
        h.run(ms: 2000)
        var f = OpFactory(seed: 4, nowMs: h.nowMs)
        let pack = f.createPack(by: f.user())
        let peer = Harness.address(1)
        h.nodes[0].engine.spread.reconUnanswered = [ReconAsked(pack: pack.id, peer: peer)]
        h.nodes[0].engine.peers[reconMisses: peer] = 2
        var out: [GossipDirective] = []
        h.nodes[0].engine.onWant(ids: [pack.id.bytes], graft: false, from: peer, nowMs: h.nowMs, replica: h.nodes[0].replica, into: &out)
        #expect(h.nodes[0].engine.spread.reconUnanswered.isEmpty)
        #expect(h.nodes[0].engine.peers.reconMisses[peer] == 0, "answered: no miss, and it took part in reconciliation")
    }
}
