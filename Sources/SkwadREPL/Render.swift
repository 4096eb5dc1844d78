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

    public func text(_ r: any REPLReply) -> String { r.text(self) }

    /// A pack's tags as shown: `admin` only on a pack of a key this node trusts (anyone may
    /// tag a pack so), and always there.
    func shownTags(_ p: PackSummary) -> [String] {
        let rest = p.tags.filter { $0.lowercased() != "admin" }
        return p.isAdmin ? ["admin"] + rest : rest
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
            "\(id(p.id))  \(score(p.score))  \(colored(SafeText.line(label(p.pack, p.packName)), pack: p.pack))  "
            + "\(who(p.author, p.role))\(named(p.displayName))  \(dim(time(p.hlc)))  "
            + "\(ask)\(SafeText.line(p.title))\(p.edited ? " (edited)" : "")  \(dim("(\(comments))"))"
    }

    /// A display name published in the post's pack, quoted after the tag (the tag stays: a
    /// name proves nothing).
    func named(_ name: String?) -> String { name.map { " \"\(SafeText.line($0))\"" } ?? "" }

    /// A pseudonym's tag, with its role when it is the pack's Alpha or an admin.
    func who(_ key: PublicKey, _ role: AuthorRole?) -> String {
        pseudonymTag(key) + (role.map { " (\($0.rawValue))" } ?? "")
    }

    // MARK: JSON

    public func json(_ r: any REPLReply) -> JSON { .object([("ok", true)] + r.json(self)) }

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
                "* new comment in \(SafeText.line(name)) on \(id(c.post)) by \(who(c.author, c.role)): "
                + SafeText.block(c.body, indent: "    ")
        case (_, .voteOnYours(let t, let s)): return "* vote on your \(id(t)): score \(score(s))"
        case (_, .peerJoined(let a)): return "* peer joined \(a)"
        case (_, .peerLeft(let a)): return "* peer left \(a)"
        case (_, .conversation(let c)): return conversationEvent(c)
        }
    }
}
