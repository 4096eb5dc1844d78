import SkwadTestTraits
import Testing
import SkwadCrypto
import SkwadModel
@testable import SkwadReplica
import SkwadTestKit

/// Issue 11, part A: hide/unhide by moderators only, edits by the author only, reports
/// sealed to moderators, the report rate, and the same-pack rule for all of them.
@Suite(.heavy) struct ModerationTests {
    var f = OpFactory(seed: 1111)

    func rejection(_ o: AdmitOutcome) -> Rejection? { if case .rejected(let r, _) = o { r } else { nil } }

    mutating func admitAll(_ r: inout Replica, _ ops: [SignedOp]) {
        for op in ops { #expect(r.admit(op, nowMs: f.nowMs).isAdmitted) }
    }

    @Test mutating func editAndReportBodiesRoundTripOnTheWire() throws {
        let alpha = f.user(), bob = f.user()
        let g = f.createPack(by: alpha)
        let p = f.post(by: bob, in: g)
        // An absent field stays absent (only the body changes), an empty body stays empty.
        for kind in [
            OpKind.edit(Edit(target: p.id, body: "new")), .edit(Edit(target: p.id, title: "t")),
            .edit(Edit(target: p.id, title: "t", body: "")),
            .report(
                try Report.seal(
                    ReportContent(target: p.id, reason: "why", reporter: f.pseudonym(bob, in: g).publicKey, stamp: 7),
                    signer: f.pseudonym(bob, in: g), to: [g.author], pack: g.id, carrier: SigningKeyPair.generate().publicKey,
                    key: SecureRandom.bytes(AEAD.keyCount), nonce: SecureRandom.bytes(AEAD.nonceCount))),
            .ban(Ban(author: f.pseudonym(bob, in: g).publicKey, banned: true, reason: "spam")),
            .ban(Ban(author: f.pseudonym(bob, in: g).publicKey, banned: false))
        ] {
            let op = f.op(kind, by: bob, in: g)
            #expect(try SignedOp.open(op.envelope.serialized()).body.kind == kind)
        }
        #expect(OpKind.edit(Edit(target: p.id, body: "x")).name == "edit")
        // A box's content decodes only with a target of 32 bytes and a reason of 1...140 bytes.
        #expect(throws: ModelError.self) { try ReportContent(serialized: [0x0a, 0x01, 0x00]) }
        let me = f.pseudonym(bob, in: g).publicKey
        #expect(throws: ModelError.self) {
            try ReportContent(serialized: ReportContent(target: p.id, reason: "", reporter: me, stamp: 1).serialized())
        }
        var noReporter = ReportContent(target: p.id, reason: "x", reporter: me, stamp: 1).serialized()
        noReporter.removeLast(2 + 32 + 9)  // the reporter and stamp fields
        #expect(throws: ModelError.self) { try ReportContent(serialized: noReporter) }
    }

    // MARK: hide and unhide

    @Test mutating func onlyTheAlphaOrAnAdminHidesAndRestores() {
        let admin = SigningKeyPair.generate()
        var r = Replica(config: ReplicaConfig(adminKeys: [admin.publicKey]))
        let alpha = f.user(), bob = f.user(), mallory = f.user()
        let g = f.createPack(by: alpha)
        let p = f.post(by: bob, in: g)
        admitAll(&r, [g, p])
        // A member who is not a moderator: refused at admission, the post stays.
        #expect(rejection(r.admit(f.moderate(by: mallory, in: g, on: p, hidden: true), nowMs: f.nowMs)) == .notAllowed)
        #expect(r.feed(nowMs: f.nowMs).map(\.id) == [p.id])
        // The post's own author is no moderator either.
        #expect(rejection(r.admit(f.moderate(by: bob, in: g, on: p, hidden: true), nowMs: f.nowMs)) == .notAllowed)
        admitAll(&r, [f.moderate(by: alpha, in: g, on: p, hidden: true, reason: "off topic")])
        #expect(r.feed(nowMs: f.nowMs).isEmpty)
        #expect(r.thread(p.id, nowMs: f.nowMs)?.post.hidden == .moderated)
        admitAll(&r, [f.moderate(by: alpha, in: g, on: p, hidden: false, signer: admin)])
        #expect(r.feed(nowMs: f.nowMs).map(\.id) == [p.id])
        let log = r.moderationLog(g.id)
        #expect(log.map(\.action) == [.hide, .unhide])
        #expect(log.map(\.role) == [.alpha, .admin])
        #expect(log.first?.detail == "off topic")
    }

