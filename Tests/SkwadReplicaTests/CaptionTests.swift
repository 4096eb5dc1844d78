import Testing
import SkwadCrypto
import SkwadModel
import SkwadReplica
import SkwadTestKit

/// Captions (PROTOCOL §5, "Captions"): an ask's comments are captions, shown picked first, then
/// by score; only the ask's author's last pick counts, and only of a caption on that ask in the
/// same pack. Any arrival order gives the same thread.
@Suite struct CaptionTests {
    @Test func onlyTheAskersLastPickCountsInEveryOrder() throws {
        var f = OpFactory(seed: 28, floors: false)
        let asker = f.user(), bo = f.user(), cy = f.user(), di = f.user()
        let g = f.createPack(by: asker, name: "capgrab")
        let other = f.createPack(by: di, name: "elsewhere")
        let ask = f.op(.post(Post(title: "caption this", body: "", ask: true)), by: asker, in: g)
        let a = f.comment(by: bo, in: g, on: ask, text: "cat on a keyboard")
        let b = f.comment(by: cy, in: g, on: ask, text: "monday")
        let c = f.comment(by: di, in: g, on: ask, text: "same")
        let reply = f.comment(by: bo, in: g, on: ask, parent: b, text: "lol")
        let upsB = [f.vote(by: bo, in: g, on: b, value: 1), f.vote(by: di, in: g, on: b, value: 1)]
        let upC = f.vote(by: bo, in: g, on: c, value: 1)
        let notAsker = f.op(.pick(Pick(ask: ask.id, caption: c.id)), by: cy, in: g)
        // A pick of a reply (no caption), then of b, then of a: the last counts.
        let ofReply = f.op(.pick(Pick(ask: ask.id, caption: reply.id)), by: asker, in: g)
        let firstPick = f.op(.pick(Pick(ask: ask.id, caption: b.id)), by: asker, in: g)
        let lastPick = f.op(.pick(Pick(ask: ask.id, caption: a.id)), by: asker, in: g)
        let foreignPost = f.post(by: di, in: other)
        let foreign = f.comment(by: di, in: other, on: foreignPost)
        let ops = [g, other, ask, a, b, c, reply, upC, notAsker, firstPick, lastPick, ofReply, foreignPost, foreign] + upsB

        var seen: [ThreadView] = []
        var rng = SplitMix64(seed: 5)
        for _ in 0..<6 {
            var r = Replica(config: .noFloors)
            for op in ops.shuffled(using: &rng) { _ = r.admit(op, nowMs: f.nowMs) }
            seen.append(try #require(r.thread(ask.id, nowMs: f.nowMs)))
        }
        #expect(Set(seen.map { "\($0)" }).count == 1)
        let t = seen[0]
        #expect(t.post.isAsk && t.post.picked == a.id)
        // Picked first, then by score (b +2, c +1), the reply under its caption.
        #expect(t.comments.map(\.id) == [a.id, b.id, reply.id, c.id])
        #expect(t.comments.map(\.picked) == [true, false, false, false])
    }

    @Test func aPickOfAnotherPacksCommentOrByAnotherAuthorIsNoPick() throws {
        var f = OpFactory(seed: 29, floors: false)
        let asker = f.user(), bo = f.user()
        let g = f.createPack(by: asker, name: "capgrab")
        let other = f.createPack(by: asker, name: "other")
        let ask = f.op(.post(Post(title: "caption this", body: "", ask: true)), by: asker, in: g)
        let elsewhere = f.op(.comment(Comment(post: ask.id, parent: nil, body: "from afar")), by: bo, in: other)
        let plain = f.post(by: asker, in: g, title: "not an ask")
        let onPlain = f.comment(by: bo, in: g, on: plain)
        var r = Replica(config: .noFloors)
        for op in [g, other, ask, elsewhere, plain, onPlain] { _ = r.admit(op, nowMs: f.nowMs) }
        for op in [
            f.op(.pick(Pick(ask: ask.id, caption: elsewhere.id)), by: asker, in: g),
            f.op(.pick(Pick(ask: ask.id, caption: elsewhere.id)), by: asker, in: other),
            f.op(.pick(Pick(ask: plain.id, caption: onPlain.id)), by: asker, in: g)
        ] {
            #expect(r.admit(op, nowMs: f.nowMs).isAdmitted)
        }
        #expect(r.thread(ask.id, nowMs: f.nowMs)?.post.picked == nil)
        #expect(r.thread(plain.id, nowMs: f.nowMs)?.post.picked == nil && r.thread(plain.id, nowMs: f.nowMs)?.post.isAsk == false)
    }
}
