import Foundation
import SkwadCrypto
import SkwadModel
import SkwadReplica
import SkwadStore

/// The fields of `place add` / `place edit` (nil: not given; an edit keeps the current value).
public struct PlaceInput: Sendable, Equatable {
    public var address: String?
    public var city: String?
    public var zip: String?
    public var landlord: String?
    /// Monthly rent, or its range (`rentMax` 0: a single figure).
    public var rentMin: UInt32?
    public var rentMax: UInt32?
    public var beds: UInt32?
    public var bathsHalf: UInt32?
    public var termMonths: UInt32?
    public var at: GeoPoint?
    /// `me` (your pseudonym in the pack) or a pseudonym tag: the landlord whose replies count.
    public var landlordKey: String?
    public init() {}
}

/// What `places` keeps and how it orders them.
public struct PlaceQuery: Sendable, Equatable {
    public enum Sort: String, Sendable, CaseIterable { case rating, reviews, rent, distance, term, new }
    public var text: String?
    public var pack: String?
    public var city: String?
    public var zip: String?
    public var maxRent: UInt32?
    public var minRating: Double?
    public var minReviews: Int?
    public var beds: UInt32?
    public var sort: Sort = .rating
    public var limit: Int = 50
    public init() {}
}

/// `place PLACE`: the place, its reviews, and its pack's figures.
public struct PlacePage: Sendable, Equatable {
    public let detail: PlaceDetail
    public let stats: PackPlaceStats
}

/// A review as `review` takes it.
public struct ReviewInput: Sendable, Equatable {
    public var overallHalf: UInt32
    public var location: UInt32
    public var management: UInt32
    public var amenities: UInt32
    public var again: Bool
    public var text: String
    public var name: String
    public init(
        overallHalf: UInt32, location: UInt32, management: UInt32, amenities: UInt32, again: Bool, text: String,
        name: String = ""
    ) {
        self.overallHalf = overallHalf; self.location = location; self.management = management; self.amenities = amenities
        self.again = again; self.text = text; self.name = name
    }
}

/// The geohash precision of a place's cell (about 38 m × 19 m): a home's address is public
/// anyway; the cell only serves distances.
let placeCellPrecision = 8

extension Node {
    // MARK: writing

    /// Adds a place to a pack (joining it if needed).
    public func addPlace(pack ref: String?, _ input: PlaceInput) throws -> OpID {
        purgeIfDue()
        let p: PackSummary
        if let ref {
            p = try resolvePack(ref)
        } else {
            let live = replica.packs(nowMs: now()).filter { joined[$0.id] != nil }
            guard live.count == 1 else {
                guard !live.isEmpty else { throw NodeError("say which pack the place is in: --pack PACK (packs lists them)") }
                let names = live.map { CommandWord.quote(packLabel($0.id) ?? $0.name) }.sorted()
                throw NodeError(
                    "you are in \(live.count) packs: say which one the place is in with --pack PACK (\(names.joined(separator: ", ")))")
            }
            p = live[0]
        }
        guard let address = input.address else { throw NodeError("a place needs an address: place add \"ADDRESS\" --pack PACK") }
        var record = Place(address: address)
        try fill(&record, from: input, pack: p.id)
        try checkCap(.place, in: p.id, "at most \(Limits.placesPerDay) places a day (\(Limits.placesPerPseudonym) in all) per pack")
        var (op, changes) = try sign(.place(record), in: p.id)
        if joined[p.id] == nil { changes.append(.joined(p.id, true, atMs: now())) }
        try commit(op, with: changes)
        return op.id
    }

    /// A new record for a place: by its creator or a moderator of its pack (others' records
    /// count for nothing, so the node refuses to write one). Only a moderator names a landlord.
    public func editPlace(_ ref: String, _ input: PlaceInput) throws -> OpID {
        purgeIfDue()
        let detail = try placeDetail(ref)
        let packID = detail.place.pack
        guard let pack = replica.pack(packID) else { throw NodeError("that pack is gone") }
        let mine = key(for: packID)?.publicKey
        let moderatorKey = moderatorKeys(pack).first
        guard mine == detail.place.creator || moderatorKey != nil else {
            throw NodeError("only the place's creator or the pack's moderators can edit it (report it: report \(ref) \"REASON\")")
        }
        var record = detail.place.record
        record.target = detail.place.id
        if let a = input.address { record.address = a }
        if input.landlordKey != nil, moderatorKey == nil { throw NodeError("only the pack's moderators can name the landlord of a place") }
        record.landlordKey = detail.place.landlordKey
        try fill(&record, from: input, pack: packID)
        if let key = moderatorKey, mine != detail.place.creator || key.publicKey == pack.alpha {
            return try commitModeration(.place(record), in: packID, key: key)
        }
        try checkCap(.place, in: packID, "at most \(Limits.placesPerDay) place records a day per pack")
        let (op, changes) = try sign(.place(record), in: packID)
        try commit(op, with: changes)
        return op.id
    }

