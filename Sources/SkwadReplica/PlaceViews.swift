import SkwadCrypto
import SkwadModel

/// The rating figures of a place (PROTOCOL.md §5, places): over the counting reviews only.
public struct PlaceSummary: Sendable, Equatable {
    public let count: Int
    /// Averages on 0...5 (overall) and 1...5 (the others); nil without reviews.
    public let overall: Double?
    public let location: Double?
    public let management: Double?
    public let amenities: Double?
    /// Reviews by whole stars of their overall rating: index 0 holds 0...0.5, index 5 holds 5.
    public let distribution: [Int]
    /// Reviewers who would live there again, and their share of `count` (nil without reviews).
    public let again: Int
    public let againShare: Double?
    /// `(w × m + Σ overall) / (w + count)`, m the pack's mean overall rating over every
    /// counting review of its visible places and w = `PlaceRating.priorWeight`; nil when the
    /// place has no counting review (the mean of other places says nothing of this one).
    public let bayesian: Double?
}

public enum PlaceRating {
    /// The weight of the pack's mean in the Bayesian average: as many reviews' worth.
    public static let priorWeight = 5
}

/// A place as shown: its current record (the latest counting record) and its figures.
public struct PlaceView: Sendable, Equatable {
    public let id: OpID
    public let pack: PackID
    public let packName: String
    /// Who added it.
    public let creator: PublicKey
    public let role: AuthorRole?
    /// When it was added.
    public let hlc: HLC
    /// The current record (its `target` is nil).
    public let record: Place
    /// The pseudonym whose replies count (nil: none).
    public let landlordKey: PublicKey?
    /// A later record by its creator or a moderator replaced the first.
    public let edited: Bool
    /// Hidden by a moderator: its reviews count nowhere.
    public let hidden: Bool
    public let summary: PlaceSummary
    /// Other visible places of the pack with the same address (letters and digits compared,
    /// case folded) and zip: possible duplicates, by id.
    public let duplicates: [OpID]
}

/// One reviewer's review of a place as shown: its latest counting review op.
public struct ReviewView: Sendable, Equatable {
    /// The op shown (a reply or a delete may name any of the reviewer's reviews of the place).
    public let id: OpID
    public let place: OpID
    public let author: PublicKey
    public let role: AuthorRole?
    public let hlc: HLC
    public let review: Review
    /// The reviewer wrote more than one counting review of the place (the latest shows).
    public let edited: Bool
    /// Hidden by a moderator: shown only to say so, counted nowhere.
    public let hidden: Bool
    /// The landlord's reply (a node may leave out one by a pseudonym its user blocked).
    public var reply: ReplyView?
}

public struct ReplyView: Sendable, Equatable {
    public let id: OpID
    public let author: PublicKey
    public let hlc: HLC
    public let text: String
}

public struct PlaceDetail: Sendable, Equatable {
    public let place: PlaceView
    /// Newest first (by the shown op's (hlc, id)); hidden reviews last.
    public let reviews: [ReviewView]
    public init(place: PlaceView, reviews: [ReviewView]) { self.place = place; self.reviews = reviews }
}

/// What a pack's places add up to.
public struct PackPlaceStats: Sendable, Equatable {
    public let places: Int
    public let reviews: Int
    /// The prior of the Bayesian averages: mean overall rating over the pack's counting reviews.
    public let mean: Double?
}

/// Every place rule of one pack resolved at once (PROTOCOL.md §5, places). A function of the
/// pack's ops and the admin keys only, so any order of the same ops gives the same book.
struct PlaceBook {
    struct Register { var shown: SignedOp; var review: Review; var counting: Int; var hidden: Bool; var reply: ReplyView? }
    struct Entry {
        var add: SignedOp; var record: Place; var landlord: PublicKey?; var edited: Bool; var hidden: Bool
        var reviews: [PublicKey: Register] = [:]
    }
    var entries: [OpID: Entry] = [:]
    var mean: Double?
    var reviewCount = 0
}

