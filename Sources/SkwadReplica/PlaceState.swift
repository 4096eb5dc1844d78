import SkwadCrypto
import SkwadModel

/// One `(hlc, id)` key with its author: the order every place rule uses.
struct PlaceKey: Sendable {
    let hlc: HLC
    let id: OpID
    var key: (HLC, OpID) { (hlc, id) }
}

/// The place, review and reply ops of one pack, indexed for the place views (PlaceViews.swift).
/// Admission put them here without looking at other ops; every rule that relates them (who
/// may edit a place, one review per pseudonym, the landlord's reply, daily caps) is decided
/// by the views, deterministically, from this index (PROTOCOL.md §5, places).
struct PlaceIndex: Sendable {
    /// New places (a `Place` without target), by place id.
    var places: [OpID: SignedOp] = [:]
    /// Records for a place (`Place` with target), by target; any author (views pick who counts).
    var edits: [OpID: [SignedOp]] = [:]
    /// Per place, per reviewer: every review op.
    var reviews: [OpID: [PublicKey: [SignedOp]]] = [:]
    /// Per review op id: its place and reviewer (the review register a reply or delete names).
    var reviewOf: [OpID: (place: OpID, author: PublicKey)] = [:]
    /// Per review op id: replies naming it (any author).
    var replies: [OpID: [SignedOp]] = [:]
    /// Per author: the keys of their place, review and reply ops (the daily caps).
    var placeOpsBy: [PublicKey: [PlaceKey]] = [:]
    var reviewOpsBy: [PublicKey: [PlaceKey]] = [:]
    var replyOpsBy: [PublicKey: [PlaceKey]] = [:]
    /// How many review ops in all (the bench and stats).
    var reviewCount = 0

    mutating func apply(_ op: SignedOp) {
        let k = PlaceKey(hlc: op.hlc, id: op.id)
        switch op.body.kind {
        case .place(let p):
            if let t = p.target { edits[t, default: []].append(op) } else { places[op.id] = op }
            placeOpsBy[op.author, default: []].append(k)
        case .review(let r):
            reviews[r.place, default: [:]][op.author, default: []].append(op)
            reviewOf[op.id] = (r.place, op.author)
            reviewOpsBy[op.author, default: []].append(k)
            reviewCount += 1
        case .reviewReply(let r):
            replies[r.review, default: []].append(op)
            replyOpsBy[op.author, default: []].append(k)
        default:
            break
        }
    }
}

/// The daily caps (PROTOCOL.md §5, places): of one author's ops of one class in a pack, those
/// that count are the smallest by (hlc, id) such that at most `perDay` fall in any UTC day (by
/// hlc) and at most `total` in all. A function of the set of keys, whatever their order.
enum DailyCap {
    static let dayMs: UInt64 = 86_400_000

    /// The ids that do not count.
    static func excluded(_ keys: [PlaceKey], perDay: Int, total: Int) -> [OpID] {
        guard keys.count > min(perDay, total) else { return [] }
        let sorted = keys.sorted { $0.key < $1.key }
        var out: [OpID] = [], perDayCount: [UInt64: Int] = [:], kept = 0
        for k in sorted {
            let day = k.hlc.physicalMs / dayMs
            let n = perDayCount[day, default: 0]
            if n >= perDay || kept >= total { out.append(k.id); continue }
            perDayCount[day] = n + 1; kept += 1
        }
        return out
    }
}
