import SkwadModel
import SkwadNode
import SkwadReplica

/// What a command produced, rendered as text (plain or terminal) or as the fields of its JSON
/// object: both from the reply's own type, the one place each is written.
public protocol REPLReply: Sendable {
    func text(_ r: Renderer) -> String
    /// The JSON object's fields after `"ok": true`.
    func json(_ r: Renderer) -> [(String, JSON)]
    /// Printed as its JSON object in every mode, never wrapped (`map --json`).
    var printsJSON: Bool { get }
    /// The REPL stops after printing it.
    var quits: Bool { get }
}

extension REPLReply {
    public var printsJSON: Bool { false }
    public var quits: Bool { false }
}

/// A one-line outcome: what was done, and the op (or pack) it made or named.
struct DoneReply: REPLReply {
    let message: String
    let id: OpID?
    init(_ message: String, id: OpID?) { self.message = message; self.id = id }
    func text(_ r: Renderer) -> String { SafeText.block(message, indent: "  ") }  // may quote pack names
    func json(_ r: Renderer) -> [(String, JSON)] { (id.map { [("id", JSON.string($0.hex))] } ?? []) + [("message", .string(message))] }
}

struct HelpReply: REPLReply {
    let help: String
    func text(_ r: Renderer) -> String { help }
    func json(_ r: Renderer) -> [(String, JSON)] { [("help", .string(help))] }
}

struct ByeReply: REPLReply {
    var quits: Bool { true }
    func text(_ r: Renderer) -> String { "bye" }
    func json(_ r: Renderer) -> [(String, JSON)] { [("bye", true)] }
}

/// A neighbour as `peers` shows it.
public struct PeerInfo: Sendable, Equatable {
    public let address: String
    public let state: String
    public let cell: String?
    public init(address: String, state: String, cell: String?) { self.address = address; self.state = state; self.cell = cell }
}