    func fill(_ r: inout Place, from input: PlaceInput, pack: PackID) throws {
        if let v = input.city { r.city = v }
        if let v = input.zip { r.zip = v }
        if let v = input.landlord { r.landlord = v }
        if let v = input.rentMin { r.rentMin = v; r.rentMax = input.rentMax ?? 0 }
        if let v = input.beds { r.beds = v }
        if let v = input.bathsHalf { r.bathsHalf = v }
        if let v = input.termMonths { r.termMonths = v }
        if let at = input.at { r.cell = Geohash.encode(at, precision: placeCellPrecision) }
        if let tag = input.landlordKey {
            if tag.lowercased() == "me" {
                guard let k = key(for: pack) else { throw NodeError("unknown pack") }
                r.landlordKey = k.publicKey
            } else if tag.lowercased() == "none" {
                r.landlordKey = nil
            } else {
                r.landlordKey = try resolveAuthor(tag)
            }
        }
        try validate(.place(r), in: pack)
    }

    /// The field limits, checked before anything is signed (one clear line for the user).
    func validate(_ kind: OpKind, in pack: PackID) throws {
        guard let k = key(for: pack) else { throw NodeError("unknown pack") }
        do { try Validation.check(OpBody(packID: pack, author: k.publicKey, hlc: .zero, kind: kind)) } catch let e as ModelError {
            throw NodeError(e.reason)
        }
    }

    /// `persona`: the cap of your persona's ops (a named review) instead of your pseudonym's.
    func checkCap(_ cls: PlaceOpClass, in pack: PackID, _ what: String, persona: Bool = false) throws {
        guard let k = persona ? personaKey(pack) : key(for: pack) else { throw NodeError("unknown pack") }
        guard replica.placeCapAllows(cls, by: k.publicKey, in: pack, nowMs: now()) else {
            throw NodeError("\(what) count; try again tomorrow")
        }
    }

    /// Reviews a place: a second review by you edits the first (the latest counts). A named
    /// review (`input.name` set) is signed by your persona in the pack, as `post --named` is,
    /// so the name is never shown on your anonymous pseudonym; one person reviews a place
    /// under one of the two keys only (both would count twice), so the other's review is refused.
    public func review(_ ref: String, _ input: ReviewInput) throws -> OpID {
        purgeIfDue()
        let detail = try placeDetail(ref)
        let place = detail.place
        let named = !input.name.isEmpty
        let pseudonym = key(for: place.pack)?.publicKey, persona = personaKey(place.pack)?.publicKey
        if let landlord = place.landlordKey, landlord == pseudonym || landlord == persona {
            throw NodeError("you are this place's landlord: your review would not count (reply to reviews instead)")
        }
        if let other = named ? pseudonym : persona, let earlier = detail.reviews.first(where: { $0.author == other }) {
            let id = earlier.id.short(displayIDLength())
            throw NodeError(
                named
                    ? "you reviewed this place anonymously (\(id)): a named review too would count you twice; "
                        + "delete \(id) first, or review it again without --named"
                    : "you reviewed this place under a name (\(id)): review it again with --named NAME to edit that review, "
                        + "or delete \(id) first")
        }
        let r = Review(
            place: place.id, overallHalf: input.overallHalf, location: input.location, management: input.management,
            amenities: input.amenities, again: input.again, text: input.text, name: input.name)
        try validate(.review(r), in: place.pack)
        try checkCap(
            .review, in: place.pack,
            "at most \(Limits.reviewsPerDay) reviews a day (\(Limits.reviewsPerPseudonym) in all) per pack", persona: named)
        var (op, changes) = try sign(.review(r), in: place.pack, persona: named)
        if joined[place.pack] == nil { changes.append(.joined(place.pack, true, atMs: now())) }
        try commit(op, with: changes)
        return op.id
    }

