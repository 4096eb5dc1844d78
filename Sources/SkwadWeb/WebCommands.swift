import Foundation
import SkwadNode
import SkwadREPL

/// Runs a registry command named by the API against the REPL's executor and renders the
/// reply as the REPL's `--json` mode does: one JSON object, `"ok"` first.
public struct WebCommands: Sendable {
    public let executor: Executor
    let events: WebEvents

    /// Verbs that only mean something in the terminal (`quit` stops the REPL).
    static let terminalOnly: Set<String> = ["quit"]

    /// The names the API answers to: every command in the registry but the terminal's own.
    static let names: Set<String> = Set(Registry.all.map { $0.spec.name }).subtracting(terminalOnly)

    /// The HTTP status and the JSON text for `POST /api/v1/NAME` with `body` (a JSON object,
    /// or empty for no arguments).
    func run(_ name: String, body: Data) async -> (status: Int, json: String) {
        guard Self.names.contains(name) else {
            return (404, Renderer.error("no command '\(Self.clip(name))'").render())
        }
        let node = executor.node
        var r = Renderer(mode: .json)
        r.nowMs = wallClockMs()
        r.here = await node.location
        do {
            let command = try Registry.command(named: name, json: body.isEmpty ? Data("{}".utf8) : body)
            let reply = try await executor.run(command)
            r.idLength = await node.displayIDLength()
            r.styles = await node.packStyles()
            r.joinedCount = await node.joinedPackIDs.count
            events.setStyles(r.styles, idLength: r.idLength)
            return (200, r.json(reply).render())
        } catch {
            let line = "\(error)".split(separator: "\n").first.map(String.init) ?? "error"
            return (400, Renderer.error(Self.clip(line, 300)).render())
        }
    }

    static func clip(_ s: String, _ n: Int = 40) -> String { s.count <= n ? s : String(s.prefix(n)) + "…" }
}
