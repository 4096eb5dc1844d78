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
        // Carol holds the ciphertext and cannot read it; her posts are refused locally.
        #expect(await titles(carol, p.id) == ["rent is due friday"])
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
}
