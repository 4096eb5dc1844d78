import SkwadTestTraits
import Testing
import SkwadCrypto
import SkwadModel
import SkwadReplica
import SkwadTestKit

/// Everything a user can see, as one comparable value.
struct Snapshot: Equatable {
    let packsNew: [PackSummary]
    let packsPopular: [PackSummary]
    let feedNew: [PostView]
    let feedTop: [PostView]
    let threads: [ThreadView?]
    let dens: [DenView]
}

func snapshot(_ r: Replica, posts: [OpID], authors: [Set<PublicKey>], nowMs: UInt64) -> Snapshot {
    Snapshot(
        packsNew: r.packs(nowMs: nowMs, sort: .new), packsPopular: r.packs(nowMs: nowMs, sort: .popular),
        feedNew: r.feed(sort: .new, limit: 1000, nowMs: nowMs), feedTop: r.feed(sort: .top, limit: 1000, nowMs: nowMs),
        threads: posts.map { r.thread($0, nowMs: nowMs) }, dens: authors.map { r.den(authors: $0, nowMs: nowMs) })
}

/// A random history: a few users in a few packs posting, commenting, voting (and changing
/// their votes, sometimes at the same HLC), deleting, editing and moderating.
struct History {
    var ops: [SignedOp] = []
    var posts: [OpID] = []
    var authors: [Set<PublicKey>] = []
    var nowMs: UInt64 = 0

    init(seed: UInt64, count: Int) {
        var f = OpFactory(seed: seed)
        var rng = SplitMix64(seed: seed ^ 0x5EED)
        let users = (0..<4).map { _ in f.user() }
        let geneses = (0..<3).map { i in f.createPack(by: users[i % users.count], name: "pack\(i)", tags: ["t\(i % 2)"], hideScore: 2) }
        ops += geneses
        var targets: [(op: SignedOp, pack: SignedOp)] = []
        var commentsByPost: [OpID: [SignedOp]] = [:]
        for _ in 0..<count {
            let g = geneses[Int.random(in: 0..<geneses.count, using: &rng)]
            let u = users[Int.random(in: 0..<users.count, using: &rng)]
            let roll = Int.random(in: 0..<100, using: &rng)
            let postsHere = targets.filter { t in
                guard t.pack.id == g.id, case .post = t.op.body.kind else { return false }
                return true
            }
            if roll < 25 || postsHere.isEmpty {
                let p = f.post(by: u, in: g, title: "t\(ops.count)", body: "b")
                ops.append(p); posts.append(p.id); targets.append((p, g))
            } else if roll < 45 {
                let post = postsHere[Int.random(in: 0..<postsHere.count, using: &rng)].op
                let siblings = commentsByPost[post.id] ?? []
                let parent = siblings.isEmpty || Bool.random(using: &rng) ? nil : siblings[Int.random(in: 0..<siblings.count, using: &rng)]
                let c = f.comment(by: u, in: g, on: post, parent: parent, text: "c\(ops.count)")
                ops.append(c); commentsByPost[post.id, default: []].append(c); targets.append((c, g))
            } else if roll < 85 {
                let t = targets.filter { $0.pack.id == g.id }.randomElement(using: &rng)!.op
                let v = f.vote(by: u, in: g, on: t, value: Int32.random(in: -1...1, using: &rng))
                ops.append(v)
                if Bool.random(using: &rng) {  // a concurrent re-vote at the same HLC: ties broken by op id
                    ops.append(f.op(.vote(Vote(target: t.id, value: Int32.random(in: -1...1, using: &rng))), by: u, in: g, hlc: v.hlc))
                }
            } else if roll < 91 {
                let t = targets.filter { $0.pack.id == g.id }.randomElement(using: &rng)!.op
                ops.append(f.op(.delete(Delete(target: t.id)), by: Bool.random(using: &rng) ? u : users[0], in: g))
            } else if roll < 96 {
                let alpha = users[geneses.firstIndex { $0.id == g.id }! % users.count]
                ops.append(
                    f.op(.editPack(EditPack(name: "renamed\(ops.count)", tags: Bool.random(using: &rng) ? ["x"] : nil)), by: alpha, in: g))
            } else {
                let alpha = users[geneses.firstIndex { $0.id == g.id }! % users.count]
                let t = targets.filter { $0.pack.id == g.id }.randomElement(using: &rng)!.op
                ops.append(f.op(.moderate(Moderate(target: t.id, hidden: Bool.random(using: &rng))), by: alpha, in: g))
            }
        }
        authors = users.map { u in Set(geneses.map { f.pseudonym(u, in: $0).publicKey }) }
        nowMs = f.nowMs
    }
}

@Suite(.heavy) struct ConvergenceTests {
    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func randomOrdersWithDuplicatesGiveIdenticalViews(seed: UInt64) {
        let h = History(seed: seed, count: 120)
        var rng = SplitMix64(seed: seed &* 7919)
        var snapshots: [Snapshot] = []
        for _ in 0..<4 {
            var r = Replica()
            var delivery = h.ops + h.ops.filter { _ in Int.random(in: 0..<4, using: &rng) == 0 }  // duplicates
            delivery.shuffle(using: &rng)
            for op in delivery { _ = r.receive(op.envelope.serialized(), nowMs: h.nowMs) }
            #expect(r.pendingCount == 0)
            snapshots.append(snapshot(r, posts: h.posts, authors: h.authors, nowMs: h.nowMs))
        }
        #expect(!snapshots[0].feedNew.isEmpty)
        for s in snapshots.dropFirst() { #expect(s == snapshots[0]) }
    }

    @Test(arguments: [11, 12, 13] as [UInt64])
    func mergeIsCommutativeAssociativeAndIdempotent(seed: UInt64) {
        let h = History(seed: seed, count: 90)
        var rng = SplitMix64(seed: seed)
        var parts = [Replica(), Replica(), Replica()]
        for op in h.ops { _ = parts[Int.random(in: 0..<3, using: &rng)].admit(op, nowMs: h.nowMs) }
        func u(_ a: Replica, _ b: Replica) -> Replica { var x = a; x.merge(b, nowMs: h.nowMs); return x }
        func s(_ r: Replica) -> Snapshot { snapshot(r, posts: h.posts, authors: h.authors, nowMs: h.nowMs) }
        let (a, b, c) = (parts[0], parts[1], parts[2])
        #expect(s(u(a, b)) == s(u(b, a)))
        #expect(s(u(u(a, b), c)) == s(u(a, u(b, c))))
        #expect(s(u(a, a)) == s(a))
        var all = Replica()
        for op in h.ops { _ = all.admit(op, nowMs: h.nowMs) }
        #expect(s(u(u(a, b), c)) == s(all))
    }
}
