import SkwadModel
import SkwadNode
import SkwadReplica

/// What commands run against: the `Node`, and what the shell adds. `peers` comes from a
/// closure the shell provides, so the REPL works the same offline.
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

    /// Runs a command, parsed from a line (`Registry.parse`) or named with JSON arguments
    /// (`Registry.command(named:arguments:)`).
    public func run(_ cmd: any REPLCommand) async throws -> any REPLReply { try await cmd.run(self) }

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
            guard let h = Registry.helped.first(where: { $0.verbs[0] == topic.lowercased() }), let usage = h.usage else {
                throw CommandError("no command '\(clip(topic))'; type help")
            }
            var lines =
                Wording.wrap(usage, width: 80, indent: "    ") + Wording.wrap(h.summary, width: 78, indent: "  ").map { "  " + $0 }
            if h.name == "create" {
                lines += Wording.wrap("colours (--color): " + Palette.names.joined(separator: ", "), width: 78, indent: "  ").map {
                    "  " + $0
                }
            }
            return lines.joined(separator: "\n")
        }
        let width = (Registry.helpNames.map(\.count).max() ?? 0) + 2
        let pad = String(repeating: " ", count: width + 2)
        var lines = ["commands (help COMMAND shows how to use one):"]
        for h in Registry.helped {
            let wrapped = Wording.wrap(h.summary, width: 80 - pad.count)
            lines.append("  " + h.verbs[0].padding(toLength: width, withPad: " ", startingAt: 0) + wrapped[0])
            lines += wrapped.dropFirst().map { pad + $0 }
        }
        lines += Wording.wrap(
            "PACK is a pack name (NAME·abcd when several packs share it) or an id prefix; "
                + "ID is a post or comment id prefix; quote text with spaces.",
            width: 80)
        return lines.joined(separator: "\n")
    }
}
