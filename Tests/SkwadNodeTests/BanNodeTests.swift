import Foundation
import Testing
import SkwadCrypto
import SkwadModel
import SkwadReplica
@testable import SkwadNode
import SkwadTestKit

/// Issue 47 through the Node API, three nodes gossiping over the in-memory datagram network:
/// the Alpha bans a pseudonym and every node stops showing what it writes in that pack.
@Suite(.serialized) struct BanNodeTests {
    func message(_ body: () async throws -> Void) async -> String {
        do { try await body(); return "" } catch { return "\(error)" }
    }

    @Test func aBannedPseudonymsPostsAreNotShownOnAnotherNode() async throws {
        let net = TestNet()
        for _ in 0..<3 { try await net.add() }
        #expect(await net.linked())
        let (alpha, bob, carol) = (net.nodes[0], net.nodes[1], net.nodes[2])
        let pack = try await alpha.createPack(name: "Flats", radiusMeters: TestNet.radius, locked: false, tags: [], color: "")
        _ = try await alpha.createPack(name: "Other", radiusMeters: TestNet.radius, locked: false, tags: [], color: "")
        #expect(await net.synced())
        let before = try await bob.post(pack: "Flats", title: "Cheap flat", body: "", tags: [])
        let elsewhere = try await bob.post(pack: "Other", title: "Elsewhere", body: "", tags: [])
        #expect(await net.synced())
        let bobTag = pseudonymTag(try #require(await bob.key(for: pack.id)).publicKey)
        // Only a moderator bans; a moderator cannot be banned.
        let notMod = await message { _ = try await carol.ban(pack: "Flats", author: bobTag, banned: true) }
        #expect(notMod.hasPrefix("only the pack's Alpha and admins can ban"))
        let alphaTag = pseudonymTag(try #require(await alpha.key(for: pack.id)).publicKey)
        let modBan = await message { _ = try await alpha.ban(pack: "Flats", author: alphaTag, banned: true) }
        #expect(modBan.hasSuffix("moderators cannot be banned"))
        _ = try await alpha.ban(pack: "Flats", author: bobTag, banned: true, reason: "scam listings")
        #expect(await net.synced())
        // Bob's node refuses to write more there; a later post signed by bob's pseudonym anyway
        // (a modified node), pushed to carol's node over a session, is held but not shown.
        let refused = await message { _ = try await bob.post(pack: "Flats", title: "Another", body: "", tags: []) }
        #expect(refused.hasPrefix("you are banned in pack 'Flats'"))
        let bobKey = try #require(await bob.key(for: pack.id))
        let stamp = try #require(await bob.stamps[pack.id])
        let body = OpBody(
            packID: pack.id, author: bobKey.publicKey, hlc: HLC(physicalMs: net.clock.now, counter: 9), stamp: stamp,
            kind: .post(Post(title: "Sneaked in", body: "")))
        let later = try SignedOp.sign(body, with: bobKey)
        let wire = try net.wirePeer(to: 2, seed: 47)
        try await wire.handshake()
        wire.send(WireForge.ops([later.bytes]))
        #expect(await eventually() { await carol.replica.contains(later.id) })
        #expect(try await carol.feed(pack: "Flats", sort: .new, limit: 10).isEmpty)
        #expect(try await carol.show(before.short()).post.hidden == .banned)
        // The other pack is untouched.
        #expect(try await carol.feed(pack: "Other", sort: .new, limit: 10).map(\.id) == [elsewhere])
        let log = try await carol.moderationLog("Flats").entries
        #expect(log.map(\.action) == [.ban] && log.first.map { pseudonymTag($0.subject!) } == bobTag)
        #expect(log.first?.detail == "scam listings")
        // Unbanned: everything bob wrote shows again (the sneaked post too), and he can write.
        _ = try await alpha.ban(pack: "Flats", author: bobTag, banned: false)
        #expect(await net.synced())
        let after = try await bob.post(pack: "Flats", title: "Back", body: "", tags: [])
        #expect(await net.synced())
        #expect(Set(try await carol.feed(pack: "Flats", sort: .new, limit: 10).map(\.id)) == [before, later.id, after])
        #expect(try await carol.moderationLog("Flats").entries.map(\.action) == [.ban, .unban])
        await net.shutdown()
    }
}