    // MARK: edits

    @Test mutating func anEditByAnyoneButTheAuthorChangesNothing() {
        var r = Replica()
        let alpha = f.user(), bob = f.user(), mallory = f.user()
        let g = f.createPack(by: alpha)
        let p = f.post(by: bob, in: g, title: "original", body: "text")
        let c = f.comment(by: bob, in: g, on: p, text: "first")
        // Admitted (admission does not look at other ops) but never shown: not the author.
        admitAll(
            &r,
            [
                g, p, c, f.edit(by: mallory, in: g, on: p, title: "pwned", body: "pwned"),
                f.edit(by: alpha, in: g, on: c, body: "the Alpha cannot edit either")
            ])
        let t = r.thread(p.id, nowMs: f.nowMs)
        #expect(t?.post.title == "original" && t?.post.body == "text" && t?.post.edited == false)
        #expect(t?.comments.first?.body == "first" && t?.comments.first?.edited == false)
        admitAll(&r, [f.edit(by: bob, in: g, on: p, title: "fixed"), f.edit(by: bob, in: g, on: c, body: "second")])
        let u = r.thread(p.id, nowMs: f.nowMs)
        #expect(u?.post.title == "fixed" && u?.post.body == "text" && u?.post.edited == true)
        #expect(u?.comments.first?.body == "second" && u?.comments.first?.edited == true)
        #expect(r.feed(nowMs: f.nowMs).first?.title == "fixed")
    }

    @Test mutating func anEditFromAnotherPackChangesNothing() {
        // An admin key is the same in every pack: its edit in pack B of its post in pack A
        // must not count (same-pack rule).
        let admin = SigningKeyPair.generate()
        var r = Replica(config: ReplicaConfig(adminKeys: [admin.publicKey]))
        let u = f.user()
        let a = f.createPack(by: u, name: "a", signer: admin)
        let b = f.createPack(by: u, name: "b", signer: admin)
        let p = f.op(.post(Post(title: "in a", body: "")), by: u, in: a, signer: admin)
        admitAll(&r, [a, b, p, f.edit(by: u, in: b, on: p, title: "from b", signer: admin)])
        #expect(r.thread(p.id, nowMs: f.nowMs)?.post.title == "in a")
        #expect(r.thread(p.id, nowMs: f.nowMs)?.post.edited == false)
    }

    @Test mutating func editsConvergeWhateverTheOrder() {
        let alpha = f.user(), bob = f.user()
        let g = f.createPack(by: alpha)
        let p = f.post(by: bob, in: g, title: "t0", body: "b0")
        // Two edits with the same hlc: the op id breaks the tie; fields are LWW separately.
        let h = f.nextHLC()
        var edits = [
            f.edit(by: bob, in: g, on: p, title: "t1", hlc: h), f.edit(by: bob, in: g, on: p, title: "t2", hlc: h),
            f.edit(by: bob, in: g, on: p, body: "b1"), f.edit(by: bob, in: g, on: p, title: "t3", body: "b2"),
            f.edit(by: bob, in: g, on: p, body: "b3")
        ]
        var seen = Set<String>()
        var rng = SplitMix64(seed: 7)
        for _ in 0..<12 {
            var r = Replica()
            admitAll(&r, [g, p])
            for i in stride(from: edits.count - 1, to: 0, by: -1) { edits.swapAt(i, Int(rng.next() % UInt64(i + 1))) }
            for e in edits + edits.prefix(2) { _ = r.admit(e, nowMs: f.nowMs) }  // duplicates too
            let v = r.thread(p.id, nowMs: f.nowMs)!.post
            seen.insert(v.title + "|" + v.body)
        }
        #expect(seen == ["t3|b3"])
    }

    @Test mutating func malformedEditsAreRejected() {
        var r = Replica()
        let alpha = f.user(), bob = f.user()
        let g = f.createPack(by: alpha)
        let p = f.post(by: bob, in: g)
        admitAll(&r, [g, p])
        let empty = f.unchecked(.edit(Edit(target: p.id)), by: bob, in: g)
        #expect(rejection(r.receive(empty, nowMs: f.nowMs)) == .malformed)
        let blankTitle = f.unchecked(.edit(Edit(target: p.id, title: "  ")), by: bob, in: g)
        #expect(rejection(r.receive(blankTitle, nowMs: f.nowMs)) == .malformed)
        let huge = f.unchecked(.edit(Edit(target: p.id, body: String(repeating: "x", count: Limits.maxBody + 1))), by: bob, in: g)
        #expect(rejection(r.receive(huge, nowMs: f.nowMs)) == .tooLarge)
        #expect(r.thread(p.id, nowMs: f.nowMs)?.post.edited == false)
    }

