import Foundation
import SkwadModel
import SkwadNode
import SkwadReplica

/// What a place verb produced besides a one-line outcome.
public enum PlaceReply: REPLReply {
    case list([PlaceView])
    case page(PlacePage)
    case favs([PlaceView])
    /// `compare`, with where you are (for distances).
    case compare([PlaceView], here: GeoPoint?)
    /// The next place to swipe (nil: none left) and how many are left after it.
    case card(PlaceView?, left: Int, query: PlaceQuery)
    /// A swipe-mode answer: what the key did, then the next card.
    case swiped(String, next: PlaceView?, left: Int)

    public func text(_ r: Renderer) -> String { r.placesText(self) }
    public func json(_ r: Renderer) -> [(String, JSON)] { r.placesJSON(self) }
}

/// Text and JSON of the place verbs' replies. Every string from the network (addresses,
/// names, review and reply text) goes through SafeText.
extension Renderer {
    static func stars(_ x: Double?) -> String { x.map { String(format: "%.1f", $0) } ?? "–" }

    static func rent(_ r: Place) -> String {
        if r.rentMin == 0 && r.rentMax == 0 { return "rent ?" }
        return r.rentMax > r.rentMin ? "$\(r.rentMin)–\(r.rentMax)" : "$\(r.rentMin)"
    }

    static func baths(_ half: UInt32) -> String { half % 2 == 0 ? "\(half / 2)" : "\(half / 2).5" }

    /// Address, city and zip on one line.
    func address(_ r: Place) -> String {
        SafeText.line([r.address, r.city, r.zip].filter { !$0.isEmpty }.joined(separator: ", "))
    }

    func placeLine(_ p: PlaceView) -> String {
        let r = p.record, s = p.summary
        let rating = s.count == 0 ? "no reviews" : "★\(Self.stars(s.bayesian)) (\(Wording.count(s.count, "review")))"
        var parts = [id(p.id), rating, address(r), Self.rent(r)]
        if r.beds > 0 { parts.append("\(r.beds) bd") }
        if r.bathsHalf > 0 { parts.append("\(Self.baths(r.bathsHalf)) ba") }
        if r.termMonths > 0 { parts.append("\(r.termMonths) mo") }
        if !r.landlord.isEmpty { parts.append(SafeText.line(r.landlord)) }
        parts.append(colored(SafeText.line(label(p.pack, p.packName)), pack: p.pack))
        if !p.duplicates.isEmpty { parts.append("(possible duplicate of \(p.duplicates.map(id).joined(separator: ", ")))") }
        return parts.joined(separator: "  ")
    }

    func placesText(_ r: PlaceReply) -> String {
        switch r {
        case .list(let list):
            if list.isEmpty { return "no places found (add one: place add \"ADDRESS\" --pack PACK)" }
            return list.map(placeLine).joined(separator: "\n")
        case .favs(let list):
            if list.isEmpty { return "no favourites yet (swipe, then y on a place you like)" }
            return list.map(placeLine).joined(separator: "\n")
        case .page(let page): return placePageText(page)
        case let .compare(list, here): return compareText(list, here: here)
        case let .card(p, left, _):
            guard let p else { return "nothing to swipe: no place matches, or you swiped them all (favs lists your favourites)" }
            return "swipe: y favourite, n pass, u undo, q quit\n" + card(p, left: left)
        case let .swiped(said, next, left):
            guard let next else {
                return said + (said.hasPrefix("swipe ended") ? "" : "\nno more places: swipe ended (favs lists your favourites)")
            }
            return said + "\n" + card(next, left: left)
        }
    }

    func card(_ p: PlaceView, left: Int) -> String {
        placeLine(p) + "\n" + dim("(\(left) more) y/n/u/q?")
    }

