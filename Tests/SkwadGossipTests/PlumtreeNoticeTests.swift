import Foundation
import Testing
import SkwadModel
import SkwadReplica
@testable import SkwadGossip
import SkwadTestKit

/// A link that announced an op to us holds it: it gets neither the op nor an IHAVE of it
/// from us (PROTOCOL §10). In the 10,000-node city, IHAVEs were 35 % of all messages.
@Suite struct PlumtreeNoticeTests {
    /// Three nodes, node 0 with links to 1 and 2, every replica holding one unfenced pack
    /// that every node follows; node 0 treats its link to 1 as lazy. Returns the network and a post not yet sent.
    static func setUp() throws -> (Harness, SignedOp) {
        var h = MembershipAbuseTests.overlay(2)
        var f = OpFactory(seed: 5, nowMs: h.nowMs, floors: false)
        let genesis = f.createPack(by: f.user())
        for i in h.nodes.indices {
            _ = h.nodes[i].replica.admit(genesis, nowMs: h.nowMs)
            h.setInterest(i, cell: nil, subscriptions: [genesis.id])
        }
        h.run(ms: 100)
        let links = h.nodes[0].engine.links.compactMap(Harness.index)
        try #require(links.contains(1) && links.contains(2))
        h.nodes[0].engine.setLazy(Harness.address(1), true)
        return (h, f.post(by: f.user(), in: genesis))
    }

    /// Node 0 handles an IHAVE of `op` from `from`, as its engine does on receipt.
    static func announce(_ op: SignedOp, from: Int, in h: inout Harness) {
        h.nodes[0].engine.onIHave([Array(op.id.bytes.prefix(8))], from: Harness.address(from), nowMs: h.nowMs, replica: h.nodes[0].replica)
    }

    /// Node 0 handles a push of `op` from `from`, as its engine does on receipt.
    static func push(_ op: SignedOp, from: Int, in h: inout Harness) {
        var out: [GossipDirective] = [], replica = h.nodes[0].replica
        h.nodes[0].engine.onOps(
            [op.envelope.serialized()], repair: false, from: Harness.address(from), nowMs: h.nowMs,
            replica: &replica, into: &out)
        h.nodes[0].replica = replica
    }

    static func owed(_ op: SignedOp, to i: Int, _ h: Harness) -> Bool {
        (h.nodes[0].engine.spread.plumtree.queue[Harness.address(i)] ?? []).contains(op.id)
    }

    @Test func anOpAnnouncedByALinkIsNotAnnouncedBackToIt() throws {
        var (h, post) = try Self.setUp()
        Self.announce(post, from: 1, in: &h)
        #expect(h.nodes[0].engine.spread.plumtree.missing[Plumtree.prefix(post.id)] != nil)
        Self.push(post, from: 2, in: &h)
        #expect(h.nodes[0].replica.contains(post.id))
        // Without the rule node 0 owes its lazy link 1 an IHAVE of the post.
        #expect(!Self.owed(post, to: 1, h))
    }

    @Test func anIHaveFromALinkTakesBackTheNoticeWeOweIt() throws {
        var (h, post) = try Self.setUp()
        Self.push(post, from: 2, in: &h)
        #expect(h.nodes[0].replica.contains(post.id))
        #expect(Self.owed(post, to: 1, h))
        Self.announce(post, from: 1, in: &h)
        #expect(!Self.owed(post, to: 1, h))
    }
}
