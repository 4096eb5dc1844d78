import Foundation
import Testing
import SkwadCrypto
import SkwadModel
import SkwadReplica
import SkwadTestKit
@testable import SkwadNode
@testable import SkwadStore

/// Issue 24, findings 5 and 6 and the rough edges on the node's side: ids win over names,
/// admin trust, renamed packs, the local op budget, text limits, search, inbox.
@Suite struct Issue24NodeTests {
    let clock = TestClock()

    func open(_ dir: String, _ edit: (inout NodeConfig) -> Void = { _ in }) throws -> Node {
        var c = testConfig(dir)
        edit(&c)
        return try Node(config: c, now: { [clock] in clock.now })
    }

    /// Ops from elsewhere, as a node's store holds them: appended while the node is closed.
    func append(_ ops: [SignedOp], to dir: String) throws {
        let store = try Store(path: dir + "/skwad.sqlite")
        try store.append(ops)
    }

    @Test func anIdPrefixWinsOverAPackNamedLikeIt() async throws {
        let dir = tempDataDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var n = try open(dir)
        let quad = try await n.createPack(name: "Quad", radiusMeters: nil, locked: false, tags: [], color: "")
        await n.close()
        // A remote pack named like the first hex digits of Quad's id (another node's code
        // does not refuse such a name), and 17 more: two of them share a first hex digit.
        var f = OpFactory(seed: 24, nowMs: clock.now, floors: false)
        let prefix = String(quad.id.hex.prefix(6))
        let squatter = f.createPack(by: f.user(), name: prefix)
        let others = (0..<17).map { i in f.createPack(by: f.user(), name: "other \(i)") }
        try append([squatter] + others, to: dir)
        n = try open(dir)
        #expect(try await n.resolvePack(prefix).id == quad.id)
        _ = try await n.join(prefix)
        let joinedQuad = await n.isJoined(quad.id), joinedSquatter = await n.isJoined(squatter.id)
        #expect(joinedQuad && !joinedSquatter)
        let posted = try await n.post(pack: prefix, title: "mine", body: "", tags: [])
        #expect(await n.replica.op(posted)?.packID == quad.id)
        // An id prefix of several packs: an error that lists them, longer prefixes to type.
        let ids = ([quad.id, squatter.id] + others.map(\.id))
        let digit = try #require(Dictionary(grouping: ids, by: { $0.hex.prefix(1) }).first { $0.value.count > 1 })
        let shared = await message { _ = try await n.resolvePack(String(digit.key)) }
        #expect(shared.contains("starts the ids of \(digit.value.count) packs: say which"))
        for id in digit.value.prefix(6) { #expect(shared.contains(String(id.hex.prefix(6)))) }
        await n.close()
    }

    @Test func aPackNameOfHexDigitsOnlyIsRefusedAtCreationAndRename() async throws {
        let dir = tempDataDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let n = try open(dir)
        for name in ["cafe", "BEEF", "2024", "a"] {
            let e = await message { _ = try await n.createPack(name: name, radiusMeters: nil, locked: false, tags: [], color: "") }
            #expect(e.contains("would read as a pack id"), "\(name): \(e)")
        }
        _ = try await n.createPack(name: "Café", radiusMeters: nil, locked: false, tags: [], color: "")
        _ = try await n.createPack(name: "cafe 2", radiusMeters: nil, locked: false, tags: [], color: "")
        let e = await message { _ = try await n.edit("Café", EditRequest(name: "deadbeef")) }
        #expect(e.contains("would read as a pack id"))
        #expect(await n.packs().count == 2)
        await n.close()
    }

    @Test func aRenamedPackIsFoundByItsOldNameWithTheNewOneSuggested() async throws {
        let dir = tempDataDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let n = try open(dir)
        _ = try await n.createPack(name: "Quad", radiusMeters: nil, locked: false, tags: [], color: "")
        _ = try await n.edit("Quad", EditRequest(name: "The Quad"))
        let e = await message { _ = try await n.join("quad") }
        #expect(e.contains("no pack is named 'quad' now: pack 'The Quad'"), "\(e)")
        await n.close()
    }

    @Test func adminMarksOnlyForTrustedKeysAndTrustWritesTheConfig() async throws {
        let dir = tempDataDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let admin = SigningKeyPair.generate()
        let secret = dir + ".admin"
        try Hex.encode(admin.seed).write(toFile: secret, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: secret) }
        // A campus node makes an admin pack; the same store opened by a node that holds no
        // admin secret and trusts no key: the pack is an ordinary one there.
        var n = try open(dir) {
            $0.adminSecretFile = secret; $0.adminPacks = ["Campus news"]
        }
        try await n.ensureAdminPacks()
        #expect(await n.packs().first?.pack.isAdmin == true)
        await n.close()
        let file = dir + "/" + NodeConfig.dataDirConfigName
        let before = "# my device\nlocation = \"40.4433,-79.9436\"\n\n[limits]\npseudonym_ops_per_minute = 60\n"
        try before.write(toFile: file, atomically: true, encoding: .utf8)
        var c = try NodeConfig.loadDefault(dataDir: dir)
        c.powBits = 4
        n = try Node(config: c, now: { [clock] in clock.now })
        var p = try #require(await n.packs().first?.pack)
        #expect(!p.isAdmin && p.expiresMs != nil)
        // Trusted: permanent at once, written to the file, the rest of it as it was.
        let (key, changed) = try await n.trust(admin.publicKey.hex, on: true)
        #expect(key == admin.publicKey && changed)
        p = try #require(await n.packs().first?.pack)
        #expect(p.isAdmin && p.expiresMs == nil)
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.hasPrefix("# my device\nlocation = \"40.4433,-79.9436\"\n"))
        #expect(text.contains("admin_keys = [\"\(admin.publicKey.hex)\"]") && text.hasSuffix("[limits]\npseudonym_ops_per_minute = 60\n"))
        let reread = try NodeConfig.loadDefault(dataDir: dir)
        #expect(reread.adminKeys == [admin.publicKey] && reread.gossip.limits.pseudonymOpsPerMinute == 60 && reread.dataDir == dir)
        #expect(await n.trusted().keys == [admin.publicKey])
        #expect(try await n.trust(admin.publicKey.hex, on: true).changed == false)
        // A second key goes on its own line; untrust takes one out.
        let other = SigningKeyPair.generate()
        _ = try await n.trust(other.publicKey.hex, on: true)
        #expect(try NodeConfig.loadDefault(dataDir: dir).adminKeys == [admin.publicKey, other.publicKey])
        _ = try await n.trust(admin.publicKey.hex, on: false)
        #expect(try NodeConfig.loadDefault(dataDir: dir).adminKeys == [other.publicKey])
        #expect(await n.packs().first?.pack.isAdmin == false)
        let bad = await message { _ = try await n.trust("abc", on: true) }
        #expect(bad.contains("is not an admin key"))
        await n.close()
    }

    @Test func theConfigEditKeepsEveryOtherLine() throws {
        let k = SigningKeyPair.generate().publicKey
        // Added before the first table when absent; a multi-line array replaced whole.
        let absent = "listen = \"127.0.0.1:7400\"\n\n[limits]\npeer_datagrams_per_second = 9\n"
        let added = try NodeConfig.settingAdminKeys([k], in: absent, baseDir: nil)
        #expect(added == "listen = \"127.0.0.1:7400\"\nadmin_keys = [\"\(k.hex)\"]\n\n[limits]\npeer_datagrams_per_second = 9\n")
        let multi = "admin_keys = [\n  # none yet\n]  # trusted keys\nheadless = false\n"
        let replaced = try NodeConfig.settingAdminKeys([k], in: multi, baseDir: nil)
        #expect(replaced == "admin_keys = [\"\(k.hex)\"]  # trusted keys\nheadless = false\n")
        #expect(try NodeConfig.parse(NodeConfig.settingAdminKeys([], in: replaced, baseDir: nil)).adminKeys.isEmpty)
        #expect(try NodeConfig.settingAdminKeys([k], in: "", baseDir: nil).hasPrefix("# Written by `trust`"))
    }

    @Test func theLocalBudgetCountsAGenesisAsPeersDo() async throws {
        let dir = tempDataDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let n = try open(dir) { $0.gossip.limits.pseudonymOpsPerMinute = 3 }
        // Peers count the genesis in its author's bucket: create + 2 posts is the burst of 3.
        _ = try await n.createPack(name: "Quad", radiusMeters: nil, locked: false, tags: [], color: "")
        _ = try await n.post(pack: "Quad", title: "one", body: "", tags: [])
        _ = try await n.post(pack: "Quad", title: "two", body: "", tags: [])
        let e = await message { _ = try await n.post(pack: "Quad", title: "three", body: "", tags: []) }
        #expect(e.hasPrefix("slow down: peers accept 3 ops a minute"))
        await n.close()
    }

    @Test func aTooLongTextSaysHowManyCharactersToCut() async throws {
        let dir = tempDataDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let n = try open(dir)
        _ = try await n.createPack(name: "Quad", radiusMeters: nil, locked: false, tags: [], color: "")
        let plain = await message { _ = try await n.post(pack: "Quad", title: String(repeating: "x", count: 130), body: "", tags: []) }
        #expect(plain == "title too long: 130 characters, at most 120 bytes (120 plain characters): cut 10 characters from it")
        // 50 "é" are 100 bytes: 620 bytes in 570 characters; cutting 10 "é" from the end fits.
        let accented = String(repeating: "a", count: 520) + String(repeating: "é", count: 50)
        let body = await message { _ = try await n.post(pack: "Quad", title: "t", body: accented, tags: []) }
        #expect(body == "body too long: 570 characters, 620 bytes, at most 600 bytes (600 plain characters): cut 10 characters from it")
        // Refused before signing: the budget was not spent on it.
        #expect(await n.replica.count == 1)
        await n.close()
    }

    @Test func searchListsAPostOnceAndFindsEmoji() async throws {
        let dir = tempDataDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let n = try open(dir)
        _ = try await n.createPack(name: "Quad", radiusMeters: nil, locked: false, tags: [], color: "")
        let post = try await n.post(pack: "Quad", title: "Free pizza 🍕", body: "Gates", tags: [])
        _ = try await n.comment(on: post.hex, text: "pizza is gone")
        _ = try await n.comment(on: post.hex, text: "more pizza coming")
        #expect(try await n.search("pizza").map(\.post.id) == [post])
        #expect(try await n.search("🍕").map(\.post.id) == [post])
        #expect(try await n.search("🌮").isEmpty)
        await n.close()
    }

    @Test func theInboxIgnoresARepeatedVoteAndTellsOfAnAutoHide() async throws {
        let dir = tempDataDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var n = try open(dir)
        _ = try await n.createPack(name: "Quad", radiusMeters: nil, locked: false, tags: [], color: "")
        let postID = try await n.post(pack: "Quad", title: "Hot take", body: "", tags: [])
        let genesis = try #require(await n.replica.op(try await n.resolvePack("Quad").id))
        let post = try #require(await n.replica.op(postID))
        _ = try await n.inbox()
        await n.close()
        var f = OpFactory(seed: 5, nowMs: clock.now + 1000, floors: false)
        let users = (0..<5).map { _ in f.user() }
        try append(users.map { f.vote(by: $0, in: genesis, on: post, value: -1) }, to: dir)
        n = try open(dir)
        var items = try await n.inbox().items.map(\.kind)
        #expect(items.contains(.votes(target: postID, up: 0, down: 5, score: -5)))
        #expect(items.contains(.autoHidden(target: postID, score: -5, threshold: 5)))
        await n.close()
        // The same vote again: no news, and no second hide notice.
        try append([f.vote(by: users[0], in: genesis, on: post, value: -1)], to: dir)
        n = try open(dir)
        items = try await n.inbox().items.map(\.kind)
        #expect(items.isEmpty, "\(items)")
        await n.close()
    }

    func message(_ body: () async throws -> Void) async -> String {
        do { try await body(); return "" } catch { return "\(error)" }
    }
}
