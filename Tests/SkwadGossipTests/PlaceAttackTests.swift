import Testing
import SkwadCrypto
import SkwadModel
import SkwadReplica
import SkwadGossip
import SkwadTestKit

/// Issue 27's attacks on places and reviews, each pushed by a `HostilePeer` through a real
/// session into a real engine and replica (SECURITY.md "Places, reviews and replies").
@Suite struct PlaceAttackTests {
    static let t0: UInt64 = 1_790_000_000_000

    /// An engine and replica holding `setup`, and a hostile peer with a session to it.
    struct Target {
        var e = GossipEngine(seed: 27, secrets: .seeded)
        var r = Replica(config: .noFloors)
        var peer = HostilePeer(address: PeerAddress("10.0.0.27:7000"), seed: 27)
        var nowMs = PlaceAttackTests.t0

        init(_ setup: [SignedOp]) {
            #expect(peer.handshake(with: &e, nowMs: nowMs, replica: &r))
            for op in setup { #expect(r.admit(op, nowMs: nowMs).isAdmitted) }
        }

        /// One `Ops` message per envelope, `stepMs` apart (below the per-pseudonym rate).
        mutating func push(_ envelopes: [[UInt8]], stepMs: UInt64 = 0) {
            for env in envelopes {
                nowMs += stepMs
                _ = peer.send(WireForge.ops([env]), to: &e, nowMs: nowMs, replica: &r)
            }
        }
    }

    @Test func aForgedReviewIsRefused() throws {
        var f = OpFactory(seed: 1, nowMs: Self.t0, floors: false)
        let alpha = f.user(), student = f.user(), mallory = f.user()
        let g = f.createPack(by: alpha)
        let p = f.place(by: alpha, in: g)
        var t = Target([g, p])
        // A student's review with its text changed after signing ("cold" → "cole"): the signature fails.
        let honest = f.review(by: student, in: g, of: p.id, overallHalf: 2, text: "cold")
        var body = honest.envelope.body
        #expect(body.last == UInt8(ascii: "d"))  // text is the review's last field, the review the body's
        body[body.count - 1] = UInt8(ascii: "e")
        let tampered = Envelope(body: body, signature: honest.envelope.signature).serialized()
        // A review in the student's name signed by mallory's key.
        let studentKey = f.pseudonym(student, in: g).publicKey, malloryKey = f.pseudonym(mallory, in: g)
        let impostor = OpBody(
            packID: g.id, author: studentKey, hlc: f.nextHLC(), stamp: honest.body.stamp,
            kind: .review(Review(place: p.id, overallHalf: 10, location: 5, management: 5, amenities: 5, again: true)))
        let bytes = impostor.serialized()
        let forged = Envelope(body: bytes, signature: malloryKey.sign(bytes)).serialized()
        // A validly signed review out of range (overall 5.5).
        let outOfRange = f.unchecked(
            .review(Review(place: p.id, overallHalf: 11, location: 3, management: 3, amenities: 3, again: true)),
            by: mallory, in: g)
        t.push([tampered, forged, outOfRange])
        #expect(t.e.stats.opsRejected["badSignature"] == 2)
        #expect(t.e.stats.opsRejected["malformed"] == 1)
        #expect(t.r.place(p.id, nowMs: t.nowMs)?.reviews.isEmpty == true)
        // The honest review still goes through the same session.
        t.push([honest.envelope.serialized()])
        #expect(t.r.place(p.id, nowMs: t.nowMs)?.place.summary.overall == 1)
    }

    @Test func aSecondReviewFromTheSamePseudonymEditsTheFirstWhateverTheOrder() throws {
        var f = OpFactory(seed: 2, nowMs: Self.t0, floors: false)
        let alpha = f.user(), a = f.user(), b = f.user()
        let g = f.createPack(by: alpha)
        let p = f.place(by: alpha, in: g)
        let reviews = (0..<8).map { i in f.review(by: a, in: g, of: p.id, overallHalf: UInt32(i), text: "try \(i)") }
        let other = f.review(by: b, in: g, of: p.id, overallHalf: 10)
        var t = Target([g, p])
        t.push((reviews + [other]).reversed().map { $0.envelope.serialized() })
        let d = try #require(t.r.place(p.id, nowMs: t.nowMs))
        #expect(t.e.stats.opsAdmitted == 9)
        // One vote per pseudonym: a's latest (0 + … + 7: the 8th, 3.5 stars) and b's 5.
        #expect(d.place.summary.count == 2 && d.place.summary.overall == (3.5 + 5) / 2)
        #expect(Set(d.reviews.map(\.id)) == [reviews.last!.id, other.id])
    }