    func placePageText(_ page: PlacePage) -> String {
        let p = page.detail.place, r = p.record, s = p.summary
        var lines = [
            "\(id(p.id))  \(address(r))  in \(colored(SafeText.line(label(p.pack, p.packName)), pack: p.pack))"
                + (p.edited ? " (edited)" : "") + (p.hidden ? "  (hidden by a moderator)" : "")
        ]
        var facts = [Self.rent(r) + (r.rentMin > 0 ? " a month" : "")]
        if r.beds > 0 { facts.append(Wording.count(Int(r.beds), "bed")) }
        if r.bathsHalf > 0 { facts.append("\(Self.baths(r.bathsHalf)) bath\(r.bathsHalf == 2 ? "" : "s")") }
        if r.termMonths > 0 { facts.append("\(r.termMonths)-month lease") }
        if !r.landlord.isEmpty { facts.append("landlord " + SafeText.line(r.landlord)) }
        if let k = p.landlordKey { facts.append("replies by \(pseudonymTag(k))") }
        lines.append("  " + facts.joined(separator: "  "))
        lines.append("  added by \(who(p.creator, p.role))  \(dim(time(p.hlc)))")
        if !p.duplicates.isEmpty { lines.append("  possible duplicate of \(p.duplicates.map(id).joined(separator: ", "))") }
        if s.count == 0 {
            lines.append(
                "  no reviews yet: review \(id(p.id)) --overall X --location N --management N --amenities N"
                    + " --again yes|no \"TEXT\"")
        } else {
            lines.append(
                "  rating \(Self.stars(s.bayesian)) (Bayesian: pack mean \(Self.stars(page.stats.mean)) over "
                    + "\(Wording.count(page.stats.reviews, "review")), weight \(PlaceRating.priorWeight))"
                    + "  average \(Self.stars(s.overall)) of 5 from \(Wording.count(s.count, "review"))")
            lines.append(
                "  location \(Self.stars(s.location))  management \(Self.stars(s.management))"
                    + "  amenities \(Self.stars(s.amenities))"
                    + "  would live here again: \(Int(((s.againShare ?? 0) * 100).rounded()))% (\(s.again) of \(s.count))")
            let top = max(1, s.distribution.max() ?? 1)
            for star in stride(from: 5, through: 0, by: -1) {
                let n = s.distribution[star]
                let bar = String(repeating: "█", count: n == 0 ? 0 : max(1, n * 30 / top))
                lines.append("  \(star)★ \(bar)\(n > 0 ? " " : "")\(n)")
            }
        }
        for rv in page.detail.reviews {
            let x = rv.review
            var head =
                "  \(id(rv.id))  \(String(format: "%.1f", Double(x.overallHalf) / 2))/5"
                + "  location \(x.location)  management \(x.management)"
                + "  amenities \(x.amenities)  again: \(x.again ? "yes" : "no")  \(who(rv.author, rv.role))"
            if !x.name.isEmpty { head += " \"\(SafeText.line(x.name))\"" }
            head += "  \(dim(time(rv.hlc)))" + (rv.edited ? " (edited)" : "")
            if rv.hidden { lines.append(head + "  " + dim("[hidden by a moderator]")); continue }
            lines.append(head)
            if !x.text.isEmpty { lines.append("      " + SafeText.block(x.text, indent: "      ")) }
            if let reply = rv.reply {
                let text = SafeText.block(reply.text, indent: "        ")
                lines.append("      ↳ landlord \(pseudonymTag(reply.author))  \(dim(time(reply.hlc)))  \(text)")
            }
        }
        return lines.joined(separator: "\n")
    }

    // MARK: compare

