import Foundation
import SkwadModel
import SkwadNode
import SkwadReplica

/// Captions and pictures (issue 28, CapGrab): `ask PACK "PROMPT" ["BODY"] [--image FILE]`,
/// `pick ID` and `open ID [--to FILE]`. `Command.parse` hands these here; captions are
/// comments on the ask (`comment ASK "TEXT"`), voted with `up`/`down`.
public enum CaptionCommand: Equatable, Sendable {
    case ask(pack: String, prompt: String, body: String, tags: [String], image: String? = nil)
    case pick(String)
    /// Writes the picture of a post or ask to a file.
    case open(String, to: String?)

    static let verbs: Set<String> = ["ask", "pick", "open"]

    static func parse(verb: String, args: inout Args) throws -> CaptionCommand? {
        switch verb {
        case "ask":
            let pack = try args.positional("PACK"), prompt = try args.positional("\"PROMPT\"")
            let tags = try args.list("--tags"), image = try args.value("--image")  // options first: BODY is optional
            let body = args.optionalPositional() ?? ""
            return .ask(pack: pack, prompt: prompt, body: body, tags: tags, image: image)
        case "pick": return .pick(try args.positional("ID"))
        case "open": return .open(try args.positional("ID"), to: try args.value("--to"))
        default: return nil
        }
    }
}

let captionHelp: [(name: String, usage: String, summary: String)] = [
    (
        "ask", "ask PACK \"PROMPT\" [\"BODY\"] [--tags a,b] [--image FILE]",
        "ask a pack for captions, of a picture with --image; answers (comment ASK \"TEXT\") are shown by score, and you pick one"
    ),
    (
        "open", "open ID [--to FILE]",
        "write the picture of a post or ask to a file (default: DATA/pictures/ID.EXT) and say its type, size and dimensions"
    ),
    ("pick", "pick ID", "(the asker) pick the favourite caption of your ask: shown first, its author is told; the last pick counts")
]

public enum CaptionReply: Sendable {
    case asked(OpID)
    case picked(pick: OpID, ask: OpID, caption: OpID)
    case opened(OpenedPicture)
}

/// Reads a picture file for `--image`: at most `maxBytes` (a larger file is refused before it
/// is read; the picture itself must be at most 1 MiB once its metadata is stripped).
enum PictureFile {
    static let maxBytes = 8 << 20

    static func read(_ path: String) throws -> [UInt8] {
        let attrs: [FileAttributeKey: Any]
        do { attrs = try FileManager.default.attributesOfItem(atPath: path) } catch {
            throw CommandError("cannot read \(SafeText.line(path)): no such file")
        }
        guard (attrs[.type] as? FileAttributeType) == .typeRegular else { throw CommandError("\(SafeText.line(path)) is not a file") }
        let size = (attrs[.size] as? NSNumber)?.intValue ?? 0
        guard size <= maxBytes else {
            throw CommandError("\(SafeText.line(path)) is \(size) bytes; a picture is at most 1 MiB (1048576 bytes) without its metadata")
        }
        do { return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) } catch {
            throw CommandError("cannot read \(SafeText.line(path)): \(error.localizedDescription)")
        }
    }
}

extension Executor {
    func runCaption(_ cmd: CaptionCommand) async throws -> CaptionReply {
        switch cmd {
        case let .ask(pack, prompt, body, tags, image):
            let bytes = try image.map { try PictureFile.read($0) }
            return .asked(try await node.ask(pack: pack, prompt: prompt, body: body, tags: tags, image: bytes))
        case let .open(ref, path):
            return .opened(try await node.openPicture(ref, to: path))
        case .pick(let ref):
            let r = try await node.pick(ref)
            return .picked(pick: r.pick, ask: r.ask, caption: r.caption)
        }
    }
}

extension Renderer {
    func captionText(_ r: CaptionReply) -> String {
        switch r {
        case .asked(let id): return "asked \(self.id(id)); captions come as comments (comment \(self.id(id)) \"TEXT\")"
        case let .picked(_, ask, caption): return "picked \(id(caption)) for \(id(ask))"
        case .opened(let p):
            return "\(SafeText.line(p.path))  \(p.type.name), \(p.size) bytes, \(p.width)×\(p.height)"
        }
    }

    func captionJSON(_ r: CaptionReply) -> [(String, JSON)] {
        switch r {
        case .asked(let id): return [("id", .string(id.hex))]
        case let .picked(pick, ask, caption):
            return [("id", .string(pick.hex)), ("ask", .string(ask.hex)), ("caption", .string(caption.hex))]
        case .opened(let p):
            return [
                ("path", .string(p.path)), ("type", .string(p.type.name)), ("size", .int(p.size)),
                ("width", .int(p.width)), ("height", .int(p.height))
            ]
        }
    }
}