extension Replica {
    func placeBook(_ pack: PackState) -> PlaceBook {
        let ix = pack.places
        var excluded = Set<OpID>()
        for (who, keys) in ix.placeOpsBy where !isModerator(who, of: pack) {
            excluded.formUnion(DailyCap.excluded(keys, perDay: Limits.placesPerDay, total: Limits.placesPerPseudonym))
        }
        for (_, keys) in ix.reviewOpsBy {
            excluded.formUnion(DailyCap.excluded(keys, perDay: Limits.reviewsPerDay, total: Limits.reviewsPerPseudonym))
        }
        for (_, keys) in ix.replyOpsBy {
            excluded.formUnion(DailyCap.excluded(keys, perDay: Limits.repliesPerDay, total: Limits.repliesPerPseudonym))
        }
        // A banned pseudonym's places, reviews and replies count nowhere (PROTOCOL.md §5, bans).
        for who in pack.bans.keys where isBanned(who, in: pack) {
            for keys in [ix.placeOpsBy[who], ix.reviewOpsBy[who], ix.replyOpsBy[who]] { excluded.formUnion((keys ?? []).map(\.id)) }
        }
        func deleted(_ op: SignedOp) -> Bool { pack.deleteRequests[op.id]?.contains(op.author) ?? false }
        func hidden(_ id: OpID) -> Bool { pack.moderation[id]?.value == true }
        func later(_ a: SignedOp, _ b: SignedOp) -> Bool { (a.hlc, a.id) > (b.hlc, b.id) }

        var book = PlaceBook()
        var sumHalves = 0
        for (pid, add) in ix.places where !excluded.contains(pid) && !deleted(add) {
            guard case .place(var record) = add.body.kind else { continue }
            var landlord = record.landlordKey, landlordSetBy: SignedOp?, edited = false, shown = add
            for e in ix.edits[pid] ?? [] where !excluded.contains(e.id) {
                guard case .place(let r) = e.body.kind else { continue }
                let moderator = isModerator(e.author, of: pack)
                guard e.author == add.author || moderator else { continue }
                edited = true
                if later(e, shown) { shown = e; record = r }
                if moderator, landlordSetBy.map({ later(e, $0) }) ?? true { landlordSetBy = e; landlord = r.landlordKey }
            }
            record.target = nil
            var entry = PlaceBook.Entry(add: add, record: record, landlord: landlord, edited: edited, hidden: hidden(pid))
            for (author, ops) in ix.reviews[pid] ?? [:] where author != landlord {
                var cutoff: SignedOp?
                for r in ops where deleted(r) && cutoff.map({ later(r, $0) }) ?? true { cutoff = r }
                var best: SignedOp?, counting = 0
                for r in ops where !excluded.contains(r.id) && cutoff.map({ later(r, $0) }) ?? true {
                    counting += 1
                    if best.map({ later(r, $0) }) ?? true { best = r }
                }
                guard let best, case .review(let review) = best.body.kind else { continue }
                var reply: SignedOp?
                if let landlord {
                    for r in ops {
                        for x in ix.replies[r.id] ?? []
                        where x.author == landlord && !excluded.contains(x.id)
                            && !deleted(x) && !hidden(x.id) && reply.map({ later(x, $0) }) ?? true
                        { reply = x }
                    }
                }
                var replyView: ReplyView?
                if let reply, case .reviewReply(let rr) = reply.body.kind {
                    replyView = ReplyView(id: reply.id, author: reply.author, hlc: reply.hlc, text: rr.text)
                }
                let isHidden = ops.contains { hidden($0.id) }
                entry.reviews[author] = PlaceBook.Register(
                    shown: best, review: review, counting: counting, hidden: isHidden,
                    reply: replyView)
                if !isHidden && !entry.hidden { sumHalves += Int(review.overallHalf); book.reviewCount += 1 }
            }
            book.entries[pid] = entry
        }
        if book.reviewCount > 0 { book.mean = Double(sumHalves) / 2 / Double(book.reviewCount) }
        return book
    }