    /// The landlord's reply to a review (`reply REVIEW "TEXT"`): only the place's landlord
    /// pseudonym's reply counts, so the node refuses anyone else's.
    func replyToReview(_ target: SignedOp, _ review: Review, text: String) throws -> OpID {
        let nowMs = now()
        guard let detail = replica.place(review.place, nowMs: nowMs), replica.op(review.place)?.packID == target.packID else {
            throw NodeError("the place of that review is not here (deleted, or not arrived yet)")
        }
        guard let landlord = detail.place.landlordKey, landlord == key(for: target.packID)?.publicKey else {
            throw NodeError("only the place's landlord can reply to its reviews (comment on posts instead)")
        }
        try checkCap(.reply, in: target.packID, "at most \(Limits.repliesPerDay) replies a day per pack")
        let (op, changes) = try sign(.reviewReply(ReviewReply(review: target.id, text: text)), in: target.packID)
        try commit(op, with: changes)
        return op.id
    }

    /// Whether `id` is a landlord's reply to a review (what `reply REVIEW` wrote).
    public func isReviewReply(_ id: OpID) -> Bool {
        if case .reviewReply = replica.op(id)?.body.kind { true } else { false }
    }

    // MARK: reading

    /// The place an id prefix names (a place's own id, not one of its records).
    func resolvePlace(_ ref: String) throws -> PlaceView { try placeDetail(ref).place }

    /// A place with its reviews and its pack's figures (the prior of the Bayesian average).
    public func placePage(_ ref: String) throws -> PlacePage {
        purgeIfDue()
        let d = try placeDetail(ref)
        // Reviews and replies of pseudonyms you blocked are left out of the page (the figures
        // stay those every node computes).
        let blocked = localModeration().blocked
        let reviews = d.reviews.filter { r in replica.op(r.id).map { !isSilenced($0) } ?? true }.map { r in
            guard let reply = r.reply, blocked[reply.author] != nil else { return r }
            var r = r
            r.reply = nil
            return r
        }
        return PlacePage(detail: PlaceDetail(place: d.place, reviews: reviews), stats: replica.placeStats(d.place.pack))
    }

    public func placeDetail(_ ref: String) throws -> PlaceDetail {
        let hex = ref.lowercased()
        guard hex.count >= 2, hex.allSatisfy(\.isHexDigit) else {
            throw NodeError("'\(NodeError.quote(ref))' is not a place id: type at least 2 of the hex digits places prints first")
        }
        var found: SignedOp?
        for op in replica.allOps where op.id.hex.hasPrefix(hex) {
            guard case .place(let p) = op.body.kind, p.target == nil else { continue }
            if found != nil { throw NodeError("'\(NodeError.quote(ref))' matches several places: type more of the id") }
            found = op
        }
        guard let found, let d = replica.place(found.id, nowMs: now()) else {
            throw NodeError("no place with id '\(NodeError.quote(ref))'")
        }
        if isSilenced(found) { throw NodeError("that place is in a pack you muted, or by a pseudonym you blocked") }
        return d
    }

