import SkwadTestTraits
import Testing
import SkwadCrypto
import SkwadModel
import SkwadReplica
import SkwadTestKit

/// Issue 10, findings 1 and 8: an op counts only against targets of its own pack, and a
/// pseudonym's vote on its own post or comment does not count.
@Suite(.heavy) struct SamePackTests {
    var f = OpFactory(seed: 1010)

    mutating func admitAll(_ r: inout Replica, _ ops: [SignedOp]) {
        for op in ops { #expect(r.admit(op, nowMs: f.nowMs).isAdmitted) }
    }

    @Test mutating func moderationFromAnotherPackDoesNotHideAPost() {
        var r = Replica()
        let victim = f.user(), attacker = f.user()
        let a = f.createPack(by: victim, name: "victims")
        let post = f.post(by: victim, in: a)
        let b = f.createPack(by: attacker, name: "attackers")
        admitAll(&r, [a, post, b])
        // The attacker is the Alpha of its own pack, so admission accepts its Moderate there.
        admitAll(&r, [f.op(.moderate(Moderate(target: post.id, hidden: true)), by: attacker, in: b)])
        #expect(r.feed(packs: [a.id], nowMs: f.nowMs).map(\.id) == [post.id])
        #expect(r.thread(post.id, nowMs: f.nowMs)?.post.hidden == nil)
    }

    @Test mutating func votesFromAnotherPackDoNotCount() {
        var r = Replica()
        let victim = f.user(), attacker = f.user()
        let a = f.createPack(by: victim)
        let post = f.post(by: victim, in: a)
        let b = f.createPack(by: attacker)
        admitAll(&r, [a, post, b])
        for _ in 0..<5 { admitAll(&r, [f.vote(by: f.user(), in: b, on: post, value: -1)]) }
        #expect(r.score(post.id) == 0)
        #expect(r.feed(packs: [a.id], nowMs: f.nowMs).count == 1)
    }

    @Test mutating func commentsAndDeletesFromAnotherPackDoNotShow() {
        var r = Replica()
        let victim = f.user(), attacker = f.user()
        let a = f.createPack(by: victim)
        let post = f.post(by: victim, in: a)
        let b = f.createPack(by: attacker)
        admitAll(&r, [a, post, b])
        admitAll(
            &r,
            [
                f.comment(by: attacker, in: b, on: post, text: "planted"),
                f.op(.delete(Delete(target: post.id)), by: attacker, in: b)
            ])
        let t = r.thread(post.id, nowMs: f.nowMs)
        #expect(t?.comments.isEmpty == true)
        #expect(t?.post.commentCount == 0)
        #expect(!r.isDeleted(post.id))
    }

    @Test mutating func selfVotesDoNotCount() {
        var r = Replica()
        let alice = f.user(), bob = f.user()
        let g = f.createPack(by: alice)
        let p = f.post(by: bob, in: g)
        admitAll(&r, [g, p, f.vote(by: bob, in: g, on: p, value: 1)])
        #expect(r.tally(p.id) == (0, 0, 0))
        admitAll(&r, [f.vote(by: alice, in: g, on: p, value: 1)])
        #expect(r.tally(p.id) == (1, 1, 0))
        let c = f.comment(by: alice, in: g, on: p)
        admitAll(&r, [c, f.vote(by: alice, in: g, on: c, value: 1)])
        #expect(r.thread(p.id, nowMs: f.nowMs)?.comments.first?.score == 0)
    }

    /// Everything a user can see of one pack.
    struct PackViews: Equatable {
        let summaries: [PackSummary]
        let feedNew: [PostView]
        let feedTop: [PostView]
        let threads: [ThreadView?]
        let scores: [Int]
    }

    func views(_ r: Replica, pack: PackID, posts: [OpID], targets: [OpID], nowMs: UInt64) -> PackViews {
        PackViews(
            summaries: r.packs(nowMs: nowMs).filter { $0.id == pack },
            feedNew: r.feed(packs: [pack], sort: .new, limit: 1000, nowMs: nowMs),
            feedTop: r.feed(packs: [pack], sort: .top, limit: 1000, nowMs: nowMs),
            threads: posts.map { r.thread($0, nowMs: nowMs) },
            scores: targets.map { r.score($0) })
    }

    /// Property: adding any ops of other packs, including ones that name pack A's ops as
    /// targets (votes, comments, deletes, moderation by those packs' Alphas), never changes
    /// any view of pack A.
    @Test(arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func opsOfOtherPacksNeverChangeAViewOfPackA(seed: UInt64) {
        let h = History(seed: seed, count: 120)
        let a = h.ops[0]
        var f = OpFactory(seed: seed ^ 0xB0B, nowMs: h.nowMs)
        var rng = SplitMix64(seed: seed &* 31)
        let inA = h.ops.filter { $0.packID == a.id }
        let targetsA = inA.filter { op in
            switch op.body.kind {
            case .post, .comment: true;
            default: false
            }
        }
        let postsA = inA.filter { if case .post = $0.body.kind { true } else { false } }.map(\.id)
        var others = h.ops.filter { $0.packID != a.id }
        // An attacker's own pack (it is its Alpha), aiming everything at pack A.
        let attacker = f.user()
        let b = f.createPack(by: attacker, name: "b")
        others.append(b)
        for _ in 0..<40 {
            guard let t = targetsA.randomElement(using: &rng) else { break }
            switch Int.random(in: 0..<5, using: &rng) {
            case 0: others.append(f.op(.moderate(Moderate(target: t.id, hidden: Bool.random(using: &rng))), by: attacker, in: b))
            case 1: others.append(f.vote(by: f.user(), in: b, on: t, value: Int32.random(in: -1...1, using: &rng)))
            case 2:
                if case .comment(let c) = t.body.kind {
                    others.append(f.op(.comment(Comment(post: c.post, parent: t.id, body: "x")), by: attacker, in: b))
                } else {
                    others.append(f.comment(by: attacker, in: b, on: t, text: "x"))
                }
            case 3: others.append(f.op(.delete(Delete(target: t.id)), by: attacker, in: b))
            default: others.append(f.op(.delete(Delete(target: a.id)), by: attacker, in: b))
            }
        }
        let nowMs = f.nowMs
        var onlyA = Replica()
        for op in inA { _ = onlyA.admit(op, nowMs: nowMs) }
        var all = Replica()
        var delivery = inA + others
        delivery.shuffle(using: &rng)
        var reasons: [String] = []
        for op in delivery {
            if case .rejected(let why, let msg) = all.admit(op, nowMs: nowMs) { reasons.append("\(why) \(msg)") }
        }
        #expect(reasons.isEmpty, "\(reasons.prefix(3))")
        #expect(all.count == Set((inA + others).map(\.id)).count)  // every op admitted (History repeats a few)
        let ids = targetsA.map(\.id)
        #expect(!postsA.isEmpty)
        #expect(
            views(all, pack: a.id, posts: postsA, targets: ids, nowMs: nowMs)
                == views(onlyA, pack: a.id, posts: postsA, targets: ids, nowMs: nowMs))
    }
}
