import SkwadTestTraits
import Testing
import SkwadCrypto
import SkwadModel
import SkwadReplica
import SkwadTestKit

@Suite(.heavy) struct ViewTests {
    var f = OpFactory(seed: 42)

    mutating func admitAll(_ r: inout Replica, _ ops: [SignedOp]) {
        for op in ops { #expect(r.admit(op, nowMs: f.nowMs).isAdmitted) }
    }

    @Test mutating func lastVotePerVoterCountsAndScoreHidesAtMinusFive() {
        var r = Replica()
        let alice = f.user()
        let g = f.createPack(by: alice)
        let p = f.post(by: alice, in: g)
        admitAll(&r, [g, p])
        let voters = (0..<6).map { _ in f.user() }
        admitAll(&r, [f.vote(by: voters[0], in: g, on: p, value: 1), f.vote(by: voters[0], in: g, on: p, value: 1)])
        #expect(r.score(p.id) == 1)
        admitAll(&r, [f.vote(by: voters[0], in: g, on: p, value: -1)])
        #expect(r.tally(p.id) == (-1, 0, 1))
        admitAll(&r, [f.vote(by: voters[0], in: g, on: p, value: 0)])
        #expect(r.score(p.id) == 0)
        for v in voters.prefix(4) { admitAll(&r, [f.vote(by: v, in: g, on: p, value: -1)]) }
        #expect(r.feed(nowMs: f.nowMs).count == 1)
        admitAll(&r, [f.vote(by: voters[4], in: g, on: p, value: -1)])
        #expect(r.score(p.id) == -5)
        #expect(r.feed(nowMs: f.nowMs).isEmpty)
        #expect(r.thread(p.id, nowMs: f.nowMs)?.post.hidden == .lowScore)
    }

    @Test mutating func onlyTheAuthorCanDeleteAndDeleteWinsForGood() {
        var r = Replica()
        let alice = f.user(), bob = f.user()
        let g = f.createPack(by: alice)
        let p = f.post(by: bob, in: g)
        admitAll(&r, [g, p, f.op(.delete(Delete(target: p.id)), by: alice, in: g)])
        #expect(r.feed(nowMs: f.nowMs).map(\.id) == [p.id])
        admitAll(&r, [f.op(.delete(Delete(target: p.id)), by: bob, in: g), f.vote(by: alice, in: g, on: p, value: 1)])
        #expect(r.feed(nowMs: f.nowMs).isEmpty && r.thread(p.id, nowMs: f.nowMs) == nil)
    }

    @Test mutating func commentTreeShowsRepliesUnderParentsAndPlaceholdersForRemoved() {
        var r = Replica()
        let alice = f.user(), bob = f.user()
        let g = f.createPack(by: alice)
        let p = f.post(by: alice, in: g)
        let c1 = f.comment(by: bob, in: g, on: p, text: "first")
        let c2 = f.comment(by: alice, in: g, on: p, parent: c1, text: "reply")
        let c3 = f.comment(by: alice, in: g, on: p, text: "second")
        admitAll(&r, [g, p, c3, c2, c1])
        let t = r.thread(p.id, nowMs: f.nowMs)!
        #expect(t.comments.map(\.body) == ["first", "reply", "second"])
        #expect(t.comments.map(\.depth) == [0, 1, 0])
        #expect(t.post.commentCount == 3)
        admitAll(&r, [f.op(.delete(Delete(target: c1.id)), by: bob, in: g)])
        let t2 = r.thread(p.id, nowMs: f.nowMs)!
        #expect(t2.comments.map(\.removed) == [true, false, false])
        #expect(t2.comments[0].body.isEmpty && t2.post.commentCount == 2)
    }

    @Test mutating func lifetimeGrowsWithDistinctParticipantsUpToFortyEightHours() {
        #expect(Lifetime.lifetimeMs(distinctParticipants: 0) == 24 * Lifetime.hour)
        #expect(Lifetime.lifetimeMs(distinctParticipants: 5) == 29 * Lifetime.hour)
        #expect(Lifetime.lifetimeMs(distinctParticipants: 100) == 48 * Lifetime.hour)
        var r = Replica()
        let alice = f.user()
        let g = f.createPack(by: alice)
        admitAll(&r, [g, f.post(by: alice, in: g)])
        #expect(r.pack(g.id)?.expiresMs == g.hlc.physicalMs + 24 * Lifetime.hour)
        for _ in 0..<3 { let u = f.user(); admitAll(&r, [f.post(by: u, in: g)]) }
        #expect(r.pack(g.id)?.expiresMs == g.hlc.physicalMs + 27 * Lifetime.hour)
        let at26h = g.hlc.physicalMs + 26 * Lifetime.hour
        #expect(r.isLive(g.id, nowMs: at26h) && !r.isLive(g.id, nowMs: at26h + 2 * Lifetime.hour))
    }

    @Test mutating func packEditsAreLastWriterWinsPerField() {
        var r = Replica()
        let alice = f.user()
        let g = f.createPack(by: alice, name: "old", tags: ["a"])
        let e1 = f.op(.editPack(EditPack(name: "first")), by: alice, in: g)
        let e2 = f.op(.editPack(EditPack(name: "second", color: "red")), by: alice, in: g)
        admitAll(&r, [g, e2, e1])
        let s = r.packs(nowMs: f.nowMs)[0]
        #expect(s.name == "second" && s.color == "red" && s.tags == ["a"])
    }

    @Test mutating func packsSortAndFilter() throws {
        var r = Replica()
        let u = f.user()
        let here = try GeoPoint(lat: 40.0, lon: -80.0)
        let near = f.createPack(
            by: u, name: "near", tags: ["food"], fence: Geofence(center: try GeoPoint(lat: 40.001, lon: -80.0), radiusMeters: 500))
        let far = f.createPack(by: u, name: "far", fence: Geofence(center: try GeoPoint(lat: 41.0, lon: -80.0), radiusMeters: 500))
        let open = f.createPack(by: u, name: "open")
        admitAll(&r, [near, far, open, f.post(by: f.user(), in: far)])
        #expect(r.packs(nowMs: f.nowMs, from: here, sort: .distance).map(\.name) == ["near", "far", "open"])
        #expect(r.packs(nowMs: f.nowMs, sort: .new).map(\.name) == ["open", "far", "near"])
        #expect(r.packs(nowMs: f.nowMs, sort: .popular).first?.name == "far")
        #expect(r.packs(nowMs: f.nowMs, tag: "FOOD").map(\.name) == ["near"])
        let d = r.packs(nowMs: f.nowMs, from: here, sort: .distance)[0].distanceMeters!
        #expect(abs(d - 111.2) < 1)
    }

    @Test mutating func denCollectsOwnPseudonymsAcrossPacks() {
        var r = Replica()
        let me = f.user(), other = f.user()
        let mine = f.createPack(by: me, name: "mine")
        let theirs = f.createPack(by: other, name: "theirs")
        let p1 = f.post(by: me, in: mine), p2 = f.post(by: me, in: theirs)
        let c = f.comment(by: me, in: theirs, on: p2)
        admitAll(
            &r,
            [
                mine, theirs, p1, p2, c, f.vote(by: other, in: theirs, on: p2, value: 1),
                f.vote(by: other, in: theirs, on: c, value: 1), f.vote(by: other, in: mine, on: p1, value: -1)
            ])
        let keys: Set = [f.pseudonym(me, in: mine).publicKey, f.pseudonym(me, in: theirs).publicKey]
        let den = r.den(authors: keys, nowMs: f.nowMs)
        #expect(den.packs.map(\.name) == ["mine"])
        #expect(Set(den.posts.map(\.id)) == [p1.id, p2.id])
        #expect(den.comments.map(\.id) == [c.id])
        #expect(den.totalUpvotes == 2)
    }
}
