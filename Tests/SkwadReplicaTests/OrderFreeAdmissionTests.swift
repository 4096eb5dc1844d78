import SkwadTestTraits
import Testing
import SkwadCrypto
import SkwadModel
import SkwadReplica
import SkwadTestKit

/// Issue 24, finding 2: admission is a pure function of the op and its pack's genesis
/// (PROTOCOL §4). Random op sets — every op kind, location claims on every kind (inside,
/// outside, absent), duplicates, forged and out-of-fence ops, pack deletions — fed to several
/// replicas in random orders give identical op sets and identical views.
@Suite(.heavy) struct OrderFreeAdmissionTests {
    /// A random history over a locked fenced pack and an open one.
    struct Mix {
        var deliveries: [[UInt8]] = []
        var posts: [OpID] = []
        var authors: [Set<PublicKey>] = []
        var nowMs: UInt64 = 0

        init(seed: UInt64, count: Int) throws {
            var f = OpFactory(seed: seed)
            var rng = SplitMix64(seed: seed ^ 0xADD1)
            let users = (0..<4).map { _ in f.user() }
            let center = try GeoPoint(lat: 40.443, lon: -79.944)
            let fence = Geofence(center: center, radiusMeters: 300)
            let inside = try #require(fence.claim(for: center))
            let outside = Geohash.encode(try GeoPoint(lat: 40.60, lon: -79.60), precision: inside.count)
            let locked = f.createPack(by: users[0], name: "locked", fence: fence, locked: true)
            let open = f.createPack(by: users[1], name: "open")
            let geneses = [locked, open]
            deliveries = geneses.map { $0.envelope.serialized() }
            var targets: [(op: SignedOp, pack: SignedOp)] = []
            for i in 0..<count {
                let g = geneses[Int.random(in: 0..<2, using: &rng)]
                let alpha = g.id == locked.id ? users[0] : users[1]
                let u = users[Int.random(in: 0..<users.count, using: &rng)]
                let claim = [inside, outside, nil][Int.random(in: 0..<3, using: &rng)]
                let here = targets.filter { $0.pack.id == g.id }
                let target = here.isEmpty ? nil : here[Int.random(in: 0..<here.count, using: &rng)].op
                let kind: OpKind
                var by = u
                switch Int.random(in: 0..<100, using: &rng) {
                case 0..<25: kind = .post(Post(title: "t\(i)", body: "b"))
                case 25..<40 where target != nil:
                    guard case .post = target!.body.kind else { kind = .vote(Vote(target: target!.id, value: 1)); break }
                    kind = .comment(Comment(post: target!.id, body: "c\(i)"))
                case 40..<60 where target != nil: kind = .vote(Vote(target: target!.id, value: Int32.random(in: -1...1, using: &rng)))
                case 60..<66 where target != nil: kind = .delete(Delete(target: target!.id))
                case 66..<72: kind = .editPack(EditPack(name: "renamed\(i)")); by = Bool.random(using: &rng) ? alpha : u
                case 72..<78 where target != nil:
                    kind = .moderate(Moderate(target: target!.id, hidden: Bool.random(using: &rng))); by = alpha
                case 78..<84 where target != nil: kind = .edit(Edit(target: target!.id, body: "edited\(i)"))
                case 84..<90 where target != nil:
                    let me = f.pseudonym(u, in: g)
                    kind = .report(
                        try Report.seal(
                            ReportContent(target: target!.id, reason: "spam", reporter: me.publicKey, stamp: 0), signer: me,
                            to: [g.author], pack: g.id, carrier: me.publicKey, key: SecureRandom.bytes(AEAD.keyCount),
                            nonce: SecureRandom.bytes(AEAD.nonceCount)))
                case 90..<92 where g.id == open.id: kind = .delete(Delete(target: g.id)); by = alpha
                default: kind = .post(Post(title: "p\(i)", body: "b"))
                }
                let op = f.op(kind, by: by, in: g, location: claim)
                deliveries.append(op.envelope.serialized())
                switch kind {
                case .post: posts.append(op.id); targets.append((op, g))
                case .comment: targets.append((op, g))
                default: break
                }
            }
            // Forged: a valid op with one signature byte flipped.
            var forged = f.post(by: users[2], in: open, location: inside).envelope.serialized()
            forged[forged.count - 1] ^= 1
            deliveries.append(forged)
            authors = users.map { u in Set(geneses.map { f.pseudonym(u, in: $0).publicKey }) }
            nowMs = f.nowMs
        }
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func anyOrderGivesTheSameOpSetAndViews(seed: UInt64) throws {
        let mix = try Mix(seed: seed, count: 150)
        var rng = SplitMix64(seed: seed &* 104_729)
        var sets: [Set<OpID>] = []
        var views: [Snapshot] = []
        var logs: [[ModerationEntry]] = []
        for _ in 0..<5 {
            var r = Replica()
            var order = mix.deliveries + mix.deliveries.filter { _ in Int.random(in: 0..<3, using: &rng) == 0 }
            order.shuffle(using: &rng)
            for bytes in order { _ = r.receive(bytes, nowMs: mix.nowMs) }
            _ = r.purge(nowMs: mix.nowMs)
            sets.append(Set(r.allOps.map(\.id)))
            views.append(snapshot(r, posts: mix.posts, authors: mix.authors, nowMs: mix.nowMs))
            logs.append(r.packIDs().flatMap { r.moderationLog($0) })
        }
        #expect(sets[0].count > 1)
        for i in 1..<sets.count {
            let differ = sets[i].symmetricDifference(sets[0]).count
            #expect(differ == 0, "replica \(i) differs by \(differ) ops")
            let (sameViews, sameLogs) = (views[i] == views[0], logs[i].map(\.id) == logs[0].map(\.id))
            #expect(sameViews, "replica \(i) shows other views")
            #expect(sameLogs, "replica \(i) shows another moderation log")
        }
    }

    /// The order of the finding: an `Edit` claiming a cell far outside a locked fence first,
    /// then a `Post` claiming the same cell. Both orders must give the same answer: refused.
    @Test func aClaimSeenOnAnotherKindWidensNothing() throws {
        var f = OpFactory(seed: 2424)
        let alice = f.user(), mallory = f.user()
        let center = try GeoPoint(lat: 40.443, lon: -79.944)
        let fence = Geofence(center: center, radiusMeters: 300)
        let far = Geohash.encode(try GeoPoint(lat: 41.0, lon: -79.0), precision: 7)
        let g = f.createPack(by: alice, name: "locked", fence: fence, locked: true)
        let mine = f.post(by: mallory, in: g, location: fence.claim(for: center))
        let edit = f.op(.edit(Edit(target: mine.id, body: "x")), by: mallory, in: g, location: far)
        let post = f.post(by: mallory, in: g, location: far)
        for order in [[edit, post], [post, edit]] {
            var r = Replica()
            _ = r.admit(g, nowMs: f.nowMs)
            _ = r.admit(mine, nowMs: f.nowMs)
            let outcomes = order.map { r.admit($0, nowMs: f.nowMs) }
            let (hasPost, hasEdit) = (r.contains(post.id), r.contains(edit.id))
            #expect(!hasPost, "a post claiming \(far) was admitted after \(order.map(\.body.kind.name))")
            #expect(!hasEdit, "an edit claiming \(far) was admitted")
            #expect(outcomes.allSatisfy { !$0.isAdmitted })
        }
    }
}