    // MARK: reports

    @Test mutating func aReportOpensOnlyForTheModerators() {
        let admin = SigningKeyPair.generate()
        var r = Replica(config: ReplicaConfig(adminKeys: [admin.publicKey]))
        let alpha = f.user(), bob = f.user(), carol = f.user()
        let g = f.createPack(by: alpha)
        let p = f.post(by: bob, in: g, title: "bad post")
        let to = Report.recipients(alpha: g.author, adminKeys: [admin.publicKey])
        #expect(to == [g.author, admin.publicKey])
        let rep = f.report(by: carol, in: g, on: p.id, reason: "harassment", to: to)
        admitAll(&r, [g, p, rep])
        let alphaKey = f.pseudonym(alpha, in: g)
        let seen = r.reports(in: g.id, openedWith: alphaKey)
        #expect(seen.map(\.reason) == ["harassment"])
        // The moderator learns who reported (the sealed, signed pseudonym); the op's own author
        // is a one-off key, not carol's pseudonym, and nobody else can tell who it was.
        #expect(seen.first?.reporter == f.pseudonym(carol, in: g).publicKey)
        #expect(rep.author != f.pseudonym(carol, in: g).publicKey)
        #expect(!rep.envelope.body.containsSubsequence(f.pseudonym(carol, in: g).publicKey.bytes))
        #expect(seen.first?.target == p.id && seen.first?.excerpt == "bad post")
        #expect(r.reports(in: g.id, openedWith: admin).map(\.reason) == ["harassment"])
        // Anyone else (the reported author, another member) opens nothing, even with the op in hand.
        for other in [bob, carol] {
            let k = f.pseudonym(other, in: g)
            #expect(r.reports(in: g.id, openedWith: k).isEmpty)
            guard case .report(let sealed) = rep.body.kind else { Issue.record("not a report"); return }
            #expect(sealed.open(with: k, pack: g.id, carrier: rep.author) == nil)
            // The plaintext does not appear in the op's bytes.
            #expect(!rep.envelope.body.containsSubsequence(Array("harassment".utf8)))
        }
        // A relay holds it (its id is in the pack) without reading it.
        #expect(r.reportIDs(in: g.id) == [rep.id])
    }

    @Test mutating func aReportOfAnotherPacksPostIsIgnored() {
        var r = Replica()
        let alpha = f.user(), bob = f.user()
        let a = f.createPack(by: alpha, name: "a")
        let b = f.createPack(by: alpha, name: "b")
        let p = f.post(by: bob, in: a)
        // Sealed to b's Alpha, sent in b, naming a's post.
        let rep = f.report(by: bob, in: b, on: p.id)
        admitAll(&r, [a, b, p, rep])
        #expect(r.reports(in: b.id, openedWith: f.pseudonym(alpha, in: b)).isEmpty)
        #expect(r.reports(in: a.id, openedWith: f.pseudonym(alpha, in: a)).isEmpty)
    }

    @Test mutating func malformedReportsAreRejected() {
        var r = Replica()
        let alpha = f.user(), bob = f.user()
        let g = f.createPack(by: alpha)
        let p = f.post(by: bob, in: g)
        admitAll(&r, [g, p])
        guard case .report(let good) = f.report(by: bob, in: g, on: p.id).body.kind else { Issue.record("not a report"); return }
        let tooMany = Report(keys: Array(repeating: good.keys[0], count: Limits.maxReportRecipients + 1), box: good.box)
        #expect(rejection(r.receive(f.unchecked(.report(tooMany), by: bob, in: g), nowMs: f.nowMs)) == .malformed)
        #expect(rejection(r.receive(f.unchecked(.report(Report(keys: [], box: good.box)), by: bob, in: g), nowMs: f.nowMs)) == .malformed)
        let longKey = Report(keys: [good.keys[0] + [0]], box: good.box)
        #expect(rejection(r.receive(f.unchecked(.report(longKey), by: bob, in: g), nowMs: f.nowMs)) == .malformed)
        let shortBox = Report(keys: good.keys, box: Array(good.box.dropLast()))
        #expect(rejection(r.receive(f.unchecked(.report(shortBox), by: bob, in: g), nowMs: f.nowMs)) == .malformed)
        // Garbage of the right sizes is admitted (nobody can tell) but opens for no one.
        let junk = Report(keys: [[UInt8](repeating: 7, count: Limits.reportKeyBox)], box: [UInt8](repeating: 9, count: Limits.reportBox))
        #expect(r.receive(f.unchecked(.report(junk), by: bob, in: g), nowMs: f.nowMs).isAdmitted)
        #expect(r.reports(in: g.id, openedWith: f.pseudonym(alpha, in: g)).isEmpty)
    }