    /// Rows of normalised attributes, one column per place, `*` on the best of each row;
    /// columns sized so the table fits 80 columns (5 places: 12 characters each).
    func compareText(_ list: [PlaceView], here: GeoPoint?) -> String {
        let labelWidth = 14
        let col = max(8, min(20, (80 - labelWidth) / max(1, list.count) - 1))
        func cell(_ s: String) -> String {
            let t = s.count > col ? String(s.prefix(col - 1)) + "…" : s
            return t.padding(toLength: col, withPad: " ", startingAt: 0)
        }
        func row(_ name: String, _ values: [Double?], better: (Double, Double) -> Bool, format: (Double) -> String) -> String {
            let present = values.compactMap { $0 }
            let best = present.count > 1 ? present.reduce(present[0]) { better($1, $0) ? $1 : $0 } : nil
            let cells = values.map { v -> String in
                guard let v else { return cell("–") }
                return cell(format(v) + (best == v && present.contains { $0 != v } ? " *" : ""))
            }
            return name.padding(toLength: labelWidth, withPad: " ", startingAt: 0) + cells.joined(separator: " ")
        }
        var lines = ["".padding(toLength: labelWidth, withPad: " ", startingAt: 0) + list.map { cell(id($0.id)) }.joined(separator: " ")]
        lines.append(
            "address".padding(toLength: labelWidth, withPad: " ", startingAt: 0)
                + list.map { cell(SafeText.line($0.record.address)) }.joined(separator: " "))
        let lower: (Double, Double) -> Bool = { $0 < $1 }, higher: (Double, Double) -> Bool = { $0 > $1 }
        func whole(_ v: Double) -> String { String(Int(v.rounded())) }
        func one(_ v: Double) -> String { String(format: "%.1f", v) }
        lines.append(row("rent/person", list.map(Self.rentPerPerson), better: lower) { "$" + whole($0) })
        let terms = list.map { $0.record.termMonths == 0 ? nil : Double($0.record.termMonths) }
        lines.append(row("term (months)", terms, better: higher, format: whole))
        lines.append(row("beds", list.map { $0.record.beds == 0 ? nil : Double($0.record.beds) }, better: higher, format: whole))
        let km = list.map { p in here.flatMap { h in Self.distance(p, from: h) }.map { $0 / 1000 } }
        lines.append(row("distance (km)", km, better: lower, format: one))
        lines.append(row("rating", list.map(\.summary.bayesian), better: higher, format: one))
        lines.append(row("location", list.map(\.summary.location), better: higher, format: one))
        lines.append(row("management", list.map(\.summary.management), better: higher, format: one))
        lines.append(row("amenities", list.map(\.summary.amenities), better: higher, format: one))
        lines.append(row("again (%)", list.map { $0.summary.againShare.map { $0 * 100 } }, better: higher, format: whole))
        lines.append(row("reviews", list.map { Double($0.summary.count) }, better: higher, format: whole))
        return lines.map { l in String(l.reversed().drop { $0 == " " }.reversed()) }.joined(separator: "\n")
    }

    /// Monthly rent per bed (the middle of a range), nil without a rent; a place of 0 beds counts as 1.
    static func rentPerPerson(_ p: PlaceView) -> Double? {
        let r = p.record
        guard r.rentMin > 0 else { return nil }
        let rent = r.rentMax > r.rentMin ? (Double(r.rentMin) + Double(r.rentMax)) / 2 : Double(r.rentMin)
        return rent / Double(max(1, r.beds))
    }

    static func distance(_ p: PlaceView, from here: GeoPoint) -> Double? {
        guard let c = p.record.cell, let cell = try? Geohash.decode(c) else { return nil }
        return here.distance(to: cell.center)
    }

    // MARK: JSON

    func placesJSON(_ r: PlaceReply) -> [(String, JSON)] {
        switch r {
        case .list(let list): return [("places", .array(list.map(placeJSON)))]
        case .favs(let list): return [("favs", .array(list.map(placeJSON)))]
        case .page(let page):
            return [
                ("place", placeJSON(page.detail.place)), ("reviews", .array(page.detail.reviews.map(reviewJSON))),
                ("packMean", page.stats.mean.map { .double($0) } ?? .null), ("packReviews", .int(page.stats.reviews)),
                ("priorWeight", .int(PlaceRating.priorWeight))
            ]
        case let .compare(list, here):
            return [
                (
                    "compare",
                    .array(
                        list.map { p in
                            .object([
                                ("place", placeJSON(p)), ("rentPerPerson", Self.rentPerPerson(p).map { .double($0) } ?? .null),
                                ("distance", here.flatMap { Self.distance(p, from: $0) }.map { .double($0) } ?? .null)
                            ])
                        })
                )
            ]
        case let .card(p, left, _): return [("swipe", p.map(placeJSON) ?? .null), ("left", .int(left))]
        case let .swiped(said, next, left):
            return [("message", .string(said)), ("swipe", next.map(placeJSON) ?? .null), ("left", .int(left))]
        }
    }

