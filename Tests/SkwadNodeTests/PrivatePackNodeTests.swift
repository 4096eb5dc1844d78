import Foundation
import Testing
import SkwadCrypto
import SkwadModel
import SkwadReplica
@testable import SkwadNode
import SkwadStore
import SkwadTestKit

/// Invite-only packs through the Node API, three nodes gossiping over UDP on loopback: the
/// Alpha invites Carol with a join code, Bob relays ciphertext and lists nothing, the Alpha
/// removes Carol by rotating the key, and the keys survive a restart.
@Suite(.serialized) struct PrivatePackNodeTests {
    let clock = RunningClock()

    func titles(_ node: Node, _ pack: PackID) async -> [String] {
        await node.replica.feed(packs: [pack], nowMs: clock.now).map(\.title)
    }

    @Test func aMemberReadsARelayDoesNotAndARemovedMemberLosesLaterPosts() async throws {
        let net = TestNet(clock: clock)
        for _ in 0..<4 { try await net.add() }
        #expect(await net.linked())
        let (alpha, bob, carol, dave) = (net.nodes[0], net.nodes[1], net.nodes[2], net.nodes[3])
        let p = try await alpha.createPack(
            name: "Flat 4B", radiusMeters: TestNet.radius, locked: false, tags: ["home"], color: "",
            inviteOnly: true)
        _ = try await alpha.post(pack: "Flat 4B", title: "rent is due friday", body: "transfer to the usual", tags: [])
        let code = try await alpha.invite("Flat 4B")
        #expect(code.hasPrefix("skw-"))
        let joined = try await carol.joinInvite(code)
        #expect(joined.name == "Flat 4B" && joined.id == p.id)
        #expect(await eventually { await titles(carol, p.id) == ["rent is due friday"] })
        _ = try await dave.joinInvite(try await alpha.invite(p.id.hex))
        #expect(await net.synced())
        // Bob relays: he holds every op, lists no pack, reads nothing, cannot name it.
        #expect(await bob.replica.contains(p.id))
        #expect(await bob.packs().isEmpty)
        #expect(await titles(bob, p.id).isEmpty)
        await #expect(throws: NodeError.self) { try await bob.resolvePack("Flat 4B") }
        await #expect(throws: NodeError.self) { try await bob.invite(p.id.hex) }
        // A code with one character changed is a clear error.
        var typo = Array(code)
        typo[12] = typo[12] == "a" ? "b" : "a"
        do { _ = try await bob.joinInvite(String(typo)); Issue.record("a mistyped code joined") } catch {
            #expect("\(error)".contains("typo"))
        }
        // The Alpha removes Carol (known by her sealed `joined`): a new key for nobody else.
        let carolKey = try #require(await carol.key(for: p.id)?.publicKey)
        let daveKey = try #require(await dave.key(for: p.id)?.publicKey)
        #expect(await eventually { await alpha.replica.privateMembers(p.id) == [carolKey, daveKey] })
        let r = try await alpha.removeMember(pack: "Flat 4B", author: carolKey.hex)
        #expect(r.epoch == 1 && r.kept == 1)
        _ = try await alpha.post(pack: "Flat 4B", title: "new lock code 4711", body: "", tags: [])
        #expect(await net.synced())
        // Dave opened the new key from the Alpha's handout and reads on; and may post under it.
        #expect(await eventually { await titles(dave, p.id).count == 2 })
        #expect(await dave.replica.packKeyRing(p.id).keys.sorted() == [0, 1])
        _ = try await dave.post(pack: "Flat 4B", title: "got it", body: "", tags: [])
        #expect(await net.synced())
        #expect(await eventually { await titles(alpha, p.id).count == 3 })
        // Carol holds the ciphertext and cannot read it: the handout told her she was removed,
        // the pack left her packs (its old posts with it) and her posts are refused locally.
        #expect(await eventually { await carol.packs().isEmpty })
        #expect(await titles(carol, p.id).isEmpty)
        await #expect(throws: NodeError.self) { try await carol.post(pack: p.id.hex, title: "hi", body: "", tags: []) }
        await net.shutdown(keepData: true)

        // Keys persist: the Alpha reads its pack after a restart, the relay still does not.
        let again = try Node(config: net.config(net.dirs[0]), now: { clock.now })
        #expect(Set(await titles(again, p.id)) == ["rent is due friday", "new lock code 4711", "got it"])
        #expect(await again.packs().map(\.pack.name) == ["Flat 4B"])
        await again.close()
        let relay = try Node(config: net.config(net.dirs[1]), now: { clock.now })
        #expect(await relay.packs().isEmpty)
        await relay.close()
        // No plaintext in the relay's store.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: net.dirs[1] + "/skwad.sqlite"))
        #expect(bytes.count > 0 && bytes.range(of: Data("rent is due".utf8)) == nil && bytes.range(of: Data("Flat 4B".utf8)) == nil)
        net.removeData()
    }
    func removedNotices(_ node: Node, _ pack: PackID) async throws -> Int {
        try await node.inbox().items.filter { if case .pack(let n) = $0.kind { n.kind == .removed && n.pack == pack } else { false } }.count
    }

