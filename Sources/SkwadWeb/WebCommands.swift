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
        return await run(name) { try Registry.command(named: name, json: body.isEmpty ? Data("{}".utf8) : body) }
    }

    /// Runs the command `make` builds (a thrown error is the 400 reply, as is the command's own).
    func run(_ name: String, _ make: () throws -> any REPLCommand) async -> (status: Int, json: String) {
        await perform { try await executor.run(try make()) }
    }

    /// `POST /api/v1/swipe-key` with `{"key":"y"|"n"|"u", "place": FULL ID, "filters": {…}}`:
    /// one key of the REPL's swipe mode, the page holding the place on screen.
    func swipe(body: Data) async -> (status: Int, json: String) {
        struct Key: Decodable {
            var key: String
            var place: String?
            var filters: [String: ArgValue]?
        }
        guard let k = try? JSONDecoder().decode(Key.self, from: body), ["y", "n", "u"].contains(k.key) else {
            return (400, Renderer.error("swipe-key takes {\"key\": \"y\", \"n\" or \"u\", \"place\": ID, \"filters\": {…}}").render())
        }
        return await perform { try await executor.swipe(key: k.key, place: k.place, filters: k.filters ?? [:]) }
    }

    /// `POST /api/v1/qr` with `{"text": CODE}` (at most `maxQRText` characters): the QR
    /// code's modules, `{"ok":true,"size":N,"rows":["0110…",…]}` (1: dark), for the page to
    /// draw as SVG elements. Nothing from the node is read: the page asks for a code it shows.
    func qr(body: Data) -> (status: Int, json: String) {
        struct Text: Decodable { var text: String }
        guard let t = try? JSONDecoder().decode(Text.self, from: body), !t.text.isEmpty, t.text.count <= Self.maxQRText else {
            return (400, Renderer.error("qr takes {\"text\": CODE} of 1 to \(Self.maxQRText) characters").render())
        }
        guard let rows = QRText.modules(t.text) else { return (400, Renderer.error("that text does not fit a QR code").render()) }
        let lines = rows.map { row in String(row.map { $0 ? "1" : "0" }) }
        return (200, JSON.object([("ok", .bool(true)), ("size", .int(rows.count)), ("rows", .array(lines.map { .string($0) }))]).render())
    }

    /// The longest text `qr` encodes (a join code is about 130 characters).
    static let maxQRText = 512

    /// Runs `work` and renders its reply as the REPL's JSON mode does; a thrown error is a 400.
    func perform(_ work: () async throws -> any REPLReply) async -> (status: Int, json: String) {
        let node = executor.node
        var r = Renderer(mode: .json)
        r.nowMs = wallClockMs()
        r.here = await node.location
        do {
            let reply = try await work()
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
