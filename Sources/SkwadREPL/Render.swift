import Foundation
import SkwadCrypto
import SkwadModel
import SkwadNode
import SkwadReplica

/// How to draw replies: plain lines for scripts, decorations (colour, relative times) on a
/// terminal, or one JSON object per reply.
public struct Renderer: Sendable {
    public enum Mode: Sendable { case plain, terminal, json }
    public let mode: Mode
    public var idLength = 8
    public var nowMs: UInt64 = 0
    /// Labels (`NAME·abcd` for shared names) and colours of the live packs (Node.packStyles).
    public var styles: [PackID: PackStyle] = [:]
    /// Columns and rows of the terminal (`map` sizes its grid to them).
    public var screen: (cols: Int, rows: Int) = (80, 24)
    /// Packs the user is in (the empty feed's hint differs for a member).
    public var joinedCount = 0
    /// The user's location, when set: `show` gives a post's distance from it.
    public var here: GeoPoint?

    public init(mode: Mode) { self.mode = mode }

    func id(_ x: OpID) -> String { x.short(idLength) }

    // MARK: text helpers

    static func relative(_ ms: UInt64, now: UInt64) -> String {
        let d = now >= ms ? Int((now - ms) / 1000) : -Int((ms - now) / 1000)
        if d < 0 { return "in \(duration(-d))" }
        if d < 45 { return "now" }
        return "\(duration(d)) ago"
    }

    static func duration(_ s: Int) -> String {
        if s < 90 { return "\(max(1, s / 60))m" }
        if s < 3600 { return "\(s / 60)m" }
        if s < 86400 * 2 { return "\(s / 3600)h" }
        return "\(s / 86400)d"
    }

    static func distance(_ m: Double) -> String { m < 1000 ? "\(Int(m.rounded())) m" : String(format: "%.1f km", m / 1000) }

    static func compass(_ deg: Double) -> String {
        let names = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"]
        return names[Int(((deg + 22.5).truncatingRemainder(dividingBy: 360)) / 45) % 8]
    }

    /// `s` in the pack's colour (its palette name, else one picked by its id) on a terminal.
    func colored(_ s: String, pack: PackID, color: String? = nil) -> String {
        guard mode == .terminal else { return s }
        let c = Palette.color(for: color ?? styles[pack]?.color ?? "", id: pack)
        return "\u{1B}[\(c.sgr)m\(s)\u{1B}[0m"
    }

    /// How a pack is named on screen: its label when known, else `name`.
    func label(_ pack: PackID, _ name: String) -> String { styles[pack]?.label ?? name }

    func dim(_ s: String) -> String { mode == .terminal ? "\u{1B}[2m\(s)\u{1B}[0m" : s }

    func time(_ hlc: HLC) -> String {
        mode == .terminal ? Self.relative(hlc.physicalMs, now: nowMs) : Self.isoTime(hlc.physicalMs)
    }

