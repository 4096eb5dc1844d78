import SkwadModel
import SkwadNode
import SkwadReplica

/// Runs parsed commands against a `Node`. `peers` comes from a closure the shell provides,
/// so the REPL works the same offline.
public struct Executor: Sendable {
    public let node: Node
    public var peers: @Sendable () async -> [PeerInfo] = { [] }
    /// Do replies carry thumbnails of pictures (`feed`, `show`)? The REPL turns it off unless
    /// it writes to a terminal, so that nothing is decoded for lines never drawn.
    public var drawsPictures = true

    public init(node: Node) { self.node = node }

    /// The feed's thumbnails: for each post whose picture is whole here and shown, a few
    /// half-block lines (decoded within `PictureThumbnail.maxPixels`).
    func feedThumbnails(_ posts: [PostView]) async -> [OpID: [String]] {
        var out: [OpID: [String]] = [:]
        for p in posts where p.picture != nil && p.hidden == nil {
            guard let bytes = await node.pictureBytesShown(p.id), let image = PictureThumbnail.decode(bytes) else { continue }
            out[p.id] = PictureThumbnail.halfBlocks(image, columns: PictureThumbnail.feedColumns, rows: PictureThumbnail.feedRows)
        }
        return out
    }

    public func run(_ cmd: Command) async throws -> Reply {
        switch cmd {
        case .help(let topic): return .help(try Self.help(topic))
        case .whoami: return .whoami(await node.whoami())
        case .locate(let p):
            try await node.locate(p)
            return .done("location set to \(p)", id: nil)
        case let .create(name, radius, locked, tags, color):
            return .created(try await node.createPack(name: name, radiusMeters: radius, locked: locked, tags: tags, color: color))
        case let .packs(sort, tag): return .packs(await node.packs(sort: sort, tag: tag))
        case .join(let ref):
            let p = try await node.join(ref)
            return .done("joined \(p.name)" + Self.outsideNote(p), id: p.id)
        case .leave(let ref):
            let p = try await node.leave(ref)
            return .done("left \(p.name)", id: p.id)
        case let .post(pack, title, body, tags, here, image):
            let bytes = try image.map { try PictureFile.read($0) }
            let id = try await node.post(pack: pack, title: title, body: body, tags: tags, here: here, image: bytes)
            let held = await node.isHeld(id) ? Self.heldNote : ""
            return .done("posted \(id.short(await node.displayIDLength()))" + held, id: id)
        case let .comment(target, text):
            let id = try await node.comment(on: target, text: text)
            let word = await node.isReviewReply(id) ? "replied" : "commented"  // `reply REVIEW`: the landlord's reply
            let held = await node.isHeld(id) ? Self.heldNote : ""
            return .done("\(word) \(id.short(await node.displayIDLength()))" + held, id: id)
        case let .vote(target, value):
            let id = try await node.vote(on: target, value: value)
            let word = value > 0 ? "upvoted" : value < 0 ? "downvoted" : "vote withdrawn on"
            return .done("\(word) \(target)", id: id)
        case let .feed(pack, sort, limit, tag, within, images):
            let posts = try await node.feed(pack: pack, sort: sort, limit: limit, tag: tag, withinMeters: within)
            var empty: String?
            if posts.isEmpty {
                let tagged = tag.map { " tagged \($0)" } ?? ""
                var label: String?
                if let pack {
                    let p = try await node.resolvePack(pack)
                    label = await node.packLabel(p.id) ?? p.name
                }
                let inPack = label.map { " in \($0)" } ?? ""
                if let within {
                    empty = "no post\(tagged)\(inPack) lies within \(Renderer.distance(within)) of you (try a larger distance)"
                } else if let tag, label == nil {
                    empty = "no post tagged \(tag), nor in a pack tagged \(tag)"
                } else if let label {
                    empty =
                        tag == nil
                        ? "no posts in \(label) yet: post one (post \(CommandWord.quote(label)) \"TITLE\" \"BODY\")"
                        : "no post\(tagged) in \(label)"
                }
            }
            return .feed(posts, thumbnails: images && drawsPictures ? await feedThumbnails(posts) : [:], empty: empty)
        case let .search(text, pack, limit): return .search(try await node.search(text, pack: pack, limit: limit))
        case .inbox: return .inbox(try await node.inbox())
        case let .map(radius, json): return .map(try await MapView.around(node, radius: radius), json: json)
        case let .show(ref, images):
            let t = try await node.show(ref)
            let bytes = images && drawsPictures && t.post.picture != nil ? await node.pictureBytesShown(t.post.id) : nil
            return .thread(t, thumbnail: bytes.flatMap(PictureThumbnail.decode).map { PictureThumbnail.halfBlocks($0) } ?? [])
        case .delete(let ref):
            let id = try await node.delete(ref)
            return .done("deleted \(ref)", id: id)
        case .den: return .den(await node.den())
        case .peers:
            let list = await peers()
            return .peers(list, note: list.isEmpty ? await noPeersNote() : nil)
        case let .trust(key, on):
            let (k, changed) = try await node.trust(key, on: on)
            let file = await node.trusted().file
            let short = String(k.hex.prefix(16)) + "…"
            if !changed { return .done(on ? "already trusted: \(short)" : "not trusted: \(short) (see: trusted)", id: nil) }
            return .done(
                on
                    ? "trusted admin key \(short): its packs are permanent here and it may moderate any pack; written to \(file)"
                    : "no longer trusted: \(short); written to \(file)", id: nil)
        case .trusted: return .trusted(await node.trusted())
        case .stats: return .stats(await node.counters())
        case .quit: return .bye
        case .moderation(let m): return .moderation(try await runModeration(m))
        case .places(let m): return .places(try await runPlaces(m))
        case .conversation(let c): return .conversation(try await runConversation(c))
        case .privatePack(let c): return .privatePack(try await runPrivatePack(c))
        case .contact(let c): return try await runContact(c)
        case .caption(let c): return .caption(try await runCaption(c))
        }
    }

