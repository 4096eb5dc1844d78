import Foundation
import SkwadModel
import SkwadNode
import SkwadReplica

/// Captions and pictures (issue 28, CapGrab): `ask PACK "PROMPT" ["BODY"] [--image FILE]`,
/// `pick ID` and `open ID [--to FILE]`. Captions are comments on the ask (`comment ASK
/// "TEXT"`), voted with `up`/`down`.
struct AskCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "ask", usage: "ask PACK \"PROMPT\" [\"BODY\"] [--tags a,b] [--image FILE]",
        summary: "ask a pack for captions, of a picture with --image; answers (comment ASK \"TEXT\") are shown by score, and you pick one",
        // Options before BODY: it is optional.
        params: [
            .word("pack", "PACK"), .word("prompt", "\"PROMPT\""), .option("tags", "--tags", .list, absent: .array([])),
            .option("image", "--image"), .optionalWord("body", absent: .string(""))
        ],
        completion: Completes(first: [.packs]))
    var pack: String
    var prompt: String
    var tags: [String]
    var image: String?
    var body = ""

    func run(_ x: Executor) async throws -> any REPLReply {
        let bytes = try image.map { try PictureFile.read($0) }
        return CaptionReply.asked(try await x.node.ask(pack: pack, prompt: prompt, body: body, tags: tags, image: bytes))
    }
}

struct OpenCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "open", usage: "open ID [--to FILE]",
        summary: "write the picture of a post or ask to a file (default: DATA/pictures/ID.EXT) and say its type, size and dimensions",
        params: [.word("post", "ID"), .option("to", "--to")], completion: Completes(first: [.ops]))
    var post: String
    var to: String?
    func run(_ x: Executor) async throws -> any REPLReply { CaptionReply.opened(try await x.node.openPicture(post, to: to)) }
}

struct PickCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "pick", usage: "pick ID",
        summary: "(the asker) pick the favourite caption of your ask: shown first, its author is told; the last pick counts",
        params: [.word("caption", "ID")], completion: Completes(first: [.ops]))
    var caption: String
    func run(_ x: Executor) async throws -> any REPLReply {
        let r = try await x.node.pick(caption)
        return CaptionReply.picked(pick: r.pick, ask: r.ask, caption: r.caption)
    }
}

public enum CaptionReply: REPLReply {
    case asked(OpID)
    case picked(pick: OpID, ask: OpID, caption: OpID)
    case opened(OpenedPicture)

    public func text(_ r: Renderer) -> String { r.captionText(self) }
    public func json(_ r: Renderer) -> [(String, JSON)] { r.captionJSON(self) }
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