    /// Places of every live pack (or of one), filtered and sorted. `text` matches words of
    /// the address, city, zip or landlord (FTS5), checked against the current record.
    public func places(_ q: PlaceQuery) throws -> [PlaceView] {
        purgeIfDue()
        let filter = try q.pack.map { Set([try resolvePack($0).id]) }
        var list = replica.places(in: filter, nowMs: now()).filter { !$0.hidden }
        list = list.filter { v in replica.op(v.id).map { !isSilenced($0) } ?? false }
        if let text = q.text {
            guard text.contains(where: { $0.isLetter || $0.isNumber }) else { throw NodeError("places TEXT needs a word to look for") }
            let hits: [OpID]
            do { hits = try store.searchPlaces(text) } catch { stats.storeErrors += 1; throw NodeError("\(error)") }
            let rank = Dictionary(hits.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
            list = list.filter { rank[$0.id] != nil && Self.recordMatches($0.record, text) }
        }
        if let c = q.city?.lowercased() { list = list.filter { $0.record.city.lowercased() == c } }
        if let z = q.zip?.lowercased() { list = list.filter { $0.record.zip.lowercased() == z } }
        if let m = q.maxRent { list = list.filter { $0.record.rentMin > 0 && $0.record.rentMin <= m } }
        if let m = q.minRating { list = list.filter { ($0.summary.bayesian ?? 0) >= m } }
        if let m = q.minReviews { list = list.filter { $0.summary.count >= m } }
        if let b = q.beds { list = list.filter { $0.record.beds >= b } }
        return Array(sortPlaces(list, by: q.sort).prefix(max(0, q.limit)))
    }

    func sortPlaces(_ list: [PlaceView], by sort: PlaceQuery.Sort) -> [PlaceView] {
        func tie(_ a: PlaceView, _ b: PlaceView) -> Bool { a.hlc != b.hlc ? a.hlc > b.hlc : a.id < b.id }
        func cmp<T: Comparable>(_ a: T?, _ b: T?, _ asc: Bool) -> Bool? {
            switch (a, b) {
            case let (x?, y?): return x == y ? nil : (asc ? x < y : x > y)
            case (.some, nil): return true
            case (nil, .some): return false
            case (nil, nil): return nil
            }
        }
        let here = location
        return list.sorted { a, b in
            let r: Bool?
            switch sort {
            case .rating: r = cmp(a.summary.bayesian, b.summary.bayesian, false) ?? cmp(a.summary.count, b.summary.count, false)
            case .reviews: r = cmp(a.summary.count, b.summary.count, false)
            case .rent: r = cmp(a.record.rentMin == 0 ? nil : a.record.rentMin, b.record.rentMin == 0 ? nil : b.record.rentMin, true)
            case .distance: r = cmp(here.flatMap { placeDistance(a, from: $0) }, here.flatMap { placeDistance(b, from: $0) }, true)
            case .term:
                r = cmp(a.record.termMonths == 0 ? nil : a.record.termMonths, b.record.termMonths == 0 ? nil : b.record.termMonths, true)
            case .new: r = nil
            }
            return r ?? tie(a, b)
        }
    }

    /// Metres from `here` to the centre of the place's cell (nil without a cell).
    public nonisolated func placeDistance(_ p: PlaceView, from here: GeoPoint) -> Double? {
        guard let c = p.record.cell, let cell = try? Geohash.decode(c) else { return nil }
        return here.distance(to: cell.center)
    }

    /// Every word of `text` is a prefix of a word of the record (letters and digits, case and
    /// accents folded), as FTS5 matched it in some record of the place.
    static func recordMatches(_ r: Place, _ text: String) -> Bool {
        func words(_ s: String) -> [String] {
            s.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
                .split { !($0.isLetter || $0.isNumber) }.map(String.init)
        }
        let have = words([r.address, r.city, r.zip, r.landlord].joined(separator: " "))
        return words(text).allSatisfy { w in have.contains { $0.hasPrefix(w) } }
    }
}

/// Inbox news about places (issue 27): a review of a place you added, or the landlord's
/// reply to your review, each only while it is shown.
public struct PlaceNews: Sendable, Equatable {
    public enum What: Sendable, Equatable {
        case review(overallHalf: UInt32)
        case reply
    }
    public let what: What
    public let place: OpID
    /// The review or reply op.
    public let op: OpID
    public let author: PublicKey
    public let text: String
}

/// Places as a feature of the node: a review of a place this user added, or the landlord's
/// reply to this user's review, in `inbox` (among the replies and votes, as it came).
final class Places: NodeFeature {
    func inboxItem(answering op: SignedOp, label: String, nowMs: UInt64, node: isolated Node) -> InboxItem? {
        switch op.body.kind {
        case .review(let r):
            guard let place = node.replica.op(r.place), place.packID == op.packID, node.isMine(place.author, in: place.packID),
                let d = node.replica.place(r.place, nowMs: nowMs), d.reviews.contains(where: { $0.id == op.id && !$0.hidden })
            else {
                return nil
            }
            return InboxItem(
                kind: .place(
                    PlaceNews(
                        what: .review(overallHalf: r.overallHalf), place: r.place, op: op.id, author: op.author,
                        text: r.text)),
                packName: label, about: d.place.record.address, atMs: op.hlc.physicalMs)
        case .reviewReply(let rr):
            guard let rv = node.replica.op(rr.review), rv.packID == op.packID, node.isMine(rv.author, in: rv.packID),
                case .review(let r) = rv.body.kind, let d = node.replica.place(r.place, nowMs: nowMs),
                d.reviews.contains(where: { $0.author == rv.author && $0.reply?.id == op.id })
            else { return nil }
            return InboxItem(
                kind: .place(PlaceNews(what: .reply, place: r.place, op: op.id, author: op.author, text: rr.text)),
                packName: label, about: d.place.record.address, atMs: op.hlc.physicalMs)
        default:
            return nil
        }
    }
}
