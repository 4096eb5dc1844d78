import SkwadModel
import SkwadNode
import SkwadReplica

/// Captions (issue 28, CapGrab): `ask PACK "PROMPT" ["BODY"]` and `pick ID`. `Command.parse`
/// hands these here; captions are comments on the ask (`comment ASK "TEXT"`), voted with
/// `up`/`down`.
public enum CaptionCommand: Equatable, Sendable {
    case ask(pack: String, prompt: String, body: String, tags: [String])
    case pick(String)

    static let verbs: Set<String> = ["ask", "pick"]

    static func parse(verb: String, args: inout Args) throws -> CaptionCommand? {
        switch verb {
        case "ask":
            let pack = try args.positional("PACK"), prompt = try args.positional("\"PROMPT\"")
            let body = args.optionalPositional() ?? ""
            return .ask(pack: pack, prompt: prompt, body: body, tags: try args.list("--tags"))
        case "pick": return .pick(try args.positional("ID"))
        default: return nil
        }
    }
}

let captionHelp: [(name: String, usage: String, summary: String)] = [
    (
        "ask", "ask PACK \"PROMPT\" [\"BODY\"] [--tags a,b]",
        "ask a pack for captions; answers (comment ASK \"TEXT\") are shown by score, and you pick one"
    ),
    ("pick", "pick ID", "(the asker) pick the favourite caption of your ask: shown first, its author is told; the last pick counts")
]

public enum CaptionReply: Sendable {
    case asked(OpID)
    case picked(pick: OpID, ask: OpID, caption: OpID)
}

extension Executor {
    func runCaption(_ cmd: CaptionCommand) async throws -> CaptionReply {
        switch cmd {
        case let .ask(pack, prompt, body, tags):
            return .asked(try await node.ask(pack: pack, prompt: prompt, body: body, tags: tags))
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
        }
    }

    func captionJSON(_ r: CaptionReply) -> [(String, JSON)] {
        switch r {
        case .asked(let id): return [("id", .string(id.hex))]
        case let .picked(pick, ask, caption):
            return [("id", .string(pick.hex)), ("ask", .string(ask.hex)), ("caption", .string(caption.hex))]
        }
    }
}
