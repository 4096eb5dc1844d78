import Testing
import SkwadCrypto
import SkwadModel
import SkwadReplica
@testable import SkwadGossip
import SkwadTestKit

/// Invite-only packs under attack, each pushed by a `HostilePeer` through a real session into
/// a real engine and replica (SECURITY.md "Invite-only packs"), and kept out of the directory.
@Suite struct PrivatePackAttackTests {
    static let t0: UInt64 = 1_790_000_000_000
    static let k0 = [UInt8](repeating: 7, count: 32), k1 = [UInt8](repeating: 9, count: 32)
    static let here = try! GeoPoint(lat: 40.4433, lon: -79.9436)
    static let cell = Geohash.encode(here, precision: 7)

    /// An engine and a member's replica (holding `keys`), and a hostile peer with a session to it.
    struct Target {
        var e = GossipEngine(seed: 26, secrets: .seeded)
        var r = Replica(config: .noFloors)
        var peer = HostilePeer(address: PeerAddress("10.0.0.26:7000"), seed: 26)
        var nowMs = PrivatePackAttackTests.t0

        init(_ setup: [SignedOp], keys: [(UInt32, [UInt8])], pack: PackID) {
            #expect(peer.handshake(with: &e, nowMs: nowMs, replica: &r))
            for (epoch, k) in keys { r.addPackKey(k, epoch: epoch, pack: pack) }
            for op in setup { #expect(r.admit(op, nowMs: nowMs).isAdmitted) }
        }

        mutating func push(_ envelopes: [[UInt8]]) {
            for env in envelopes { _ = peer.send(WireForge.ops([env]), to: &e, nowMs: nowMs, replica: &r) }
        }
    }

    @Test func aNonMembersOpIsRefusedInTheClearAndUnreadSealed() throws {
        var f = OpFactory(seed: 1, nowMs: Self.t0, floors: false)
        let alpha = f.user(), mallory = f.user()
        let g = f.createPrivatePack(by: alpha, key: Self.k0)
        var t = Target([g], keys: [(0, Self.k0)], pack: g.id)
        // In the clear: refused. Sealed under a key mallory made up: admitted as ciphertext, never read.
        let clear = f.unchecked(.post(Post(title: "buy followers", body: "")), by: mallory, in: g)
        let guessed = f.sealed(.post(Post(title: "buy followers", body: "")), by: mallory, in: g, key: Self.k1)
        t.push([clear, guessed.envelope.serialized()])
        #expect(t.e.stats.opsRejected["notAllowed"] == 1)
        #expect(t.r.contains(guessed.id))
        #expect(t.r.feed(packs: [g.id], nowMs: t.nowMs).isEmpty)
    }

    @Test func aRemovedMembersOpAfterTheRotationIsUnread() throws {
        var f = OpFactory(seed: 2, nowMs: Self.t0, floors: false)
        let alpha = f.user(), bob = f.user(), carol = f.user()
        let g = f.createPrivatePack(by: alpha, key: Self.k0)
        let rotation = f.packKeys(by: alpha, in: g, key: Self.k1, epoch: 1, members: [bob])
        var t = Target([g, rotation], keys: [(0, Self.k0), (1, Self.k1)], pack: g.id)
        let late = f.sealed(.post(Post(title: "still here", body: "")), by: carol, in: g, key: Self.k0)
        let bobs = f.sealed(.post(Post(title: "bob's", body: "")), by: bob, in: g, key: Self.k1, epoch: 1)
        t.push([late.envelope.serialized(), bobs.envelope.serialized()])
        #expect(t.r.contains(late.id))
        #expect(t.r.feed(packs: [g.id], nowMs: t.nowMs).map(\.title) == ["bob's"])
        #expect(!t.r.privateMembers(g.id).contains(f.pseudonym(carol, in: g).publicKey))
    }