    static func isoTime(_ ms: UInt64) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        return f.string(from: Date(timeIntervalSince1970: Double(ms) / 1000))
    }

    // MARK: text

    public func text(_ r: Reply) -> String {
        switch r {
        case .done(let msg, _): return SafeText.block(msg, indent: "  ")  // may quote pack names
        case .created(let p):
            return "created pack \(colored(SafeText.line(label(p.id, p.name)), pack: p.id, color: p.color)) \(id(p.id))"
                + (p.fence.map { " (radius \(Int($0.radiusMeters)) m\(p.locked ? ", locked" : ""))" } ?? "")
        case .packs(let list):
            if list.isEmpty { return "no packs yet: create one with create NAME" }
            return list.map { l in
                let p = l.pack
                var parts = [id(p.id), colored(SafeText.line(label(p.id, p.name)), pack: p.id, color: p.color)]
                let tags = shownTags(p)
                if !tags.isEmpty { parts.append("[" + SafeText.line(tags.joined(separator: ",")) + "]") }
                if let d = p.distanceMeters, let b = p.bearingDegrees { parts.append("\(Self.distance(d)) \(Self.compass(b))") }
                if let f = p.fence { parts.append("r=\(Self.distance(f.radiusMeters))\(p.locked ? " locked" : "")") }
                parts.append("\(Wording.count(p.popularity, "person", "people")), \(Wording.count(p.postCount, "post"))")
                parts.append(p.isAdmin ? "permanent" : "expires " + (p.expiresMs.map { Self.relative($0, now: nowMs) } ?? "never"))
                if l.joined { parts.append("(joined)") }
                return parts.joined(separator: "  ")
            }.joined(separator: "\n")
        case .feed(let posts, let thumbnails, let empty):
            if posts.isEmpty {
                if let empty { return SafeText.line(empty) }
                return joinedCount > 0
                    ? "no posts yet: post one (post PACK \"TITLE\" \"BODY\"), or see other packs (packs)"
                    : "no posts: join a pack (packs, join PACK) or post one"
            }
            return posts.map { p in
                guard mode == .terminal, let lines = thumbnails[p.id], p.picture != nil, p.hidden == nil else { return postLine(p) }
                return ([postLine(p)] + lines).joined(separator: "\n")
            }.joined(separator: "\n")
        case .thread(let t, let thumbnail):
            var lines = [postLine(t.post)]
            if !t.post.body.isEmpty { lines.append("    " + SafeText.block(t.post.body, indent: "    ")) }
            if !t.post.tags.isEmpty { lines.append("    tags: " + SafeText.line(t.post.tags.joined(separator: ", "))) }
            if let d = placeDistance(t.post) { lines.append("    posted about \(Self.distance(d)) from you") }
            if let name = t.post.displayName, let about = t.post.displayAbout, !about.isEmpty {
                lines.append("    \"\(SafeText.line(name))\": \(SafeText.line(about))")
            }
            if let pic = t.post.picture, t.post.hidden == nil {
                let type = pic.pictureType?.name ?? "picture"
                lines.append("    picture: \(type), \(Wording.bytes(Int(pic.size))) (open \(id(t.post.id)) writes it to a file)")
                if mode == .terminal { lines += thumbnail }
            }
            if let h = t.post.hidden {
                let why = h == .moderated ? "by a moderator" : h == .banned ? "its author is banned here" : "score too low"
                lines.append("    (hidden: \(why))")
            }
            for c in t.comments {
                let pad = String(repeating: "  ", count: c.depth + 2)
                let body = c.removed ? dim("[removed]") : SafeText.block(c.body, indent: pad + "  ")
                let mark = c.picked ? "★ picked  " : ""
                lines.append(
                    "\(pad)\(id(c.id))  \(score(c.score))  \(mark)\(who(c.author, c.role))  \(dim(time(c.hlc)))  \(body)\(c.edited ? " (edited)" : "")"
                )
            }
            if t.comments.isEmpty {
                lines.append(dim(t.post.isAsk ? "    no captions yet (comment \(id(t.post.id)) \"TEXT\")" : "    no comments yet"))
            }
            return lines.joined(separator: "\n")
        case .den(let d):
            var lines = [
                "your packs (Alpha): "
                    + (d.view.packs.isEmpty
                        ? "none" : d.view.packs.map { "\(SafeText.line($0.name)) \(id($0.id))" }.joined(separator: ", ")),
                "joined: " + (d.joined.isEmpty ? "none" : d.joined.map { SafeText.line(label($0.id, $0.name)) }.joined(separator: ", ")),
                "posts: \(d.view.posts.count)  comments: \(d.view.comments.count)  upvotes received: \(d.view.totalUpvotes)"
            ]
            lines += d.view.posts.map { "  " + postLine($0) }
            lines += d.view.comments.map {
                "  \(id($0.id))  \(score($0.score))  on \(id($0.post))  \(SafeText.block($0.body, indent: "    "))"
            }
            lines += denPlaceLines(d)
            return lines.joined(separator: "\n")
        case .whoami(let w):
            var lines = [
                "node \(w.nodeID)", "location " + (w.location.map { "\($0) (cell \(w.cell ?? "-"))" } ?? "unset (locate LAT,LON)"),
                "data \(w.dataDir)", "\(Wording.count(w.joinedPacks, "pack")) joined, \(Wording.count(w.ops, "op")) stored",
                "listening on " + (w.listen ?? "nothing (offline)")
            ]
            if !w.reachable.isEmpty && w.reachable != [w.listen ?? ""] {
                lines.append("reachable at " + w.reachable.joined(separator: ", "))
            }
            if w.listen != nil {
                lines.append(w.lanBeacon ? "finding neighbours on the local network" : "not looking for neighbours on the local network")
            }
            if let a = w.adminKey { lines.append("admin key \(a)") }
            return lines.joined(separator: "\n")
        case .help(let h): return h
        case .trusted(let t): return trustedText(t)
        case .peers(let ps, let note):
            if ps.isEmpty { return note ?? "no peers" }
            return ps.map { "\($0.address)  \($0.state)" + ($0.cell.map { "  cell \(SafeText.line($0))" } ?? "") }.joined(separator: "\n")
        case .stats(let kv): return kv.map { "\($0.0) \($0.1)" }.joined(separator: "\n")
        case .search(let hits): return searchText(hits)
        case .inbox(let inbox): return inboxText(inbox)
        case .map(let m, let json): return json ? JSON.object([("ok", true)] + mapJSON(m)).render() : mapText(m)
        case .bye: return "bye"
        case .moderation(let m): return moderationText(m)
        case .places(let m): return placesText(m)
        case .conversation(let c): return conversationText(c)
        case .privatePack(let c): return privatePackText(c)
        case .caption(let c): return captionText(c)
        case .contact(let c): return contactText(c)
        }
    }

    /// A pack's tags as shown: `admin` only on a pack of a key this node trusts (anyone may
    /// tag a pack so), and always there.
    func shownTags(_ p: PackSummary) -> [String] {
        let rest = p.tags.filter { $0.lowercased() != "admin" }
        return p.isAdmin ? ["admin"] + rest : rest
    }

    func trustedText(_ t: Node.Trusted) -> String {
        var lines = t.keys.isEmpty && t.own == nil ? ["no admin keys trusted: admin packs of others expire here like any pack"] : []
        if let own = t.own { lines.append("\(own.hex)  (this node's own admin key)") }
        lines += t.keys.filter { $0 != t.own }.map(\.hex)
        lines.append(dim("kept in \(t.file); trust ADMINKEY adds one, untrust ADMINKEY removes one"))
        return lines.joined(separator: "\n")
    }

    func score(_ s: Int) -> String { s > 0 ? "+\(s)" : "\(s)" }

    /// Metres from the user to the centre of the place a post was given (`post --here`), when
    /// both are known.
    func placeDistance(_ p: PostView) -> Double? {
        guard let here, let cell = p.place, let c = try? Geohash.decode(cell) else { return nil }
        return here.distance(to: c.center)
    }

    /// A post's picture in JSON: its root, type and size (`open` writes it to a file).
    func pictureJSON(_ ref: PictureRef?) -> JSON {
        guard let ref else { return .null }
        return .object([
            ("root", .string(Hex.encode(ref.root))), ("type", .string(ref.pictureType?.name ?? "")), ("size", .int(Int(ref.size)))
        ])
    }

    func postLine(_ p: PostView) -> String {
        let noun = p.isAsk ? "caption" : "comment"
        let comments = p.commentCount == 1 ? "1 \(noun)" : "\(p.commentCount) \(noun)s"
        let ask = (p.isAsk ? "[ask] " : "") + (p.picture != nil && p.hidden == nil ? "[picture] " : "")
        return
            "\(id(p.id))  \(score(p.score))  \(colored(SafeText.line(label(p.pack, p.packName)), pack: p.pack))  \(who(p.author, p.role))\(named(p.displayName))  \(dim(time(p.hlc)))  \(ask)\(SafeText.line(p.title))\(p.edited ? " (edited)" : "")  \(dim("(\(comments))"))"
    }

    /// A display name published in the post's pack, quoted after the tag (the tag stays: a
    /// name proves nothing).
    func named(_ name: String?) -> String { name.map { " \"\(SafeText.line($0))\"" } ?? "" }

    /// A pseudonym's tag, with its role when it is the pack's Alpha or an admin.
    func who(_ key: PublicKey, _ role: AuthorRole?) -> String {
        pseudonymTag(key) + (role.map { " (\($0.rawValue))" } ?? "")
    }

    // MARK: JSON

    public func json(_ r: Reply) -> JSON {
        var kv: [(String, JSON)] = [("ok", true)]
        switch r {
        case .done(let msg, let opID):
            if let opID { kv.append(("id", .string(opID.hex))) }
            kv.append(("message", .string(msg)))
        case .created(let p): kv += [("id", .string(p.id.hex)), ("pack", pack(p, joined: true))]
        case .packs(let list): kv.append(("packs", .array(list.map { pack($0.pack, joined: $0.joined) })))
        case .feed(let posts, _, _): kv.append(("posts", .array(posts.map(post))))
        case .thread(let t, _): kv += [("post", post(t.post)), ("comments", .array(t.comments.map(comment)))]
        case .den(let d):
            kv += [
                ("packs", .array(d.view.packs.map { pack($0, joined: true) })), ("joined", .array(d.joined.map { .string($0.id.hex) })),
                ("posts", .array(d.view.posts.map(post))), ("comments", .array(d.view.comments.map(comment))),
                ("totalUpvotes", .int(d.view.totalUpvotes)), ("places", .array(d.places.map(placeJSON))),
                ("reviews", .array(d.reviews.map(reviewJSON)))
            ]
        case .whoami(let w):
            kv += [
                ("node", .string(w.nodeID)), ("location", w.location.map { .string("\($0.lat),\($0.lon)") } ?? .null),
                ("cell", w.cell.map { .string($0) } ?? .null), ("dataDir", .string(w.dataDir)),
                ("joinedPacks", .int(w.joinedPacks)), ("ops", .int(w.ops)), ("listen", w.listen.map { .string($0) } ?? .null),
                ("reachable", .array(w.reachable.map { .string($0) })), ("lanBeacon", .bool(w.lanBeacon))
            ]
        case .help(let h): kv.append(("help", .string(h)))
        case .trusted(let t):
            kv += [
                ("keys", .array(t.keys.map { .string($0.hex) })), ("own", t.own.map { .string($0.hex) } ?? .null),
                ("file", .string(t.file))
            ]
        case .peers(let ps, let note):
            if let note { kv.append(("note", .string(note))) }
            kv.append(
                (
                    "peers",
                    .array(
                        ps.map {
                            .object([
                                ("address", .string($0.address)), ("state", .string($0.state)),
                                ("cell", $0.cell.map { .string($0) } ?? .null)
                            ])
                        })
                ))
        case .stats(let pairs): kv.append(("stats", .object(pairs.map { ($0.0, .int($0.1)) })))
        case .search(let hits): kv.append(("results", .array(hits.map(searchHit))))
        case .inbox(let inbox): kv += inboxJSON(inbox)
        case .map(let m, _): kv += mapJSON(m)
        case .bye: kv.append(("bye", true))
        case .moderation(let m): kv += moderationJSON(m)
        case .places(let m): kv += placesJSON(m)
        case .conversation(let c): kv += conversationJSON(c)
        case .privatePack(let c): kv += privatePackJSON(c)
        case .caption(let c): kv += captionJSON(c)
        case .contact(let c): kv += contactJSON(c)
        }
        return .object(kv)
    }

    public static func error(_ message: String) -> JSON { .object([("ok", false), ("error", .string(message))]) }

    func pack(_ p: PackSummary, joined: Bool) -> JSON {
        .object([
            ("id", .string(p.id.hex)), ("name", .string(p.name)), ("tags", .array(p.tags.map { .string($0) })),
            ("color", .string(p.color)), ("locked", .bool(p.locked)), ("admin", .bool(p.isAdmin)),
            ("radius", p.fence.map { .double($0.radiusMeters) } ?? .null),
            ("distance", p.distanceMeters.map { .double($0) } ?? .null),
            ("label", .string(label(p.id, p.name))), ("alpha", .string(pseudonymTag(p.alpha))), ("popularity", .int(p.popularity)),
            ("posts", .int(p.postCount)),
            ("created", .int(Int(p.createdMs))), ("expires", p.expiresMs.map { .int(Int($0)) } ?? .null), ("joined", .bool(joined))
        ])
    }

    func post(_ p: PostView) -> JSON {
        .object([
            ("id", .string(p.id.hex)), ("pack", .string(p.pack.hex)), ("packName", .string(p.packName)),
            ("packLabel", .string(label(p.pack, p.packName))),
            ("author", .string(pseudonymTag(p.author))), ("role", p.role.map { .string($0.rawValue) } ?? .null),
            ("title", .string(p.title)), ("body", .string(p.body)),
            ("tags", .array(p.tags.map { .string($0) })), ("score", .int(p.score)), ("up", .int(p.upvotes)),
            ("down", .int(p.downvotes)), ("comments", .int(p.commentCount)), ("time", .int(Int(p.hlc.physicalMs))),
            ("hidden", p.hidden.map { .string($0.rawValue) } ?? .null), ("edited", .bool(p.edited)),
            ("displayName", p.displayName.map { .string($0) } ?? .null),
            ("displayAbout", p.displayAbout.map { .string($0) } ?? .null), ("ask", .bool(p.isAsk)),
            ("place", p.place.map { .string($0) } ?? .null), ("placeDistance", placeDistance(p).map { .double($0) } ?? .null),
            ("picked", p.picked.map { .string($0.hex) } ?? .null),
            ("picture", pictureJSON(p.picture))
        ])
    }

    func comment(_ c: CommentView) -> JSON {
        .object([
            ("id", .string(c.id.hex)), ("post", .string(c.post.hex)), ("parent", c.parent.map { .string($0.hex) } ?? .null),
            ("author", .string(pseudonymTag(c.author))), ("role", c.role.map { .string($0.rawValue) } ?? .null), ("body", .string(c.body)),
            ("score", .int(c.score)),
            ("depth", .int(c.depth)), ("removed", .bool(c.removed)), ("edited", .bool(c.edited)), ("time", .int(Int(c.hlc.physicalMs))),
            ("picked", .bool(c.picked))
        ])
    }

    // MARK: events

    public func event(_ e: NodeEvent) -> String {
        switch (mode, e) {
        case (.json, .newPost(let p)): return JSON.object([("event", "post"), ("post", post(p))]).render()
        case (.json, .newComment(let c, let name)):
            return JSON.object([("event", "comment"), ("packName", .string(name)), ("comment", comment(c))]).render()
        case (.json, .voteOnYours(let t, let s)):
            return JSON.object([("event", "vote"), ("target", .string(t.hex)), ("score", .int(s))]).render()
        case (.json, .peerJoined(let a)): return JSON.object([("event", "peer_joined"), ("address", .string(a))]).render()
        case (.json, .peerLeft(let a)): return JSON.object([("event", "peer_left"), ("address", .string(a))]).render()
        case (_, .newPost(let p)): return "* new post " + postLine(p)
        case (_, .newComment(let c, let name)):
            return
                "* new comment in \(SafeText.line(name)) on \(id(c.post)) by \(who(c.author, c.role)): \(SafeText.block(c.body, indent: "    "))"
        case (_, .voteOnYours(let t, let s)): return "* vote on your \(id(t)): score \(score(s))"
        case (_, .peerJoined(let a)): return "* peer joined \(a)"
        case (_, .peerLeft(let a)): return "* peer left \(a)"
        case (_, .conversation(let c)): return conversationEvent(c)
        }
    }
}