    func placeSummary(_ e: PlaceBook.Entry, mean: Double?) -> PlaceSummary {
        var n = 0, overall = 0, loc = 0, man = 0, am = 0, again = 0
        var dist = [Int](repeating: 0, count: 6)
        for r in e.reviews.values where !r.hidden && !e.hidden {
            n += 1; overall += Int(r.review.overallHalf); loc += Int(r.review.location); man += Int(r.review.management)
            am += Int(r.review.amenities); if r.review.again { again += 1 }
            dist[min(5, Int(r.review.overallHalf) / 2)] += 1
        }
        func avg(_ s: Int, _ scale: Double = 1) -> Double? { n == 0 ? nil : Double(s) / scale / Double(n) }
        let w = Double(PlaceRating.priorWeight)
        // A place nobody reviewed has no rating: the pack's mean alone says nothing of it.
        let bayes = n == 0 ? nil : mean.map { m in (w * m + Double(overall) / 2) / (w + Double(n)) }
        return PlaceSummary(
            count: n, overall: avg(overall, 2), location: avg(loc), management: avg(man), amenities: avg(am),
            distribution: dist, again: again, againShare: avg(again), bayesian: bayes)
    }

    static func addressKey(_ r: Place) -> String {
        String(
            r.address.lowercased().unicodeScalars.filter { $0.properties.isAlphabetic || $0.properties.numericType != nil }
                .map(Character.init)) + "|" + r.zip.lowercased().filter { !$0.isWhitespace }
    }

    func placeViews(_ book: PlaceBook, pack: PackState, only: OpID? = nil) -> [PlaceView] {
        var byAddress: [String: [OpID]] = [:]
        for (id, e) in book.entries where !e.hidden { byAddress[Self.addressKey(e.record), default: []].append(id) }
        var out: [PlaceView] = []
        for (id, e) in book.entries where only.map({ $0 == id }) ?? true {
            let dups = (byAddress[Self.addressKey(e.record)] ?? []).filter { $0 != id }.sorted()
            out.append(
                PlaceView(
                    id: id, pack: pack.id, packName: pack.create.name, creator: e.add.author,
                    role: role(of: e.add.author, in: pack), hlc: e.add.hlc, record: e.record, landlordKey: e.landlord,
                    edited: e.edited, hidden: e.hidden, summary: placeSummary(e, mean: book.mean), duplicates: dups))
        }
        return out
    }

    /// Places of live packs (of `packs` only, when given), hidden ones included with `hidden`
    /// set, newest first (ties by id).
    public func places(in filter: Set<PackID>? = nil, nowMs: UInt64) -> [PlaceView] {
        var out: [PlaceView] = []
        for (pid, pack) in packs where filter?.contains(pid) ?? true {
            guard !pack.deleted, !pack.isExpired(nowMs: nowMs), !pack.places.places.isEmpty else { continue }
            out += placeViews(placeBook(pack), pack: pack)
        }
        return out.sorted { $0.hlc != $1.hlc ? $0.hlc > $1.hlc : $0.id < $1.id }
    }

    /// A place with its reviews; nil when unknown, deleted, over its creator's caps, or its
    /// pack is not live.
    public func place(_ id: OpID, nowMs: UInt64) -> PlaceDetail? {
        guard let op = ops[id], case .place(let p) = op.body.kind, p.target == nil, let pack = packs[op.packID],
            isLive(pack.id, nowMs: nowMs)
        else { return nil }
        let book = placeBook(pack)
        guard let e = book.entries[id], let view = placeViews(book, pack: pack, only: id).first else { return nil }
        var reviews: [ReviewView] = []
        for (author, r) in e.reviews {
            reviews.append(
                ReviewView(
                    id: r.shown.id, place: id, author: author, role: role(of: author, in: pack), hlc: r.shown.hlc,
                    review: r.review, edited: r.counting > 1, hidden: r.hidden, reply: r.reply))
        }
        reviews.sort { (a: ReviewView, b: ReviewView) -> Bool in
            if a.hidden != b.hidden { return !a.hidden }
            return a.hlc != b.hlc ? a.hlc > b.hlc : a.id < b.id
        }
        return PlaceDetail(place: view, reviews: reviews)
    }