    @Test func forgedAndOversizeKeyHandoutsAreRefused() throws {
        var f = OpFactory(seed: 3, nowMs: Self.t0, floors: false)
        let alpha = f.user(), bob = f.user(), mallory = f.user()
        let g = f.createPrivatePack(by: alpha, key: Self.k0)
        var t = Target([g], keys: [(0, Self.k0)], pack: g.id)
        let members = [f.pseudonym(bob, in: g).publicKey]
        let forged = try PackKeys.make(key: Self.k1, epoch: 1, members: members)
        let box = forged.sealed[0]
        t.push([
            f.unchecked(.packKeys(forged), by: mallory, in: g),  // not the Alpha
            f.unchecked(.packKeys(PackKeys(epoch: 1, sealed: Array(repeating: box, count: 11))), by: alpha, in: g),  // too many
            f.unchecked(.packKeys(PackKeys(epoch: 1, sealed: [box + [0]])), by: alpha, in: g),  // wrong size
            f.unchecked(.packKeys(PackKeys(epoch: Limits.maxPackEpoch + 1, sealed: [box])), by: alpha, in: g)  // epoch out of range
        ])
        #expect(t.e.stats.opsRejected["notAllowed"] == 1)
        #expect((t.e.stats.opsRejected["tooLarge"] ?? 0) + (t.e.stats.opsRejected["malformed"] ?? 0) == 3)
        #expect(t.r.newestEpoch(g.id) == 0)
        // The engine keeps serving: the Alpha's real handout still goes through.
        t.push([f.op(.packKeys(forged), by: alpha, in: g).envelope.serialized()])
        #expect(t.r.newestEpoch(g.id) == 1)
    }

    @Test func anInviteOnlyPackIsInNoDirectoryAndFoundOnlyByItsWholeId() throws {
        var f = OpFactory(seed: 4, nowMs: Self.t0, floors: false)
        let alpha = f.user()
        let g = f.createPrivatePack(by: alpha, name: "Night Owls", key: Self.k0)
        let open = f.createPack(by: alpha, name: "Open")
        let scope = PackScope(id: g.id, fence: nil, locked: false, isPrivate: true)
        #expect(!GossipEngine.inDirectory(scope, of: NodeInfo(cell: Self.cell)))
        #expect(!mayReceive(NodeInfo(cell: Self.cell), pack: scope, isGenesis: true))
        #expect(mayReceive(NodeInfo(cell: Self.cell, subscriptions: [NodeInfo.prefix(g.id)]), pack: scope, isGenesis: true))
        var config = GossipConfig()
        config.spread.directoryIntervalMs = 500
        var h = Harness(count: 2, config: config, cells: [Self.cell, Self.cell])
        h.nowMs = f.nowMs
        h.start { i in i == 0 ? [] : [0] }
        h.run(ms: 1000)
        for op in [g, open] { _ = h.nodes[0].replica.admit(op, nowMs: h.nowMs) }
        h.run(ms: 3000)
        // The directory brought the public pack, not the invite-only one; nor does its id prefix.
        #expect(h.nodes[1].replica.contains(open.id) && !h.nodes[1].replica.contains(g.id))
        h.apply(1, h.nodes[1].engine.findPack(String(g.id.hex.prefix(8)), nowMs: h.nowMs, replica: h.nodes[1].replica))
        h.run(ms: 300)
        #expect(!h.nodes[1].replica.contains(g.id))
        // Its whole id (a join code's) does.
        h.apply(1, h.nodes[1].engine.findPack(g.id.hex, nowMs: h.nowMs, replica: h.nodes[1].replica))
        h.run(ms: 300)
        #expect(h.nodes[1].replica.contains(g.id))
    }
    /// A hostile peer's unsolicited "settled" answer for an invite-only pack marks no key sync:
    /// only the first answer to this engine's own reconciliation of the pack does (PROTOCOL
    /// §3b "Key sync"), so a peer cannot make a member send what it holds back.
    @Test func anUnsolicitedSettledAnswerIsNoKeySync() throws {
        var f = OpFactory(seed: 5, nowMs: Self.t0, floors: false)
        let alpha = f.user()
        let g = f.createPrivatePack(by: alpha, key: Self.k0)
        var t = Target([g], keys: [(0, Self.k0)], pack: g.id)
        let settled = ReconcileRound(pack: g.id, directory: false, initiator: false, lower: .zero, ranges: [], asker: nil)
        for _ in 0..<3 {
            _ = t.peer.send(try Message.reconcile(settled).wire.serializedBytes(), to: &t.e, nowMs: t.nowMs, replica: &t.r)
        }
        #expect(!t.e.isKeySynced(g.id))
        #expect(t.e.takeKeySynced().isEmpty)
        // The engine keeps serving: the Alpha's handout still goes through.
        let keys = try PackKeys.make(key: Self.k1, epoch: 1, members: [])
        t.push([f.op(.packKeys(keys), by: alpha, in: g).envelope.serialized()])
        #expect(t.r.newestEpoch(g.id) == 1)
    }

