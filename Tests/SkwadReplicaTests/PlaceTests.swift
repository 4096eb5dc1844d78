import SkwadTestTraits
import Testing
import SkwadCrypto
import SkwadModel
@testable import SkwadReplica
import SkwadTestKit

/// Issue 27: places, reviews and the landlord's reply; every rule that relates ops is decided
/// in the views (PROTOCOL.md §5, places).
@Suite(.heavy) struct PlaceTests {
    var f = OpFactory(seed: 2727)

    mutating func admitAll(_ r: inout Replica, _ ops: [SignedOp]) {
        for op in ops { #expect(r.admit(op, nowMs: f.nowMs).isAdmitted) }
    }

    @Test mutating func placeReviewAndReplyRoundTripOnTheWire() throws {
        let alpha = f.user(), bob = f.user()
        let g = f.createPack(by: alpha)
        let key = f.pseudonym(bob, in: g).publicKey
        let p = f.place(
            by: alpha, in: g, address: "12 Elm St", city: "Syracuse", zip: "13210", landlord: "Acme", rent: 700,
            rentMax: 900, beds: 3, termMonths: 12, cell: "dr9x", landlordKey: key)
        for kind in [
            p.body.kind, .place(Place(target: p.id, address: "12 Elm Street")),
            .review(
                Review(
                    place: p.id, overallHalf: 7, location: 4, management: 2, amenities: 5, again: true, text: "ok",
                    name: "Kim")),
            .reviewReply(ReviewReply(review: p.id, text: "thanks"))
        ] {
            let op = f.op(kind, by: bob, in: g)
            #expect(try SignedOp.open(op.envelope.serialized()).body.kind == kind)
        }
        #expect(OpKind.reviewReply(ReviewReply(review: p.id, text: "x")).name == "review_reply")
    }

    @Test mutating func everyFieldAtItsLimitStillFitsOneEnvelope() throws {
        let alpha = f.user()
        let g = f.createPack(by: alpha)
        let key = f.pseudonym(alpha, in: g).publicKey
        func s(_ n: Int) -> String { String(repeating: "é", count: n / 2) }
        let place = Place(
            target: g.id, address: s(Limits.maxAddress), city: s(Limits.maxCity), zip: s(Limits.maxZip),
            landlord: s(Limits.maxLandlord), rentMin: Limits.maxRent, rentMax: Limits.maxRent, beds: Limits.maxBeds,
            bathsHalf: Limits.maxBathsHalf, termMonths: Limits.maxTermMonths, cell: "dr9x1234abcd", landlordKey: key)
        let review = Review(
            place: g.id, overallHalf: 10, location: 5, management: 5, amenities: 5, again: true,
            text: s(Limits.maxBody), name: s(Limits.maxReviewName))
        for kind in [OpKind.place(place), .review(review), .reviewReply(ReviewReply(review: g.id, text: s(Limits.maxBody)))] {
            let body = OpBody(packID: g.id, author: key, hlc: HLC(raw: .max), location: "dr9x1234abcd", stamp: .max, kind: kind)
            #expect(try SignedOp.sign(body, with: f.pseudonym(alpha, in: g)).envelope.serialized().count <= Limits.maxEnvelopeBytes)
        }
    }

    @Test mutating func outOfRangeFieldsAreRefusedAtAdmission() {
        let alpha = f.user()
        let g = f.createPack(by: alpha)
        var r = Replica()
        admitAll(&r, [g])
        let bad: [OpKind] = [
            .place(Place(address: " ")), .place(Place(address: "a", rentMin: 900, rentMax: 800)),
            .place(Place(address: "a", rentMin: Limits.maxRent + 1)), .place(Place(address: "a", beds: 21)),
            .place(Place(address: "a", termMonths: 121)), .place(Place(address: String(repeating: "a", count: 121))),
            .review(Review(place: g.id, overallHalf: 11, location: 3, management: 3, amenities: 3, again: false)),
            .review(Review(place: g.id, overallHalf: 4, location: 0, management: 3, amenities: 3, again: false)),
            .review(Review(place: g.id, overallHalf: 4, location: 3, management: 6, amenities: 3, again: false)),
            .reviewReply(ReviewReply(review: g.id, text: "  "))
        ]
        for kind in bad {
            guard case .rejected(let why, _) = r.receive(f.unchecked(kind, by: alpha, in: g), nowMs: f.nowMs) else {
                Issue.record("admitted \(kind)"); continue
            }
            #expect(why == .malformed || why == .tooLarge)
        }
        #expect(r.count == 1)
    }

    // MARK: summaries

    @Test mutating func summaryGivesAveragesDistributionShareAndBayesianAverage() throws {
        let alpha = f.user(), a = f.user(), b = f.user(), c = f.user()
        let g = f.createPack(by: alpha)
        let p1 = f.place(by: alpha, in: g, address: "1 Elm St"), p2 = f.place(by: alpha, in: g, address: "2 Oak St")
        var r = Replica()
        admitAll(
            &r,
            [
                g, p1, p2,
                f.review(by: a, in: g, of: p1.id, overallHalf: 9, location: 5, management: 4, amenities: 3, again: true),
                f.review(by: b, in: g, of: p1.id, overallHalf: 4, location: 2, management: 1, amenities: 3, again: false),
                f.review(by: c, in: g, of: p2.id, overallHalf: 2, location: 1, management: 1, amenities: 1, again: false)
            ])
        let s = try #require(r.place(p1.id, nowMs: f.nowMs)).place.summary
        #expect(s.count == 2)
        #expect(s.overall == 3.25 && s.location == 3.5 && s.management == 2.5 && s.amenities == 3)
        #expect(s.distribution == [0, 0, 1, 0, 1, 0])
        #expect(s.again == 1 && s.againShare == 0.5)
        // Pack mean over the three reviews: (4.5 + 2 + 1) / 3 = 2.5; weight 5.
        #expect(r.placeStats(g.id) == PackPlaceStats(places: 2, reviews: 3, mean: 2.5))
        #expect(s.bayesian == (5 * 2.5 + 6.5) / 7)
        let empty = PlaceSummary(
            count: 0, overall: nil, location: nil, management: nil, amenities: nil,
            distribution: [0, 0, 0, 0, 0, 0], again: 0, againShare: nil, bayesian: nil)
        let g2 = f.createPack(by: alpha), lone = f.place(by: alpha, in: g2)
        admitAll(&r, [g2, lone])
        #expect(r.place(lone.id, nowMs: f.nowMs)?.place.summary == empty)
    }

    @Test mutating func aSecondReviewBySamePseudonymEditsTheFirstAndDeleteRemovesIt() throws {
        let alpha = f.user(), a = f.user()
        let g = f.createPack(by: alpha)
        let p = f.place(by: alpha, in: g)
        let first = f.review(by: a, in: g, of: p.id, overallHalf: 2, text: "bad")
        let second = f.review(by: a, in: g, of: p.id, overallHalf: 8, text: "better now")
        var r = Replica()
        admitAll(&r, [g, p, second, first])
        var d = try #require(r.place(p.id, nowMs: f.nowMs))
        #expect(d.reviews.count == 1 && d.reviews[0].id == second.id && d.reviews[0].edited)
        #expect(d.place.summary.count == 1 && d.place.summary.overall == 4)
        // Deleting the shown review removes the reviewer's review of the place (older ones too)...
        admitAll(&r, [f.op(.delete(Delete(target: second.id)), by: a, in: g)])
        d = try #require(r.place(p.id, nowMs: f.nowMs))
        #expect(d.reviews.isEmpty && d.place.summary.count == 0)
        // ...until a newer one; someone else's delete counts for nothing.
        let third = f.review(by: a, in: g, of: p.id, overallHalf: 6)
        admitAll(&r, [third, f.op(.delete(Delete(target: third.id)), by: alpha, in: g)])
        #expect(r.place(p.id, nowMs: f.nowMs)?.reviews.map(\.id) == [third.id])
    }

    @Test mutating func onlyTheLandlordsReplyCountsAndTheLandlordsReviewDoesNot() throws {
        let alpha = f.user(), landlord = f.user(), a = f.user(), mallory = f.user()
        let g = f.createPack(by: alpha)
        let p = f.place(by: a, in: g, landlordKey: f.pseudonym(landlord, in: g).publicKey)
        let rv = f.review(by: a, in: g, of: p.id, overallHalf: 3)
        let own = f.review(by: landlord, in: g, of: p.id, overallHalf: 10)
        let forged = f.reply(by: mallory, in: g, to: rv.id, text: "I am the landlord")
        let reply = f.reply(by: landlord, in: g, to: rv.id, text: "fixed the heating")
        var r = Replica()
        admitAll(&r, [g, p, rv, own, forged])
        var d = try #require(r.place(p.id, nowMs: f.nowMs))
        #expect(d.reviews.map(\.id) == [rv.id] && d.reviews[0].reply == nil)
        admitAll(&r, [reply])
        d = try #require(r.place(p.id, nowMs: f.nowMs))
        #expect(d.reviews[0].reply?.text == "fixed the heating")
        // The reply stays with the reviewer's review when it is edited; a second reply replaces the first.
        let edit = f.review(by: a, in: g, of: p.id, overallHalf: 5)
        let again = f.reply(by: landlord, in: g, to: edit.id, text: "second word")
        admitAll(&r, [edit])
        #expect(r.place(p.id, nowMs: f.nowMs)?.reviews.first?.reply?.id == reply.id)
        admitAll(&r, [again])
        #expect(r.place(p.id, nowMs: f.nowMs)?.reviews.first?.reply?.id == again.id)
    }

    @Test mutating func onlyTheCreatorOrAModeratorEditsAPlaceAndOnlyAModeratorGrantsTheLandlord() throws {
        let alpha = f.user(), bob = f.user(), mallory = f.user(), landlord = f.user()
        let g = f.createPack(by: alpha)
        let p = f.place(by: bob, in: g, address: "3 Ash St", rent: 500)
        let lkey = f.pseudonym(landlord, in: g).publicKey
        var r = Replica()
        admitAll(
            &r,
            [
                g, p, f.place(by: mallory, in: g, address: "Nowhere", editing: p.id),
                f.place(
                    by: bob, in: g, address: "3 Ash St", rent: 550, landlordKey: f.pseudonym(mallory, in: g).publicKey,
                    editing: p.id)
            ])
        var v = try #require(r.place(p.id, nowMs: f.nowMs)).place
        #expect(v.record.address == "3 Ash St" && v.record.rentMin == 550 && v.edited)
        #expect(v.landlordKey == nil)  // the creator's later record cannot name a landlord
        admitAll(&r, [f.place(by: alpha, in: g, address: "3 Ash Street", rent: 550, landlordKey: lkey, editing: p.id)])
        v = try #require(r.place(p.id, nowMs: f.nowMs)).place
        #expect(v.record.address == "3 Ash Street" && v.landlordKey == lkey)
        // The creator deletes it; a moderator hides it.
        admitAll(&r, [f.op(.delete(Delete(target: p.id)), by: bob, in: g)])
        #expect(r.place(p.id, nowMs: f.nowMs) == nil && r.places(nowMs: f.nowMs).isEmpty)
        let q = f.place(by: bob, in: g, address: "4 Ash St")
        admitAll(&r, [q, f.moderate(by: alpha, in: g, on: q, hidden: true)])
        #expect(r.places(nowMs: f.nowMs).map(\.hidden) == [true])
    }

    @Test mutating func reviewsAndRecordsFromAnotherPackCountNowhere() throws {
        let alpha = f.user(), a = f.user()
        let g = f.createPack(by: alpha), other = f.createPack(by: a)
        let p = f.place(by: alpha, in: g)
        var r = Replica()
        admitAll(
            &r,
            [
                g, other, p, f.review(by: a, in: other, of: p.id, overallHalf: 0),
                f.place(by: a, in: other, address: "hijacked", editing: p.id)
            ])
        let d = try #require(r.place(p.id, nowMs: f.nowMs))
        #expect(d.reviews.isEmpty && d.place.record.address == "1 Elm St")
        #expect(r.placeStats(other.id).reviews == 0)
    }

    @Test mutating func possibleDuplicatesAreFoundByAddressAndZip() {
        let alpha = f.user()
        let g = f.createPack(by: alpha)
        let a = f.place(by: alpha, in: g, address: "12 Elm St.", zip: "13210")
        let b = f.place(by: alpha, in: g, address: "12 elm st", zip: "13210 ")
        let c = f.place(by: alpha, in: g, address: "12 Elm St", zip: "13211")
        var r = Replica()
        admitAll(&r, [g, a, b, c])
        let dups = Dictionary(uniqueKeysWithValues: r.places(nowMs: f.nowMs).map { ($0.id, $0.duplicates) })
        #expect(dups[a.id] == [b.id] && dups[b.id] == [a.id] && dups[c.id] == [])
    }

    @Test mutating func aHiddenReviewCountsNowhere() throws {
        let alpha = f.user(), a = f.user(), b = f.user()
        let g = f.createPack(by: alpha)
        let p = f.place(by: alpha, in: g)
        let spam = f.review(by: a, in: g, of: p.id, overallHalf: 0)
        var r = Replica()
        admitAll(&r, [g, p, spam, f.review(by: b, in: g, of: p.id, overallHalf: 10), f.moderate(by: alpha, in: g, on: spam, hidden: true)])
        // A new review by the same pseudonym stays hidden: hiding covers the reviewer's register.
        admitAll(&r, [f.review(by: a, in: g, of: p.id, overallHalf: 1)])
        let d = try #require(r.place(p.id, nowMs: f.nowMs))
        #expect(d.place.summary.count == 1 && d.place.summary.overall == 5)
        #expect(d.reviews.map(\.hidden) == [false, true])
        #expect(r.placeStats(g.id).mean == 5)
    }

    // MARK: caps

    @Test mutating func perDayAndTotalCapsKeepTheSmallestOps() throws {
        let alpha = f.user(), bot = f.user()
        let g = f.createPack(by: alpha)
        var r = Replica()
        admitAll(&r, [g])
        let places = (0..<(Limits.placesPerDay + 2)).map { i in f.place(by: bot, in: g, address: "\(i) Bot Lane") }
        admitAll(&r, places.reversed())
        #expect(Set(r.places(nowMs: f.nowMs).map(\.id)) == Set(places.prefix(Limits.placesPerDay).map(\.id)))
        // The Alpha is a moderator: no cap on its places.
        admitAll(&r, (0..<(Limits.placesPerDay + 1)).map { i in f.place(by: alpha, in: g, address: "\(i) Alpha Ave") })
        #expect(r.places(nowMs: f.nowMs).count == 2 * Limits.placesPerDay + 1)
        // Reviews: the 11th review op of a day does not count.
        let targets = places.prefix(Limits.placesPerDay).map(\.id)
        var reviews: [SignedOp] = []
        for i in 0...Limits.reviewsPerDay {
            reviews.append(f.review(by: bot, in: g, of: targets[i % targets.count], overallHalf: UInt32(i % 11)))
        }
        admitAll(&r, reviews.shuffled())
        let counted = r.places(nowMs: f.nowMs).reduce(0) { $0 + $1.summary.count }
        #expect(counted == targets.count)
        let last = try #require(r.place(targets[Limits.reviewsPerDay % targets.count], nowMs: f.nowMs))
        #expect(last.reviews.first?.id == reviews[Limits.reviewsPerDay - targets.count].id)
        // Each day has its own budget, but never more than the total in all.
        #expect(DailyCap.excluded(keys(days: 3, each: 4), perDay: 3, total: 100).count == 3)
        #expect(DailyCap.excluded(keys(days: 3, each: 4), perDay: 3, total: 5).count == 7)
    }

    func keys(days: Int, each: Int) -> [PlaceKey] {
        var out: [PlaceKey] = []
        for d in 0..<days {
            for i in 0..<each {
                let hlc = HLC(physicalMs: UInt64(d) * DailyCap.dayMs + UInt64(i), counter: 0)
                out.append(PlaceKey(hlc: hlc, id: OpID.of(body: Array("\(d).\(i)".utf8))))
            }
        }
        return out
    }

    // MARK: convergence

    /// Any order of the same place, review, reply, delete and moderation ops gives the same
    /// places and details on every replica.
    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func anyOrderGivesTheSameSummaries(seed: UInt64) {
        var f = OpFactory(seed: seed)
        var rng = SplitMix64(seed: seed &* 31)
        let users = (0..<6).map { _ in f.user() }
        let g = f.createPack(by: users[0])
        let landlordKey = f.pseudonym(users[1], in: g).publicKey
        var ops = [g]
        var placeIDs: [OpID] = [], reviews: [SignedOp] = []
        for i in 0..<4 {
            let p = f.place(by: users[i % 3], in: g, address: "\(i % 3) Main St", landlordKey: i == 0 ? landlordKey : nil)
            ops.append(p); placeIDs.append(p.id)
        }
        for i in 0..<120 {
            let u = users[Int.random(in: 0..<users.count, using: &rng)]
            let place = placeIDs[Int.random(in: 0..<placeIDs.count, using: &rng)]
            let roll = Int.random(in: 0..<100, using: &rng)
            if roll < 60 || reviews.isEmpty {
                let prev = Bool.random(using: &rng) ? reviews.last?.hlc : nil  // ties at the same hlc, broken by id
                let rv = f.review(
                    by: u, in: g, of: place, overallHalf: UInt32.random(in: 0...10, using: &rng),
                    location: UInt32.random(in: 1...5, using: &rng), management: UInt32.random(in: 1...5, using: &rng),
                    amenities: UInt32.random(in: 1...5, using: &rng), again: Bool.random(using: &rng), text: "r\(i)",
                    hlc: prev)
                ops.append(rv); reviews.append(rv)
            } else if roll < 75 {
                let target = reviews.randomElement(using: &rng)!
                ops.append(f.reply(by: Bool.random(using: &rng) ? users[1] : u, in: g, to: target.id, text: "re\(i)"))
            } else if roll < 85 {
                let target = reviews.randomElement(using: &rng)!
                ops.append(f.op(.delete(Delete(target: target.id)), by: Bool.random(using: &rng) ? u : users[0], in: g))
            } else if roll < 92 {
                ops.append(f.moderate(by: users[0], in: g, on: reviews.randomElement(using: &rng)!, hidden: Bool.random(using: &rng)))
            } else {
                ops.append(
                    f.place(
                        by: u, in: g, address: "edit \(i)", landlordKey: Bool.random(using: &rng) ? landlordKey : nil,
                        editing: place))
            }
        }
        let nowMs = f.nowMs
        func views(_ order: [SignedOp]) -> ([PlaceView], [PlaceDetail?], PackPlaceStats) {
            var r = Replica()
            for op in order { _ = r.admit(op, nowMs: nowMs) }
            #expect(r.count == ops.count)
            return (r.places(nowMs: nowMs), placeIDs.map { r.place($0, nowMs: nowMs) }, r.placeStats(g.id))
        }
        let reference = views(ops)
        #expect(reference.0.contains { $0.summary.count > 0 })
        for _ in 0..<5 {
            let other = views(ops.shuffled(using: &rng))
            #expect(other.0 == reference.0)
            #expect(other.1 == reference.1)
            #expect(other.2 == reference.2)
        }
    }
}