    /// A report whose content names a reporter that did not sign it (a hostile peer framing
    /// someone), or that is moved under another carrier, opens for no moderator.
    @Test mutating func aForgedReporterIsNotBelieved() {
        var r = Replica()
        let alpha = f.user(), bob = f.user(), carol = f.user(), mallory = f.user()
        let g = f.createPack(by: alpha)
        let p = f.post(by: bob, in: g)
        let framed = f.report(by: carol, in: g, on: p.id, signer: f.pseudonym(mallory, in: g))
        let honest = f.report(by: carol, in: g, on: p.id)
        guard case .report(let sealed) = honest.body.kind else { Issue.record("not a report"); return }
        // The same sealed report under another one-off key: the box is bound to its carrier.
        let moved = f.op(.report(sealed), by: mallory, in: g, signer: SigningKeyPair.generate())
        admitAll(&r, [g, p, framed, honest, moved])
        let seen = r.reports(in: g.id, openedWith: f.pseudonym(alpha, in: g))
        #expect(seen.map(\.id) == [honest.id])
        #expect(seen.first?.reporter == f.pseudonym(carol, in: g).publicKey)
    }

    @Test mutating func aReportSealedToEveryModeratorFitsOneOp() throws {
        var r = Replica()
        let alpha = f.user(), bob = f.user()
        let g = f.createPack(by: alpha)
        let admins = (0..<3).map { _ in SigningKeyPair.generate().publicKey }
        let p = f.post(by: bob, in: g)
        let me = f.pseudonym(bob, in: g), carrier = SigningKeyPair.generate()
        let sealed = try Report.seal(
            ReportContent(target: p.id, reason: String(repeating: "r", count: Limits.maxReason), reporter: me.publicKey, stamp: .max),
            signer: me, to: Report.recipients(alpha: g.author, adminKeys: Set(admins)), pack: g.id, carrier: carrier.publicKey,
            key: SecureRandom.bytes(AEAD.keyCount), nonce: SecureRandom.bytes(AEAD.nonceCount))
        #expect(sealed.keys.count == Limits.maxReportRecipients)
        #expect(sealed.keys.allSatisfy { $0.count == Limits.reportKeyBox } && sealed.box.count == Limits.reportBox)
        let op = f.op(.report(sealed), by: bob, in: g, location: String(repeating: "u", count: Limits.maxGeohash), signer: carrier)
        #expect(op.envelope.serialized().count <= Limits.maxEnvelopeBytes)
        admitAll(&r, [g, p, op])
        // A short reason gives a box of the same size: its length says nothing.
        let short = try Report.seal(
            ReportContent(target: p.id, reason: "x", reporter: me.publicKey, stamp: 1), signer: me, to: [g.author], pack: g.id,
            carrier: carrier.publicKey, key: SecureRandom.bytes(AEAD.keyCount), nonce: SecureRandom.bytes(AEAD.nonceCount))
        #expect(short.box.count == sealed.box.count)
    }