    @Test func aReplyByANonLandlordIsIgnored() throws {
        var f = OpFactory(seed: 3, nowMs: Self.t0, floors: false)
        let alpha = f.user(), landlord = f.user(), student = f.user(), mallory = f.user()
        let g = f.createPack(by: alpha)
        let p = f.place(by: alpha, in: g, landlordKey: f.pseudonym(landlord, in: g).publicKey)
        let rv = f.review(by: student, in: g, of: p.id, overallHalf: 3)
        var t = Target([g, p, rv])
        // Mallory replies as if she were the landlord, and names herself landlord in a record
        // (she is neither the creator nor a moderator); the creator's own reply counts neither.
        t.push(
            [
                f.place(by: mallory, in: g, landlordKey: f.pseudonym(mallory, in: g).publicKey, editing: p.id),
                f.reply(by: mallory, in: g, to: rv.id, text: "all lies"),
                f.reply(by: alpha, in: g, to: rv.id, text: "from the creator")
            ].map { $0.envelope.serialized() })
        #expect(t.e.stats.opsAdmitted == 3)  // admitted: admission does not look at other ops
        var d = try #require(t.r.place(p.id, nowMs: t.nowMs))
        #expect(d.reviews.first?.reply == nil && d.place.landlordKey == f.pseudonym(landlord, in: g).publicKey)
        t.push([f.reply(by: landlord, in: g, to: rv.id, text: "fixed").envelope.serialized()])
        d = try #require(t.r.place(p.id, nowMs: t.nowMs))
        #expect(d.reviews.first?.reply?.text == "fixed")
    }

    /// One pseudonym floods reviews, today and backdated into past days: only 10 a day and
    /// 200 in all count, the smallest by (hlc, id), so backdating buys nothing past 200.
    @Test func aReviewFloodCountsOnlyTheDailyAndTotalCaps() throws {
        var f = OpFactory(seed: 4, nowMs: Self.t0, floors: false)
        let alpha = f.user(), bot = f.user()
        let g = f.createPack(by: alpha)
        let places = (0..<330).map { i in f.place(by: alpha, in: g, address: "\(i) Flood St") }  // the Alpha: no place cap
        var t = Target([g] + places)
        let day: UInt64 = 86_400_000  // a UTC day (PROTOCOL §5, places)
        let today = Self.t0 / day * day + day / 2
        var flood: [SignedOp] = []
        for i in 0..<30 {  // today
            flood.append(f.review(by: bot, in: g, of: places[i].id, overallHalf: 10, hlc: HLC(physicalMs: today + UInt64(i), counter: 0)))
        }
        for i in 30..<330 {  // 10 a day over the 30 days before
            let d = UInt64((i - 30) / 10 + 1)
            flood.append(
                f.review(
                    by: bot, in: g, of: places[i].id, overallHalf: 10,
                    hlc: HLC(physicalMs: today - d * day + UInt64(i), counter: 0)))
        }
        t.push(flood.map { $0.envelope.serialized() }, stepMs: 600)
        #expect(t.e.stats.opsAdmitted == 330)  // kept (reconciliation settles), counted in views only
        let counted = t.r.places(nowMs: t.nowMs).filter { $0.summary.count > 0 }
        #expect(counted.count == Limits.reviewsPerPseudonym)
        // The oldest 20 days count; none of today's (they are the largest) do.
        #expect(Set(counted.map(\.id)) == Set(places[130..<330].map(\.id)))
        #expect(t.r.placeStats(g.id).reviews == Limits.reviewsPerPseudonym)
    }
}