    /// The count of a pack's visible places and counting reviews, and their mean (the prior).
    public func placeStats(_ packID: PackID) -> PackPlaceStats {
        guard let pack = packs[packID] else { return PackPlaceStats(places: 0, reviews: 0, mean: nil) }
        let book = placeBook(pack)
        return PackPlaceStats(places: book.entries.values.filter { !$0.hidden }.count, reviews: book.reviewCount, mean: book.mean)
    }

    /// Review ops held in a pack, counting or not.
    public func reviewOpCount(_ packID: PackID) -> Int { packs[packID]?.places.reviewCount ?? 0 }
}

/// The classes of place ops that have their own caps (PROTOCOL.md §5, places).
public enum PlaceOpClass: Sendable {
    case place, review, reply
    public var limits: (perDay: Int, total: Int) {
        switch self {
        case .place: (Limits.placesPerDay, Limits.placesPerPseudonym)
        case .review: (Limits.reviewsPerDay, Limits.reviewsPerPseudonym)
        case .reply: (Limits.repliesPerDay, Limits.repliesPerPseudonym)
        }
    }
}

extension Replica {
    /// Whether one more op of `cls` by `author` in the pack, written at `nowMs`, would count
    /// (an honest node refuses to write one that would not). Moderators have no place cap.
    public func placeCapAllows(_ cls: PlaceOpClass, by author: PublicKey, in packID: PackID, nowMs: UInt64) -> Bool {
        guard let pack = packs[packID] else { return false }
        if cls == .place && isModerator(author, of: pack) { return true }
        let keys: [PlaceKey]
        switch cls {
        case .place: keys = pack.places.placeOpsBy[author] ?? []
        case .review: keys = pack.places.reviewOpsBy[author] ?? []
        case .reply: keys = pack.places.replyOpsBy[author] ?? []
        }
        let day = nowMs / DailyCap.dayMs
        let today = keys.filter { $0.hlc.physicalMs / DailyCap.dayMs == day }.count
        return today < cls.limits.perDay && keys.count < cls.limits.total
    }
}

extension Replica {
    /// The Den's places part (a local view over the user's own pseudonyms): the places they
    /// added and their reviews as shown (each reviewer's latest), over live packs, newest first.
    public func placeDen(authors: Set<PublicKey>, nowMs: UInt64) -> (places: [PlaceView], reviews: [ReviewView]) {
        var places: [PlaceView] = [], reviews: [ReviewView] = []
        for (pid, pack) in packs where !pack.places.places.isEmpty && isLive(pid, nowMs: nowMs) {
            let book = placeBook(pack)
            places += placeViews(book, pack: pack).filter { authors.contains($0.creator) }
            for (placeID, e) in book.entries {
                for (author, r) in e.reviews where authors.contains(author) {
                    reviews.append(
                        ReviewView(
                            id: r.shown.id, place: placeID, author: author, role: role(of: author, in: pack),
                            hlc: r.shown.hlc, review: r.review, edited: r.counting > 1, hidden: r.hidden, reply: r.reply))
                }
            }
        }
        places.sort { $0.hlc != $1.hlc ? $0.hlc > $1.hlc : $0.id < $1.id }
        reviews.sort { $0.hlc != $1.hlc ? $0.hlc > $1.hlc : $0.id < $1.id }
        return (places, reviews)
    }
}
