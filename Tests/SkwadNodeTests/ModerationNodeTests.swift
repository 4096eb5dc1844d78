import Foundation
import Testing
import SkwadCrypto
import SkwadModel
import SkwadReplica
@testable import SkwadNode
import SkwadStore
import SkwadTestKit

/// Issue 11, part A, through the Node API: three nodes gossiping over the in-memory datagram network: the
/// Alpha hides and restores, authors edit, reports reach only the moderator, blocks and
/// mutes persist across a restart.
@Suite(.serialized) struct ModerationNodeTests {
    /// Three nodes online; `sync` waits until each holds every op of the others.
    final class Trio: @unchecked Sendable {
        let net = TestNet()
        var nodes: [Node] { net.nodes }
        var dirs: [String] { net.dirs }
        var clock: RunningClock { net.clock }
        init() async throws {
            for _ in 0..<3 { try await net.add() }
            #expect(await net.linked())
        }
        func sync() async { #expect(await net.synced()) }
        func cleanup() async { await net.shutdown() }
    }

    func message(_ body: () async throws -> Void) async -> String {
        do { try await body(); return "" } catch { return "\(error)" }
    }

    @Test func theAlphaHidesAndRestoresAndTheLogSaysWho() async throws {
        let t = try await Trio()
        let (alpha, bob, carol) = (t.nodes[0], t.nodes[1], t.nodes[2])
        let pack = try await alpha.createPack(name: "Quad", radiusMeters: TestNet.radius, locked: false, tags: [], color: "")
        await t.sync()
        let post = try await bob.post(pack: "Quad", title: "Spam", body: "buy now", tags: [])
        await t.sync()
        // The Alpha cannot delete someone else's post, and is told to hide it instead.
        let why = await message { _ = try await alpha.delete(post.short()) }
        #expect(why.contains("hide \(post.short())"))
        // A member cannot hide.
        let refused = await message { _ = try await carol.moderate(post.short(), hidden: true) }
        #expect(refused.hasPrefix("only the pack's Alpha and admins"))
        _ = try await alpha.moderate(post.short(), hidden: true, reason: "spam")
        await t.sync()
        for n in t.nodes { #expect(try await n.feed(pack: "Quad", sort: .new, limit: 10).isEmpty) }
        #expect(try await carol.show(post.short()).post.hidden == .moderated)
        _ = try await alpha.moderate(post.short(), hidden: false)
        await t.sync()
        for n in t.nodes { #expect(try await n.feed(pack: "Quad", sort: .new, limit: 10).map(\.id) == [post]) }
        let log = try await carol.moderationLog("Quad")
        #expect(log.pack.id == pack.id)
        #expect(log.entries.map(\.action) == [.hide, .unhide])
        #expect(log.entries.allSatisfy { $0.role == .alpha })
        #expect(log.entries.first?.detail == "spam")
        await t.cleanup()
    }

    @Test func anAdminHidesInAPackItDidNotCreateAndReadsItsReports() async throws {
        let admin = SigningKeyPair.generate()
        let secret = tempDataDir() + ".admin"
        try Hex.encode(admin.seed).write(toFile: secret, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: secret) }
        let net = TestNet()
        for i in 0..<3 {
            try await net.add(config: { c in
                c.adminKeys = [admin.publicKey]
                if i == 2 { c.adminSecretFile = secret }
            })
        }
        #expect(await net.linked())
        func sync() async { #expect(await net.synced()) }
        let nodes = net.nodes
        let (alpha, bob, adminNode) = (nodes[0], nodes[1], nodes[2])
        _ = try await alpha.createPack(name: "Quad", radiusMeters: TestNet.radius, locked: false, tags: [], color: "")
        await sync()
        let post = try await bob.post(pack: "Quad", title: "Spam", body: "", tags: [])
        await sync()
        let report = try await bob.report(post.short(), reason: "for the admins too")
        await sync()
        // Sealed to the Alpha and the admin key: both read it.
        #expect(try await adminNode.reports(pack: "Quad").map(\.id) == [report])
        #expect(try await alpha.reports(pack: "Quad").map(\.id) == [report])
        _ = try await adminNode.moderate(post.short(), hidden: true, reason: "admin")
        await sync()
        for n in nodes { #expect(try await n.feed(pack: "Quad", sort: .new, limit: 10).isEmpty) }
        let log = try await alpha.moderationLog("Quad").entries
        #expect(log.map(\.role) == [.admin] && log.map(\.author) == [admin.publicKey])
        await net.shutdown()
    }

    @Test func evictedReportsLeaveTheStoreToo() async throws {
        let net = TestNet()
        let clock = net.clock
        var f = OpFactory(seed: 1113, nowMs: clock.now)
        let alpha = f.user(), spammer = f.user()
        let g = f.createPack(by: alpha)
        let p = f.post(by: alpha, in: g)
        let base = clock.now / Lifetime.hour * Lifetime.hour
        // Rule 8a bounds an op author: one carrier key reused (a node uses a fresh one per report).
        let carrier = SigningKeyPair.generate()
        let reports = (0..<8).map { i in
            f.report(by: spammer, in: g, on: p.id, hlc: HLC(physicalMs: base + UInt64(i), counter: 0), carrier: carrier)
        }
        let kept = Set(reports.prefix(Limits.reportsPerHour).map(\.id))
        let node = try await net.add()
        // A peer sends the pack and post, then the reports latest first, one datagram each
        // (in order, the engine reads its queue in order): each earlier one evicts a later one.
        let wire = try net.wirePeer(to: 0, seed: 3)
        try await wire.handshake()
        wire.send(WireForge.ops([g.bytes, p.bytes]))
        #expect(await eventually() { await node.replica.contains(p.id) })
        for r in reports.reversed() { wire.send(WireForge.ops([r.bytes])) }
        #expect(await eventually() { await Set(node.replica.reportIDs(in: g.id)) == kept })
        #expect(await eventually() { (try? await node.store.loadOps().ops.count) == 2 + Limits.reportsPerHour })
        await net.shutdown(keepData: true)
        let again = try Node(config: testConfig(net.dirs[0]), now: { clock.now })
        #expect(Set(await again.replica.reportIDs(in: g.id)) == kept)
        await again.close()
        net.removeData()
    }

    @Test func theAlphaEditsThePackAndAuthorsEditTheirOwnPosts() async throws {
        let t = try await Trio()
        let (alpha, bob, carol) = (t.nodes[0], t.nodes[1], t.nodes[2])
        _ = try await alpha.createPack(name: "Quad", radiusMeters: TestNet.radius, locked: false, tags: [], color: "")
        await t.sync()
        let post = try await bob.post(pack: "Quad", title: "Typo", body: "teh body", tags: [])
        await t.sync()
        let comment = try await carol.comment(on: post.short(), text: "frist")
        await t.sync()
        // Not the Alpha: refused; the Alpha: renamed everywhere; a colour over the limit: refused.
        let notAlpha = await message { _ = try await bob.edit("Quad", EditRequest(name: "Mine")) }
        #expect(notAlpha.hasPrefix("only the pack's Alpha"))
        let tooLong = await message { _ = try await alpha.edit("Quad", EditRequest(color: String(repeating: "c", count: 17))) }
        #expect(tooLong.contains("colour"))
        _ = try await alpha.edit("Quad", EditRequest(name: "Quad2", tags: ["campus"]))
        await t.sync()
        for n in t.nodes { #expect(try await n.resolvePack("Quad2").tags == ["campus"]) }
        #expect(try await carol.moderationLog("Quad2").entries.map(\.action) == [.editPack])
        // Only the author edits; `edit` tells a pack from a post by what it resolves to.
        let notMine = await message { _ = try await alpha.edit(post.short(), EditRequest(text: "hijack")) }
        #expect(notMine == "you can only edit your own posts and comments")
        let wrongKind = await message { _ = try await alpha.edit("Quad2", EditRequest(text: "x")) }
        #expect(wrongKind.hasPrefix("'Quad2' is a pack"))
        _ = try await bob.edit(post.short(), EditRequest(title: "Fixed", body: "the body"))
        _ = try await carol.edit(comment.short(), EditRequest(text: "first"))
        await t.sync()
        for n in t.nodes {
            let th = try await n.show(post.short())
            #expect(th.post.title == "Fixed" && th.post.body == "the body" && th.post.edited)
            #expect(th.comments.map(\.body) == ["first"] && th.comments[0].edited)
        }
        await t.cleanup()
    }

    @Test func aReportIsReadOnlyByTheModerator() async throws {
        let t = try await Trio()
        let (alpha, bob, carol) = (t.nodes[0], t.nodes[1], t.nodes[2])
        _ = try await alpha.createPack(name: "Quad", radiusMeters: TestNet.radius, locked: false, tags: [], color: "")
        await t.sync()
        let post = try await bob.post(pack: "Quad", title: "Rude", body: "", tags: [])
        await t.sync()
        let report = try await carol.report(post.short(), reason: "insulting")
        await t.sync()
        let seen = try await alpha.reports(pack: "Quad")
        #expect(seen.map(\.id) == [report] && seen[0].reason == "insulting" && seen[0].target == post)
        // The moderator sees who reported: carol's pseudonym in the pack.
        let carolKey = try #require(await carol.key(for: seen[0].pack)).publicKey
        #expect(seen[0].reporter == carolKey)
        // Bob holds (and would relay) the op but reads nothing of it, not even who sent it: the
        // op is signed by a one-off key, and carol's pseudonym appears nowhere in its bytes.
        #expect(await bob.replica.reportIDs(in: seen[0].pack) == [report])
        let held = try #require(await bob.replica.op(report))
        #expect(held.author != carolKey)
        #expect(!held.envelope.serialized().containsSubsequence(carolKey.bytes))
        let refused = await message { _ = try await bob.reports(pack: "Quad") }
        #expect(refused == "only the pack's Alpha and admins see its reports")
        #expect(try await bob.reports(pack: nil).isEmpty)
        #expect(try await carol.reports(pack: nil).isEmpty)
        // Dismissed: gone from the moderator's list (local), still in the set.
        _ = try await alpha.dismiss(report.short())
        #expect(try await alpha.reports(pack: nil).isEmpty)
        #expect(await alpha.replica.reportIDs(in: seen[0].pack) == [report])
        // The moderator bans the reporter it now knows; its reports leave the queue, and its node
        // says so rather than send more.
        let again = try await carol.report(post.short(), reason: "again")
        await t.sync()
        #expect(try await alpha.reports(pack: nil).map(\.id) == [again])
        _ = try await alpha.ban(pack: "Quad", author: pseudonymTag(carolKey), banned: true, reason: "report abuse")
        await t.sync()
        #expect(try await alpha.reports(pack: nil).isEmpty)
        let banned = await message { _ = try await carol.report(post.short(), reason: "more") }
        #expect(banned.hasPrefix("you are banned in pack 'Quad'"))
        await t.cleanup()
    }

    @Test func blocksAndMutesFilterTheFeedAndSurviveARestart() async throws {
        let t = try await Trio()
        let (alpha, bob, carol) = (t.nodes[0], t.nodes[1], t.nodes[2])
        _ = try await alpha.createPack(name: "Quad", radiusMeters: TestNet.radius, locked: false, tags: [], color: "")
        _ = try await alpha.createPack(name: "Noise", radiusMeters: TestNet.radius, locked: false, tags: [], color: "")
        await t.sync()
        let bobs = try await bob.post(pack: "Quad", title: "From bob", body: "", tags: [])
        let carols = try await carol.post(pack: "Quad", title: "From carol", body: "", tags: [])
        await t.sync()
        let bobComment = try await bob.comment(on: carols.short(), text: "bob says")
        await t.sync()
        _ = try await carol.comment(on: bobComment.short(), text: "carol answers")
        _ = try await carol.post(pack: "Noise", title: "Noisy", body: "", tags: [])
        await t.sync()
        _ = try await alpha.join("Noise")
        let bobTag = pseudonymTag(try await alpha.resolveOp(bobs.short()).author)
        let selfBlock = await message { _ = try await bob.block(bobTag, on: true) }
        #expect(selfBlock == "that is you")
        _ = try await alpha.block(bobTag, on: true)
        _ = try await alpha.mute("Noise", on: true)
        func check(_ n: Node) async throws {
            #expect(try await n.feed(pack: nil, sort: .new, limit: 10).map(\.title) == ["From carol"])
            #expect(try await n.feed(pack: "Noise", sort: .new, limit: 10).map(\.title) == ["Noisy"])  // named: still shown
            let th = try await n.show(carols.short())
            #expect(th.comments.map(\.removed) == [true, false])  // bob's comment kept as a placeholder for carol's reply
            let b = await n.blocks()
            #expect(b.authors.map { pseudonymTag($0.key) } == [bobTag] && b.packs.map(\.name) == ["Noise"])
        }
        try await check(alpha)
        await alpha.close()
        let c0 = t.clock
        let again = try Node(config: testConfig(t.dirs[0]), now: { c0.now })
        try await check(again)
        _ = try await again.block(bobTag, on: false)
        _ = try await again.mute("Noise", on: false)
        #expect(try await again.feed(pack: nil, sort: .new, limit: 10).count == 3)
        await again.close()
        await t.cleanup()
    }
}

extension Array where Element == UInt8 {
    fileprivate func containsSubsequence(_ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= count else { return false }
        return (0...(count - needle.count)).contains { i in self[i..<(i + needle.count)].elementsEqual(needle) }
    }
}
