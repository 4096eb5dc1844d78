import Foundation
import Testing
import SkwadModel
import SkwadReplica
@testable import SkwadNode
@testable import SkwadStore
import SkwadTestKit

/// `inbox`: what happened to your posts, comments and packs since you last looked, kept
/// across restarts (issue 11, part B). Nodes gossip over the in-memory datagram network and share one
/// clock that runs and that the test moves forward by hand.
@Suite(.serialized) struct InboxTests {
    @Test func repliesAndSummedVotesShowOnceAndTheMarkSurvivesARestart() async throws {
        let net = TestNet()
        let a = try await net.add(), b = try await net.add(), c = try await net.add(), d = try await net.add()
        #expect(await net.linked())
        _ = try await a.createPack(name: "Quad", radiusMeters: TestNet.radius, locked: false, tags: [], color: "")
        let post = try await a.post(pack: "Quad", title: "Free pizza", body: "Gates", tags: [])
        #expect(await net.synced())
        #expect(try await a.inbox().items.isEmpty)  // nothing yet: your own ops do not count

        let reply = try await b.comment(on: post.hex, text: "still there?")
        net.clock.advance(ms: 10)
        _ = try await b.vote(on: post.hex, value: 1)
        _ = try await c.vote(on: post.hex, value: 1)
        _ = try await d.vote(on: post.hex, value: -1)
        _ = try await c.vote(on: post.hex, value: -1)  // c changes its mind: its latest vote counts
        let events = Collector<NodeEvent>()
        await a.setEventSink { events.append($0) }
        #expect(await net.synced())
        // Vote events name the post; the last one has the score after all four votes.
        let target = post
        let voteEvents = events.all.filter { if case .voteOnYours = $0 { true } else { false } }
        #expect(!voteEvents.isEmpty && voteEvents.count <= 4)
        #expect(voteEvents.allSatisfy { if case .voteOnYours(target, _) = $0 { true } else { false } })
        #expect(voteEvents.last == .voteOnYours(target: target, score: -1))
        // Ops that come in one batch give one event line for their votes, with the score
        // after all of them (the events the node makes for what the engine admitted).
        let votes = await a.replica.allOps.filter { if case .vote(let v) = $0.body.kind { v.target == post } else { false } }
        let batch = Array(votes)
        #expect(batch.count == 4)
        #expect(await a.events(for: batch, nowMs: net.clock.now) == [.voteOnYours(target: target, score: -1)])
        // Whatever order the votes came in, each voter's latest one counts (c's -1 before its +1).
        let byTime = batch.sorted { ($0.hlc, $0.id) < ($1.hlc, $1.id) }
        for order in [byTime, Array(byTime.reversed())] {
            let summed = await a.opItems(order, nowMs: net.clock.now).map(\.kind)
            #expect(summed == [.votes(target: post, up: 1, down: 2, score: -1)])
        }

        let inbox = try await a.inbox()
        #expect(inbox.items.count == 2)
        guard case .reply(let c1, nil) = inbox.items.first?.kind else { Issue.record("no reply: \(inbox.items)"); return }
        #expect(c1.id == reply && inbox.items[0].about == "Free pizza" && inbox.items[0].targetIsPost)
        #expect(inbox.items[1].kind == .votes(target: post, up: 1, down: 2, score: -1))
        #expect(try await a.inbox().items.isEmpty)  // seen

        // A stops; B replies meanwhile; A starts again and hears of the reply (and only of it).
        let dirA = try #require(net.dirs.first)
        await a.close()
        let later = try await b.comment(on: reply.hex, text: "yes, two boxes left")  // a reply to B's own comment: not for A
        let onA = try await b.comment(on: post.hex, text: "on my way")
        let a2 = try await net.add(dir: dirA)
        #expect(await eventually() { await holds(a2, [later, onA]) })
        let after = try await a2.inbox()
        #expect(after.items.count == 1)
        if case .reply(let c2, nil) = after.items.first?.kind { #expect(c2.id == onA) } else { Issue.record("no reply after restart") }
        #expect(try await a2.inbox().items.isEmpty)
        await net.shutdown()
    }

    @Test func aModeratorHidingYourCommentAndYourPacksEndingAreAnnouncedOnce() async throws {
        let net = TestNet()
        let a = try await net.add(), b = try await net.add()
        #expect(await net.linked())
        let pack = try await a.createPack(name: "Quad", radiusMeters: TestNet.radius, locked: false, tags: [], color: "")
        let post = try await a.post(pack: "Quad", title: "t", body: "b", tags: [])
        #expect(await net.synced())
        _ = try await b.join("Quad")
        let mine = try await b.comment(on: post.hex, text: "a rude remark")
        #expect(await net.synced())
        _ = try await b.inbox()

        // The Alpha hides B's comment: B hears of it, with the reason.
        let (hide, changes) = try await a.sign(.moderate(Moderate(target: mine, hidden: true, reason: "be kind")), in: pack.id)
        try await a.commit(hide, with: changes)
        #expect(await net.synced())
        let hidden = try await b.inbox().items
        #expect(hidden.map(\.kind) == [.moderated(target: mine, hidden: true, reason: "be kind")])

        // Half an hour before the pack expires: "expires in"; then expired; each once.
        // (B's comment made the pack more popular: it lives longer than 24 h.)
        let expires = try #require(await b.packs().first { $0.pack.id == pack.id }?.pack.expiresMs)
        net.clock.advance(ms: expires - 30 * 60_000 - net.clock.now)
        let soon = try await b.inbox().items
        #expect(soon.count == 1)
        if case .pack(let n) = soon.first?.kind {
            #expect(n.kind == .expiring && n.name == "Quad")
        } else {
            Issue.record("no expiry notice")
        }
        #expect(try await b.inbox().items.isEmpty)
        net.clock.advance(ms: 31 * 60_000)
        let gone = try await b.inbox().items
        if case .pack(let n) = gone.first?.kind { #expect(n.kind == .expired) } else { Issue.record("no expired notice") }
        net.clock.advance(ms: 72 * 3_600_000)
        await b.purge()  // the purge does not announce it a second time
        #expect(try await b.inbox().items.isEmpty)
        await net.shutdown()
    }

    @Test func aDeletedPackYouAreInIsAnnouncedEvenWhenPurgedBeforeYouLook() async throws {
        let net = TestNet()
        let a = try await net.add(), b = try await net.add()
        #expect(await net.linked())
        _ = try await a.createPack(name: "Meet", radiusMeters: TestNet.radius, locked: false, tags: [], color: "")
        #expect(await net.synced())
        _ = try await b.join("Meet")
        _ = try await b.inbox()
        _ = try await a.delete("Meet")
        #expect(await net.synced())
        await b.purge()  // gone from memory and the store before B looks
        let items = try await b.inbox().items
        #expect(items.count == 1)
        if case .pack(let n) = items.first?.kind {
            #expect(n.kind == .deleted && n.name == "Meet")
        } else {
            Issue.record("no notice: \(items)")
        }
        #expect(try await b.inbox().items.isEmpty)
        #expect(try await a.inbox().items.isEmpty)  // the Alpha deleted it: nothing to tell it
        await net.shutdown()
    }
}
