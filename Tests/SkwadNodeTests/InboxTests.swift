import Foundation
import Testing
import SkwadModel
import SkwadReplica
@testable import SkwadNode
@testable import SkwadStore

/// `inbox`: what happened to your posts, comments and packs since you last looked, kept
/// across restarts (issue 11, part B).
@Suite struct InboxTests {
    /// Nodes sharing one hand-moved clock, each in its own data directory.
    final class Net: @unchecked Sendable {
        let clock = TestClock()
        var dirs: [String] = []
        func node(_ dir: String? = nil) throws -> Node {
            let d = dir ?? tempDataDir()
            if dir == nil { dirs.append(d) }
            let clock = clock
            return try Node(config: testConfig(d), now: { clock.now })
        }
        deinit { for d in dirs { try? FileManager.default.removeItem(atPath: d) } }
    }

    /// Sends every op `from` committed since the last call to each of `to`.
    func relay(_ ops: Collector<SignedOp>, to nodes: [Node]) async {
        let batch = ops.drain().map(\.bytes)
        for n in nodes { _ = await n.receive(batch) }
    }

    @Test func repliesAndSummedVotesShowOnceAndTheMarkSurvivesARestart() async throws {
        let net = Net()
        let a = try net.node(), b = try net.node(), c = try net.node(), d = try net.node()
        let fromA = Collector<SignedOp>(), fromOthers = Collector<SignedOp>()
        await a.setLocalOpSink { fromA.append($0) }
        for n in [b, c, d] { await n.setLocalOpSink { fromOthers.append($0) } }
        _ = try await a.createPack(name: "Quad", radiusMeters: nil, locked: false, tags: [], color: "")
        let post = try await a.post(pack: "Quad", title: "Free pizza", body: "Gates", tags: [])
        await relay(fromA, to: [b, c, d])
        #expect(try await a.inbox().items.isEmpty)   // nothing yet: your own ops do not count

        let reply = try await b.comment(on: post.hex, text: "still there?")
        net.clock.advance(ms: 10)
        _ = try await b.vote(on: post.hex, value: 1)
        _ = try await c.vote(on: post.hex, value: 1)
        _ = try await d.vote(on: post.hex, value: -1)
        _ = try await c.vote(on: post.hex, value: -1)   // c changes its mind: its latest vote counts
        let events = Collector<NodeEvent>()
        await a.setEventSink { events.append($0) }
        await relay(fromOthers, to: [a])
        // One event line for the four votes of the batch, with the score after all of them.
        let voteEvents = events.all.filter { if case .voteOnYours = $0 { true } else { false } }
        #expect(voteEvents == [.voteOnYours(target: post.short(await a.displayIDLength()), score: -1)])

        let inbox = try await a.inbox()
        #expect(inbox.items.count == 2)
        guard case .reply(let c1, nil) = inbox.items.first?.kind else { Issue.record("no reply: \(inbox.items)"); return }
        #expect(c1.id == reply && inbox.items[0].about == "Free pizza" && inbox.items[0].targetIsPost)
        #expect(inbox.items[1].kind == .votes(target: post, up: 1, down: 2, score: -1))
        #expect(try await a.inbox().items.isEmpty)   // seen

        // A stops; B replies meanwhile; A starts again and hears of the reply (and only of it).
        let dirA = try #require(net.dirs.first)
        await a.close()
        let later = try await b.comment(on: reply.hex, text: "yes, two boxes left")   // a reply to B's own comment: not for A
        let onA = try await b.comment(on: post.hex, text: "on my way")
        _ = later
        let a2 = try net.node(dirA)
        await relay(fromOthers, to: [a2])
        let after = try await a2.inbox()
        #expect(after.items.count == 1)
        if case .reply(let c2, nil) = after.items.first?.kind { #expect(c2.id == onA) } else { Issue.record("no reply after restart") }
        #expect(try await a2.inbox().items.isEmpty)
    }

    @Test func aModeratorHidingYourCommentAndYourPacksEndingAreAnnouncedOnce() async throws {
        let net = Net()
        let a = try net.node(), b = try net.node()
        let fromA = Collector<SignedOp>(), fromB = Collector<SignedOp>()
        await a.setLocalOpSink { fromA.append($0) }
        await b.setLocalOpSink { fromB.append($0) }
        let pack = try await a.createPack(name: "Quad", radiusMeters: nil, locked: false, tags: [], color: "")
        let post = try await a.post(pack: "Quad", title: "t", body: "b", tags: [])
        await relay(fromA, to: [b])
        _ = try await b.join("Quad")
        let mine = try await b.comment(on: post.hex, text: "a rude remark")
        await relay(fromB, to: [a])
        _ = try await b.inbox()

        // The Alpha hides B's comment: B hears of it, with the reason.
        let (hide, changes) = try await a.sign(.moderate(Moderate(target: mine, hidden: true, reason: "be kind")), in: pack.id)
        try await a.commit(hide, with: changes)
        await relay(fromA, to: [b])
        let hidden = try await b.inbox().items
        #expect(hidden.map(\.kind) == [.moderated(target: mine, hidden: true, reason: "be kind")])

        // Half an hour before the pack expires: "expires in"; then expired; each once.
        // (B's comment made the pack more popular: it lives longer than 24 h.)
        let expires = try #require(await b.packs().first { $0.pack.id == pack.id }?.pack.expiresMs)
        net.clock.advance(ms: expires - 30 * 60_000 - net.clock.now)
        let soon = try await b.inbox().items
        #expect(soon.count == 1)
        if case .pack(let n) = soon.first?.kind { #expect(n.kind == .expiring && n.name == "Quad") } else { Issue.record("no expiry notice") }
        #expect(try await b.inbox().items.isEmpty)
        net.clock.advance(ms: 31 * 60_000)
        let gone = try await b.inbox().items
        if case .pack(let n) = gone.first?.kind { #expect(n.kind == .expired) } else { Issue.record("no expired notice") }
        net.clock.advance(ms: 72 * 3_600_000)
        await b.purge()   // the purge does not announce it a second time
        #expect(try await b.inbox().items.isEmpty)
    }

    @Test func aDeletedPackYouAreInIsAnnouncedEvenWhenPurgedBeforeYouLook() async throws {
        let net = Net()
        let a = try net.node(), b = try net.node()
        let fromA = Collector<SignedOp>()
        await a.setLocalOpSink { fromA.append($0) }
        _ = try await a.createPack(name: "Meet", radiusMeters: nil, locked: false, tags: [], color: "")
        await relay(fromA, to: [b])
        _ = try await b.join("Meet")
        _ = try await b.inbox()
        _ = try await a.delete("Meet")
        await relay(fromA, to: [b])
        await b.purge()   // gone from memory and the store before B looks
        let items = try await b.inbox().items
        #expect(items.count == 1)
        if case .pack(let n) = items.first?.kind { #expect(n.kind == .deleted && n.name == "Meet") } else { Issue.record("no notice: \(items)") }
        #expect(try await b.inbox().items.isEmpty)
        #expect(try await a.inbox().items.isEmpty)   // the Alpha deleted it: nothing to tell it
    }
}