    /// For a locked pack you are outside of: how far, and what that means.
    static func outsideNote(_ p: PackSummary) -> String {
        guard p.locked, let f = p.fence, let d = p.distanceMeters, d > f.radiusMeters else { return "" }
        return "; it is locked to \(Renderer.distance(f.radiusMeters)) around its centre and you are \(Renderer.distance(d)) away "
            + "(\(Renderer.distance(d - f.radiusMeters)) outside): you will see and post in it only from inside"
    }

    /// Why `peers` lists nobody: offline, seeds not answering, or nobody joined yet.
    func noPeersNote() async -> String {
        guard let listen = await node.listenAddress else { return "offline (--offline): start without it, or with --peer HOST:PORT" }
        if let s = await node.seedStatus() {
            let seeds = s.seeds.joined(separator: ", ")
            let next = "trying again in \(max(1, (s.nextInMs + 999) / 1000)) s"
            return s.unanswered == 0
                ? "no peers yet: joining through \(seeds) (\(next) if it does not answer)"
                : "no peers: seed \(seeds) is not answering (\(Wording.count(s.unanswered, "try", "tries")) so far); "
                    + "\(next), waiting longer each time"
        }
        let me = await node.whoami()
        let at = me.reachable.first ?? listen
        let lan = me.lanBeacon ? "looking for neighbours on the local network; " : ""
        return "no peers yet: \(lan)others join through you with --peer \(at)"
    }

    /// `help` and `help CMD`, every line at most 80 columns.
    static func help(_ topic: String?) throws -> String {
        if let topic {
            guard let h = commandHelp.first(where: { $0.name == topic.lowercased() }) else {
                throw CommandError("no command '\(clip(topic))'; type help")
            }
            var lines =
                Wording.wrap(h.usage, width: 80, indent: "    ") + Wording.wrap(h.summary, width: 78, indent: "  ").map { "  " + $0 }
            if h.name == "create" {
                lines += Wording.wrap("colours (--color): " + Palette.names.joined(separator: ", "), width: 78, indent: "  ").map {
                    "  " + $0
                }
            }
            return lines.joined(separator: "\n")
        }
        let width = (commandHelp.map(\.name.count).max() ?? 0) + 2
        let pad = String(repeating: " ", count: width + 2)
        var lines = ["commands (help COMMAND shows how to use one):"]
        for h in commandHelp {
            let wrapped = Wording.wrap(h.summary, width: 80 - pad.count)
            lines.append("  " + h.name.padding(toLength: width, withPad: " ", startingAt: 0) + wrapped[0])
            lines += wrapped.dropFirst().map { pad + $0 }
        }
        lines += Wording.wrap(
            "PACK is a pack name (NAME·abcd when several packs share it) or an id prefix; ID is a post or comment id prefix; quote text with spaces.",
            width: 80)
        return lines.joined(separator: "\n")
    }
}
