import Testing
import SkwadCrypto
import SkwadModel
@testable import SkwadReplica
import SkwadTestKit

/// Issue 47: bans (PROTOCOL.md §5, bans). A ban is LWW per (pack, pseudonym) among the
/// moderators' `Ban` ops; while it holds, nothing of the pseudonym counts in that pack's views.
@Suite struct BanTests {
    var f = OpFactory(seed: 4747)

    func rejection(_ o: AdmitOutcome) -> Rejection? { if case .rejected(let r, _) = o { r } else { nil } }

    mutating func admitAll(_ r: inout Replica, _ ops: [SignedOp]) {
        for op in ops { #expect(r.admit(op, nowMs: f.nowMs).isAdmitted) }
    }

    @Test mutating func aBanHidesEverythingOfThePseudonymInItsPackAndAnUnbanRestoresIt() {
        var r = Replica()
        let alpha = f.user(), bob = f.user(), carol = f.user()
        let g = f.createPack(by: alpha)
        let carols = f.post(by: carol, in: g, title: "carol's")
        let bobs = f.post(by: bob, in: g, title: "bob's")
        let comment = f.comment(by: bob, in: g, on: carols, text: "bob comments")
        let vote = f.vote(by: bob, in: g, on: carols, value: 1)
        admitAll(&r, [g, carols, bobs, comment, vote])
        let bobKey = f.pseudonym(bob, in: g).publicKey
        #expect(Set(r.feed(nowMs: f.nowMs).map(\.id)) == [carols.id, bobs.id])
        #expect(r.score(carols.id) == 1)
        admitAll(&r, [f.ban(by: alpha, in: g, author: bobKey, reason: "spam")])
        // Every op of bob's counts for nothing, posted before the ban or after (hlc is the author's claim).
        let later = f.post(by: bob, in: g, title: "after the ban")
        admitAll(&r, [later])
        #expect(r.feed(nowMs: f.nowMs).map(\.id) == [carols.id])
        #expect(r.thread(bobs.id, nowMs: f.nowMs)?.post.hidden == .banned)
        #expect(r.thread(carols.id, nowMs: f.nowMs)?.comments.isEmpty == true)
        #expect(r.score(carols.id) == 0)
        #expect(r.banned(in: g.id) == [bobKey])
        let log = r.moderationLog(g.id)
        #expect(log.map(\.action) == [.ban] && log.first?.subject == bobKey && log.first?.detail == "spam")
        admitAll(&r, [f.ban(by: alpha, in: g, author: bobKey, banned: false)])
        #expect(Set(r.feed(nowMs: f.nowMs).map(\.id)) == [carols.id, bobs.id, later.id])
        #expect(r.score(carols.id) == 1)
        #expect(r.banned(in: g.id).isEmpty)
        #expect(r.moderationLog(g.id).map(\.action) == [.ban, .unban])
    }

    /// Admission keeps bans to moderators; a ban naming a moderator counts for nothing; a ban
    /// names a pseudonym of its own pack only (keyed by (pack, pseudonym)).
    @Test mutating func onlyModeratorsBanAndNeverOutsideTheirPack() {
        let admin = SigningKeyPair.generate()
        var r = Replica(config: ReplicaConfig(adminKeys: [admin.publicKey]))
        let alpha = f.user(), bob = f.user(), mallory = f.user()
        let g = f.createPack(by: alpha)
        let elsewhere = f.createPack(by: mallory, name: "mallory's")
        let p = f.post(by: bob, in: g)
        admitAll(&r, [g, elsewhere, p])
        let bobKey = f.pseudonym(bob, in: g).publicKey
        // A member (bob's target himself included) may not ban.
        #expect(rejection(r.admit(f.ban(by: mallory, in: g, author: bobKey), nowMs: f.nowMs)) == .notAllowed)
        #expect(rejection(r.admit(f.ban(by: bob, in: g, author: f.pseudonym(alpha, in: g).publicKey), nowMs: f.nowMs)) == .notAllowed)
        // Mallory is the Alpha of her own pack: her ban there of bob's key changes nothing in g.
        admitAll(&r, [f.ban(by: mallory, in: elsewhere, author: bobKey)])
        #expect(r.feed(packs: [g.id], nowMs: f.nowMs).map(\.id) == [p.id])
        #expect(r.banned(in: g.id).isEmpty)
        // A ban of the Alpha (by an admin) or of an admin (by the Alpha) counts for nothing.
        let alphaPost = f.post(by: alpha, in: g, title: "alpha")
        let adminPost = f.op(.post(Post(title: "admin", body: "")), by: alpha, in: g, signer: admin)
        admitAll(&r, [alphaPost, adminPost])
        admitAll(&r, [f.ban(by: alpha, in: g, author: alpha.pseudonym(genesisNonce: nonce(g)).publicKey, signer: admin)])
        admitAll(&r, [f.ban(by: alpha, in: g, author: admin.publicKey)])
        #expect(Set(r.feed(packs: [g.id], nowMs: f.nowMs).map(\.id)) == [p.id, alphaPost.id, adminPost.id])
        #expect(r.banned(in: g.id).isEmpty)
        // A ban's reason is bounded like any reason.
        let long = f.unchecked(.ban(Ban(author: bobKey, banned: true, reason: String(repeating: "x", count: 141))), by: alpha, in: g)
        #expect(rejection(r.receive(long, nowMs: f.nowMs)) == .tooLarge)
    }

    func nonce(_ g: SignedOp) -> [UInt8] {
        guard case .createPack(let c) = g.body.kind else { return [] }
        return c.nonce
    }

    /// Bans and unbans by two moderators, delivered in random orders with duplicates: every
    /// replica ends with the same banned set, feed and scores (LWW by (hlc, id)).
    @Test mutating func bansAndUnbansConvergeWhateverTheOrder() {
        let admin = SigningKeyPair.generate()
        let config = ReplicaConfig(adminKeys: [admin.publicKey])
        let alpha = f.user()
        let members = (0..<4).map { _ in f.user() }
        let g = f.createPack(by: alpha)
        var ops: [SignedOp] = [g]
        for m in members {
            let p = f.post(by: m, in: g)
            ops.append(p)
            ops.append(f.vote(by: members[0], in: g, on: p, value: 1))
        }
        var rng = SplitMix64(seed: 47)
        for i in 0..<24 {
            let who = f.pseudonym(members[Int(rng.next() % 4)], in: g).publicKey
            let banned = rng.next() % 2 == 0
            // Some share an hlc: (hlc, id) still orders them.
            let hlc = HLC(physicalMs: f.nowMs + UInt64(i / 2), counter: 0)
            ops.append(f.ban(by: alpha, in: g, author: who, banned: banned, signer: rng.next() % 2 == 0 ? admin : nil, hlc: hlc))
        }
        let nowMs = f.nowMs + 100
        var results: [([PublicKey], [OpID], [Int])] = []
        for round in 0..<6 {
            var order = ops
            if round > 0 { for i in stride(from: order.count - 1, to: 0, by: -1) { order.swapAt(i, Int(rng.next() % UInt64(i + 1))) } }
            if round % 2 == 1 { order += order.prefix(8) }
            var r = Replica(config: config)
            for op in order { _ = r.admit(op, nowMs: nowMs) }
            let feed = r.feed(packs: [g.id], limit: 100, nowMs: nowMs)
            results.append((r.banned(in: g.id), feed.map(\.id).sorted(), feed.sorted { $0.id < $1.id }.map(\.score)))
        }
        #expect(results.allSatisfy { $0.0 == results[0].0 && $0.1 == results[0].1 && $0.2 == results[0].2 })
        // The outcome is the last word per pseudonym.
        var last: [PublicKey: (HLC, OpID, Bool)] = [:]
        for op in ops {
            guard case .ban(let b) = op.body.kind else { continue }
            if let l = last[b.author], (l.0, l.1) > (op.hlc, op.id) { continue }
            last[b.author] = (op.hlc, op.id, b.banned)
        }
        #expect(results[0].0 == last.filter { $0.value.2 }.keys.sorted())
        #expect(results[0].1.count == members.count - results[0].0.count)
    }

    /// The moderators' report queue: per reporter and clock hour only the first five count,
    /// and a banned reporter's reports leave it.
    @Test mutating func theReportQueueIsCappedPerReporterAndDropsBannedReporters() {
        var r = Replica()
        let alpha = f.user(), bob = f.user(), carol = f.user(), dave = f.user()
        let g = f.createPack(by: alpha)
        let p = f.post(by: bob, in: g)
        admitAll(&r, [g, p])
        let base = (f.nowMs / Lifetime.hour) * Lifetime.hour
        let carols = (0..<(Limits.reportsPerHour + 2)).map { i in
            f.report(by: carol, in: g, on: p.id, reason: "r\(i)", hlc: HLC(physicalMs: base + UInt64(i), counter: 0))
        }
        let daves = f.report(by: dave, in: g, on: p.id, reason: "honest", hlc: HLC(physicalMs: base + 1, counter: 1))
        admitAll(&r, carols + [daves])
        let alphaKey = f.pseudonym(alpha, in: g)
        let shown = r.reports(in: g.id, openedWith: alphaKey)
        #expect(shown.filter { $0.reporter == f.pseudonym(carol, in: g).publicKey }.count == Limits.reportsPerHour)
        #expect(shown.map(\.reason).contains("honest"))
        admitAll(&r, [f.ban(by: alpha, in: g, author: f.pseudonym(carol, in: g).publicKey, reason: "report abuse")])
        #expect(r.reports(in: g.id, openedWith: alphaKey).map(\.id) == [daves.id])
    }
}