    /// Bob is offline while the Alpha removes Carol, and writes: his post is held (in no
    /// replica), and once he is back online and has synced the pack's key it goes out sealed
    /// under the new epoch, so Carol's old key opens nothing he wrote after her removal.
    /// Carol gets an inbox line and the pack leaves her packs (SECURITY.md "Invite-only packs").
    @Test func aPostWrittenOfflineDuringARemovalGoesOutUnderTheNewKey() async throws {
        let net = TestNet(clock: clock)
        for _ in 0..<3 { try await net.add() }
        #expect(await net.linked())
        let (alpha, bob, carol) = (net.nodes[0], net.nodes[1], net.nodes[2])
        let p = try await alpha.createPack(
            name: "Flat 4B", radiusMeters: TestNet.radius, locked: false, tags: [], color: "", inviteOnly: true)
        _ = try await bob.joinInvite(try await alpha.invite(p.id.hex))
        _ = try await carol.joinInvite(try await alpha.invite(p.id.hex))
        let bobKey = try #require(await bob.key(for: p.id)?.publicKey)
        let carolKey = try #require(await carol.key(for: p.id)?.publicKey)
        #expect(await eventually { await alpha.replica.privateMembers(p.id) == [bobKey, carolKey] })
        #expect(await net.synced())
        let k0 = try #require(await alpha.replica.packKeyRing(p.id)[0])
        await bob.goOffline()
        let r = try await alpha.removeMember(pack: "Flat 4B", author: carolKey.hex)
        #expect(r.epoch == 1 && r.kept == 1)
        #expect(await eventually { await carol.packs().isEmpty })
        #expect(try await removedNotices(carol, p.id) == 1)
        #expect(await titles(carol, p.id).isEmpty)
        // Offline, Bob knows only epoch 0: what he writes is held, not in his replica.
        let late = try await bob.post(pack: "Flat 4B", title: "the spare key is under the mat", body: "", tags: [])
        #expect(await bob.isHeld(late))
        #expect(await !bob.replica.contains(late))
        _ = try await bob.goOnline(over: net.memory.binder, listen: "127.0.0.1:0", peers: [net.addresses[0]])
        #expect(await eventually { await titles(alpha, p.id).contains("the spare key is under the mat") })
        #expect(await bob.heldCount == 0)
        #expect(await net.synced())
        let rotation = try #require(await alpha.replica.rotationTimes(p.id)[1])
        for node in [alpha, carol] {
            let after = await node.replica.allOps.filter { $0.packID == p.id && $0.author == bobKey && $0.hlc > rotation }
            #expect(after.count == 1)
            #expect(await !node.replica.contains(late))
            for op in after {
                guard case .sealed(let s) = op.asReceived().body.kind else { Issue.record("not sealed"); continue }
                #expect(s.epoch == 1)
                #expect(s.open(key: k0, pack: p.id, author: bobKey, hlc: op.hlc) == nil)
            }
        }
        #expect(await bob.counters().contains { $0.0 == "private.resealed" && $0.1 == 1 })
        await net.shutdown()
    }