    /// Rule 8a: a pseudonym's reports count `reportsPerHour` per pack and clock hour, the
    /// smallest (hlc, id) kept, so replicas keep the same ones whatever the arrival order.
    @Test mutating func theReportRateKeepsTheSameReportsEverywhere() {
        let alpha = f.user(), spammer = f.user()
        let g = f.createPack(by: alpha)
        let p = f.post(by: alpha, in: g)
        // Rule 8a bounds an op author: here one carrier key used for every report.
        let carrier = SigningKeyPair.generate()
        let n = Limits.reportsPerHour + 3
        let base = (f.nowMs / Lifetime.hour + 1) * Lifetime.hour  // the start of the next clock hour
        let reports = (0..<n).map { i in
            f.report(by: spammer, in: g, on: p.id, reason: "r\(i)", hlc: HLC(physicalMs: base + UInt64(i), counter: 0), carrier: carrier)
        }
        let nowMs = base + 10
        // In order: the first five count, the rest are refused.
        var r1 = Replica()
        for op in [g, p] { _ = r1.admit(op, nowMs: nowMs) }
        var outcomes: [Rejection?] = []
        for op in reports { outcomes.append(rejection(r1.admit(op, nowMs: nowMs))) }
        #expect(
            outcomes == Array(repeating: nil, count: Limits.reportsPerHour)
                + Array(repeating: .reportLimited, count: n - Limits.reportsPerHour))
        // In reverse: each earlier one evicts a later one; the same five are kept.
        var r2 = Replica()
        for op in [g, p] { _ = r2.admit(op, nowMs: nowMs) }
        for op in reports.reversed() { _ = r2.admit(op, nowMs: nowMs) }
        #expect(Set(r1.reportIDs(in: g.id)) == Set(reports.prefix(Limits.reportsPerHour).map(\.id)))
        #expect(Set(r2.reportIDs(in: g.id)) == Set(r1.reportIDs(in: g.id)))
        #expect(Set(r2.takeEvicted().map(\.id)) == Set(reports.suffix(n - Limits.reportsPerHour).map(\.id)))
        #expect(r1.takeEvicted().isEmpty)
        #expect(r2.count == r1.count)
        // An evicted report offered again is refused, not re-admitted.
        #expect(rejection(r2.admit(reports.last!, nowMs: nowMs)) == .reportLimited)
        // The next hour has its own allowance; another pseudonym has its own.
        let later = f.report(by: spammer, in: g, on: p.id, hlc: HLC(physicalMs: base + Lifetime.hour, counter: 0), carrier: carrier)
        #expect(r1.admit(later, nowMs: base + Lifetime.hour).isAdmitted)
        let other = f.report(by: f.user(), in: g, on: p.id, hlc: HLC(physicalMs: base + 1, counter: 0))
        #expect(r1.admit(other, nowMs: nowMs).isAdmitted)
        // Restoring from a store that still has every row keeps the same five.
        var r3 = Replica()
        r3.restore([g, p] + reports.reversed())
        #expect(Set(r3.reportIDs(in: g.id)) == Set(reports.prefix(Limits.reportsPerHour).map(\.id)))
    }

    /// Rule 8a's window: backdating reports into past hours buys nothing. Only the hours
    /// within 24 of the pseudonym's newest report count, whatever the order.
    @Test mutating func backdatedReportsCountOnlyWithinADayOfTheNewest() {
        let alpha = f.user(), spammer = f.user()
        let g = f.createPack(by: alpha)
        let p = f.post(by: alpha, in: g)
        let carrier = SigningKeyPair.generate()
        let nowMs = f.nowMs
        let newest = nowMs / Lifetime.hour
        // One report in each of the last 30 hours (the oldest before the pack: the rule does
        // not care), two per hour.
        var reports: [SignedOp] = []
        for back in 0..<30 {
            for k in 0..<2 {
                reports.append(
                    f.report(
                        by: spammer, in: g, on: p.id, hlc: HLC(physicalMs: (newest - UInt64(back)) * Lifetime.hour + UInt64(k), counter: 0),
                        carrier: carrier)
                )
            }
        }
        let inWindow = Set(reports.filter { $0.hlc.physicalMs / Lifetime.hour + Limits.reportWindowHours > newest }.map(\.id))
        #expect(inWindow.count == 2 * Int(Limits.reportWindowHours))
        var sets: [Set<OpID>] = []
        var rng = SplitMix64(seed: 9)
        for round in 0..<4 {
            var r = Replica()
            for op in [g, p] { _ = r.admit(op, nowMs: nowMs) }
            var order = reports
            if round == 1 { order.reverse() }
            if round >= 2 { for i in stride(from: order.count - 1, to: 0, by: -1) { order.swapAt(i, Int(rng.next() % UInt64(i + 1))) } }
            for op in order { _ = r.admit(op, nowMs: nowMs) }
            sets.append(Set(r.reportIDs(in: g.id)))
            // Once the newest hour is known, an older one is refused outright.
            let old = f.report(
                by: spammer, in: g, on: p.id, hlc: HLC(physicalMs: (newest - Limits.reportWindowHours) * Lifetime.hour, counter: 9),
                carrier: carrier)
            #expect(rejection(r.admit(old, nowMs: nowMs)) == .reportLimited)
        }
        #expect(sets.allSatisfy { $0 == inWindow })
    }
}

extension Array where Element == UInt8 {
    func containsSubsequence(_ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= count else { return false }
        for i in 0...(count - needle.count) where Array(self[i..<(i + needle.count)]) == needle { return true }
        return false
    }
}