    /// A link that holds one of the pack's ops under a stem embargo (§10a) hides it from its
    /// reconciliation answers: its "settled" would not mean it holds nothing we lack. The Alpha's
    /// rotation, still on its stem, must not let a member count a key sync with the Alpha (and
    /// send what it held under the old key); once the rotation is fluffed, the sync comes.
    @Test func aLinkWithTheRotationUnderEmbargoGivesNoKeySync() throws {
        var config = GossipConfig()
        config.spread.stemFailsafeMs = 20_000
        var h = Harness(count: 2, config: config, cells: [Self.cell, Self.cell])
        var f = OpFactory(seed: 6, nowMs: h.nowMs, floors: false)
        let alpha = f.user(), bob = f.user()
        let g = f.createPrivatePack(by: alpha, key: Self.k0)
        h.start { i in i == 0 ? [] : [0] }
        h.run(ms: 1000)
        for i in 0..<2 {
            h.nodes[i].replica.addPackKey(Self.k0, epoch: 0, pack: g.id)
            #expect(h.nodes[i].replica.admit(g, nowMs: h.nowMs).isAdmitted)
            h.setInterest(i, cell: Self.cell, subscriptions: [g.id])
        }
        h.run(ms: 3000)
        #expect(h.nodes[1].engine.isKeySynced(g.id))
        // The Alpha rotates; its stem datagram is lost, so the rotation stays under embargo there.
        let rotation = f.packKeys(by: alpha, in: g, key: Self.k1, epoch: 1, members: [bob])
        #expect(h.nodes[0].replica.admit(rotation, nowMs: h.nowMs).isAdmitted)
        _ = h.nodes[0].engine.publish(rotation, nowMs: h.nowMs, replica: h.nodes[0].replica)
        #expect(h.nodes[0].engine.stats.stemmed == 1)
        // The member's node starts again (it was offline) and reconciles the pack with the Alpha.
        var fresh = GossipEngine(config: config, seed: 4242, secrets: .seeded)
        fresh.selfAddress = Harness.address(1)
        h.nodes[1].engine = fresh
        h.setInterest(1, cell: Self.cell, subscriptions: [g.id])
        h.apply(1, h.nodes[1].engine.start(seeds: [Harness.address(0)], nowMs: h.nowMs))
        h.run(ms: 5000)
        #expect(h.nodes[1].engine.stats.reconciliations > 0)
        #expect(!h.nodes[1].replica.contains(rotation.id))
        #expect(!h.nodes[1].engine.isKeySynced(g.id))
        #expect(h.nodes[0].engine.stats.settledWithheld > 0)
        // The fail-safe fluffs the rotation: the member gets it, then its key sync.
        h.run(ms: 60_000)
        #expect(h.nodes[1].replica.contains(rotation.id))
        #expect(h.nodes[1].engine.isKeySynced(g.id))
        #expect(h.nodes[1].replica.newestEpoch(g.id) == 1)
    }
}