    /// Dave joins with Carol's code while the Alpha is offline; the Alpha, still offline,
    /// removes Carol ("sent to 0 members"). Once Dave's `joined` reaches it, the Alpha hands
    /// Dave the current key, and Dave reads what it posted after the removal.
    @Test func aMemberWhoseJoinReachesTheAlphaAfterARemovalGetsTheCurrentKey() async throws {
        let net = TestNet(clock: clock)
        for _ in 0..<3 { try await net.add() }
        #expect(await net.linked())
        let (alpha, carol, dave) = (net.nodes[0], net.nodes[1], net.nodes[2])
        let p = try await alpha.createPack(
            name: "Flat 4B", radiusMeters: TestNet.radius, locked: false, tags: [], color: "", inviteOnly: true)
        _ = try await carol.joinInvite(try await alpha.invite(p.id.hex))
        let carolKey = try #require(await carol.key(for: p.id)?.publicKey)
        #expect(await eventually { await alpha.replica.privateMembers(p.id) == [carolKey] })
        await alpha.goOffline()
        _ = try await dave.joinInvite(try await carol.invite(p.id.hex))
        let r = try await alpha.removeMember(pack: p.id.hex, author: carolKey.hex)
        #expect(r.epoch == 1 && r.kept == 0)
        _ = try await alpha.post(pack: p.id.hex, title: "after the removal", body: "", tags: [])
        _ = try await alpha.goOnline(over: net.memory.binder, listen: "127.0.0.1:0", peers: [net.addresses[2]])
        #expect(await eventually { await titles(dave, p.id).contains("after the removal") })
        #expect(await dave.replica.packKeyRing(p.id)[1] != nil)
        #expect(await alpha.counters().contains { $0.0 == "private.late_handouts" && $0.1 == 1 })
        // Carol was removed and holds no key of epoch 1.
        #expect(await eventually { await carol.packs().isEmpty })
        #expect(await carol.replica.packKeyRing(p.id).isEmpty)
        // Dave writes under the new key, and the Alpha reads it.
        _ = try await dave.post(pack: p.id.hex, title: "thanks", body: "", tags: [])
        #expect(await eventually { await titles(alpha, p.id).contains("thanks") })
        await net.shutdown()
    }

    /// A join code printed before a removal: a node that was never a member is told the code is
    /// out of date and keeps nothing (no keys, not joined, no posts shown); the removed member
    /// is told it was removed.
    @Test func aStaleJoinCodeSaysSoAndLeavesNothingBehind() async throws {
        let net = TestNet(clock: clock)
        for _ in 0..<3 { try await net.add() }
        #expect(await net.linked())
        let (alpha, carol, erin) = (net.nodes[0], net.nodes[1], net.nodes[2])
        let p = try await alpha.createPack(
            name: "Flat 4B", radiusMeters: TestNet.radius, locked: false, tags: [], color: "", inviteOnly: true)
        _ = try await alpha.post(pack: "Flat 4B", title: "rent is due friday", body: "", tags: [])
        let code = try await alpha.invite(p.id.hex)
        _ = try await carol.joinInvite(code)
        let carolKey = try #require(await carol.key(for: p.id)?.publicKey)
        #expect(await eventually { await alpha.replica.privateMembers(p.id) == [carolKey] })
        _ = try await alpha.removeMember(pack: p.id.hex, author: carolKey.hex)
        #expect(await net.synced())
        do {
            _ = try await erin.joinInvite(code)
            Issue.record("a stale code joined")
        } catch { #expect("\(error)".contains("out of date"), "\(error)") }
        #expect(await erin.packs().isEmpty)
        #expect(await erin.whoami().joinedPacks == 0)
        #expect(await erin.replica.packKeyRing(p.id).isEmpty)
        #expect(await titles(erin, p.id).isEmpty)
        #expect(await eventually { await carol.packs().isEmpty })
        do {
            _ = try await carol.joinInvite(code)
            Issue.record("a removed member joined again")
        } catch { #expect("\(error)".contains("you were removed"), "\(error)") }
        #expect(await carol.packs().isEmpty)
        #expect(await carol.replica.packKeyRing(p.id).isEmpty)
        await net.shutdown()
    }
}
