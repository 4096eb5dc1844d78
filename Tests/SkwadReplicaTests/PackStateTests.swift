import Testing
import SkwadCrypto
import SkwadModel
@testable import SkwadReplica
import SkwadTestKit

/// `PackState` keeps a pack of its genesis alone as the genesis and nothing else; the indexes
/// come with the first op after it, and every view reads the same either way. A pack learned
/// from others carries its source network group in its state (the quota of PROTOCOL §4,
/// rule 5), counted once whatever happens to the state.
@Suite struct PackStateTests {
    @Test func aPackOfItsGenesisAloneReadsTheSameAsOneWithOps() throws {
        var f = OpFactory(seed: 2701, floors: false)
        let alpha = f.user(), bob = f.user()
        let g = f.createPack(by: alpha, name: "quad", tags: ["study"])
        var r = Replica(config: .noFloors)
        #expect(r.admit(g, nowMs: f.nowMs).isAdmitted)
        let bare = try #require(r.pack(g.id))
        #expect(bare.id == g.id && bare.alpha == g.author && bare.create.name == "quad" && bare.create.tags == ["study"])
        #expect(bare.opCount == 1 && bare.postCount == 0 && bare.popularity == 0 && !bare.isAdmin)
        #expect(bare.order.map(\.id) == [g.id])
        #expect(r.packCount == 1 && r.count == 1)

        let post = f.post(by: bob, in: g, title: "hello")
        #expect(r.admit(post, nowMs: f.nowMs).isAdmitted)
        let held = try #require(r.pack(g.id))
        #expect(held.opCount == 2 && held.postCount == 1 && held.popularity == 1)
        #expect(held.order.map(\.id) == [g.id, post.id])
        #expect(held.expiresMs != nil && held.expiresMs! > bare.expiresMs!)
        // The copy read before the post is a value: it did not change.
        #expect(bare.opCount == 1 && bare.postCount == 0)
        #expect(r.feed(packs: [g.id], nowMs: f.nowMs).map(\.title) == ["hello"])
    }

    @Test func anAdminPackIsPermanentWithoutAnyOtherOp() throws {
        var f = OpFactory(seed: 2702, floors: false)
        let admin = try SigningKeyPair(seed: [UInt8](repeating: 5, count: 32))
        let g = f.createPack(by: f.user(), name: "campus", signer: admin)
        var r = Replica(config: ReplicaConfig(adminKeys: [admin.publicKey], pseudonymPowFloor: 0, genesisPowFloor: 0))
        #expect(r.admit(g, nowMs: f.nowMs).isAdmitted)
        let p = try #require(r.pack(g.id))
        #expect(p.isAdmin && p.expiresMs == nil)
        #expect(r.remotePackCount == 0)
    }

    @Test func aPackFromOthersCountsOnceThroughARebuildUntilJoined() throws {
        var f = OpFactory(seed: 2703, floors: false)
        let alpha = f.user(), bob = f.user()
        let key = [UInt8](repeating: 7, count: 32)
        let secret = f.createPrivatePack(by: alpha, name: "flat 4b", key: key)
        let post = f.sealed(.post(Post(title: "rent", body: "friday")), by: bob, in: secret, key: key)
        let open = f.createPack(by: alpha, name: "open")
        var r = Replica(config: .noFloors)
        #expect(r.admit(secret, nowMs: f.nowMs, arrival: Arrival(source: "10.0.0")).isAdmitted)
        #expect(r.admit(post, nowMs: f.nowMs).isAdmitted)
        #expect(r.admit(open, nowMs: f.nowMs, arrival: Arrival(source: "10.0.1")).isAdmitted)
        #expect(r.remotePackCount == 2 && r.remotePacksBySource == ["10.0.0": 1, "10.0.1": 1])
        // The key rebuilds the invite-only pack's state from its genesis: it still counts once,
        // from the same source, and now reads.
        r.addPackKey(key, epoch: 0, pack: secret.id)
        #expect(r.pack(secret.id)?.create.name == "flat 4b")
        #expect(r.feed(packs: [secret.id], nowMs: f.nowMs).map(\.title) == ["rent"])
        #expect(r.remotePackCount == 2 && r.remotePacksBySource == ["10.0.0": 1, "10.0.1": 1])
        // Joined: no longer counted, and only once.
        r.markOwn(secret.id)
        r.markOwn(secret.id)
        #expect(r.remotePackCount == 1 && r.remotePacksBySource == ["10.0.1": 1])
    }

    @Test func aPurgedPackFromOthersLeavesTheCount() throws {
        var f = OpFactory(seed: 2704, floors: false)
        let alpha = f.user()
        let g = f.createPack(by: alpha, name: "short")
        var r = Replica(config: .noFloors)
        #expect(r.admit(g, nowMs: f.nowMs, arrival: Arrival(source: "10.0.2")).isAdmitted)
        #expect(r.remotePackCount == 1)
        let made = r.purge(nowMs: f.nowMs + Lifetime.maxMs + Lifetime.purgeGraceMs)
        #expect(made.map(\.pack) == [g.id])
        #expect(r.remotePackCount == 0 && r.remotePacksBySource.isEmpty && r.packCount == 0)
    }
}