    func placeJSON(_ p: PlaceView) -> JSON {
        let r = p.record, s = p.summary
        func num(_ x: Double?) -> JSON { x.map { .double($0) } ?? .null }
        return .object([
            ("id", .string(p.id.hex)), ("pack", .string(p.pack.hex)), ("packLabel", .string(label(p.pack, p.packName))),
            ("creator", .string(pseudonymTag(p.creator))), ("role", p.role.map { .string($0.rawValue) } ?? .null),
            ("created", .int(Int(p.hlc.physicalMs))), ("address", .string(r.address)), ("city", .string(r.city)), ("zip", .string(r.zip)),
            ("landlord", .string(r.landlord)), ("rentMin", .int(Int(r.rentMin))), ("rentMax", .int(Int(r.rentMax))),
            ("beds", .int(Int(r.beds))), ("baths", .double(Double(r.bathsHalf) / 2)), ("termMonths", .int(Int(r.termMonths))),
            ("cell", r.cell.map { .string($0) } ?? .null), ("landlordKey", p.landlordKey.map { .string(pseudonymTag($0)) } ?? .null),
            ("edited", .bool(p.edited)), ("hidden", .bool(p.hidden)), ("duplicates", .array(p.duplicates.map { .string($0.hex) })),
            (
                "summary",
                .object([
                    ("count", .int(s.count)), ("overall", num(s.overall)), ("location", num(s.location)),
                    ("management", num(s.management)), ("amenities", num(s.amenities)),
                    ("distribution", .array(s.distribution.map { .int($0) })), ("again", .int(s.again)),
                    ("againShare", num(s.againShare)), ("bayesian", num(s.bayesian))
                ])
            )
        ])
    }

    func reviewJSON(_ v: ReviewView) -> JSON {
        let x = v.review
        return .object([
            ("id", .string(v.id.hex)), ("place", .string(v.place.hex)), ("author", .string(pseudonymTag(v.author))),
            ("role", v.role.map { .string($0.rawValue) } ?? .null), ("time", .int(Int(v.hlc.physicalMs))),
            ("overall", .double(Double(x.overallHalf) / 2)), ("location", .int(Int(x.location))), ("management", .int(Int(x.management))),
            ("amenities", .int(Int(x.amenities))), ("again", .bool(x.again)), ("text", .string(x.text)), ("name", .string(x.name)),
            ("edited", .bool(v.edited)), ("hidden", .bool(v.hidden)),
            (
                "reply",
                v.reply.map { r in
                    .object([
                        ("id", .string(r.id.hex)), ("author", .string(pseudonymTag(r.author))),
                        ("time", .int(Int(r.hlc.physicalMs))), ("text", .string(r.text))
                    ])
                } ?? .null
            )
        ])
    }
}

extension Renderer {
    /// The Den's places part: nothing when you added no place and wrote no review.
    func denPlaceLines(_ d: Node.Den) -> [String] {
        guard !d.places.isEmpty || !d.reviews.isEmpty else { return [] }
        var lines = ["places added: \(d.places.count)  reviews: \(d.reviews.count)"]
        lines += d.places.map { "  " + placeLine($0) }
        lines += d.reviews.map { r in
            "  \(id(r.id))  \(String(format: "%.1f", Double(r.review.overallHalf) / 2))/5 on \(id(r.place))"
                + (r.reply != nil ? "  (the landlord replied)" : "") + (r.hidden ? "  (hidden)" : "")
                + (r.review.text.isEmpty ? "" : "  " + SafeText.line(r.review.text))
        }
        return lines
    }
}

extension Renderer {
    func placeNewsLine(_ n: PlaceNews, _ item: InboxItem) -> String {
        let place = "\(id(n.place)) \"\(SafeText.line(item.about))\" in \(SafeText.line(item.packName))"
        let text = n.text.isEmpty ? "" : ": " + SafeText.block(n.text, indent: "    ")
        switch n.what {
        case .review(let half):
            let stars = String(format: "%.1f", Double(half) / 2)
            return "\(pseudonymTag(n.author)) reviewed your place \(place): \(stars)/5 \(id(n.op))\(text)"
        case .reply:
            return "the landlord \(pseudonymTag(n.author)) replied to your review of \(place): \(id(n.op))\(text)"
        }
    }

    func placeNewsJSON(_ n: PlaceNews) -> [(String, JSON)] {
        var kv: [(String, JSON)] = [
            ("kind", .string({ if case .review = n.what { "review" } else { "review_reply" } }())),
            ("place", .string(n.place.hex)), ("id", .string(n.op.hex)), ("author", .string(pseudonymTag(n.author))),
            ("text", .string(n.text))
        ]
        if case .review(let half) = n.what { kv.append(("overall", .double(Double(half) / 2))) }
        return kv
    }
}
