import Foundation
import Testing
import SkwadModel
import SkwadNode
@testable import SkwadREPL

/// Issue 11, part A: what the moderation verbs print of network text (report reasons and
/// targets' titles, pack edits in the log) is made safe, and the verbs work through the REPL.
@Suite struct ModerationRenderingTests {
    static let hostile = "bad\u{1B}]0;owned\u{07}\u{202E}\nfake line"

    @Test(arguments: [Renderer.Mode.plain, .terminal, .json])
    func reportsAndTheLogAreRenderedSafely(mode: Renderer.Mode) async throws {
        let dirA = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-modrender-\(UUID().uuidString)").path
        let dirB = dirA + "-b"
        defer { for d in [dirA, dirB] { try? FileManager.default.removeItem(atPath: d) } }
        let a = try Node(config: NodeConfig(dataDir: dirA)), b = try Node(config: NodeConfig(dataDir: dirB))
        let fromA = OpBox(), fromB = OpBox()
        await a.setLocalOpSink { fromA.add($0.envelope.serialized()) }
        await b.setLocalOpSink { fromB.add($0.envelope.serialized()) }
        _ = try await a.createPack(name: "Quad", radiusMeters: nil, locked: false, tags: [], color: "")
        _ = await b.receive(fromA.all)
        let post = try await b.post(pack: "Quad", title: Self.hostile, body: "", tags: [])
        _ = try await b.report(post.short(8), reason: Self.hostile)
        _ = await a.receive(fromB.all)
        let replA = REPL(executor: Executor(node: a), reader: LineReader(interactive: false, historyPath: nil), mode: mode)
        func run(_ line: String) async -> String { await replA.handle(line, nowMs: wallClockMs()).output ?? "" }
        let reports = await run("reports")
        _ = await run("hide \(post.short(8)) \"\(Self.hostile.replacingOccurrences(of: "\n", with: " "))\"")
        _ = await run("edit Quad --tags x")
        let log = await run("log Quad")
        let blocks = await run("blocks")
        for out in [reports, log, blocks] {
            let stripped = out.replacingOccurrences(of: #"\u{1B}\[[0-9;]*m"#, with: "", options: .regularExpression)
            for bad in ["\u{1B}", "\u{07}", "\u{202E}", "\nfake line"] {
                #expect(!stripped.contains(bad), "\(out.debugDescription)")
            }
        }
        if mode == .json {
            #expect(reports.hasPrefix(#"{"ok":true,"reports":[{"id":""#))
            #expect(log.contains(#""action":"hide""#) && log.contains(#""action":"edit pack""#))
        } else {
            #expect(reports.contains("reason: bad") && reports.contains("on \(post.short(6))"))
            #expect(log.contains("(alpha)  hide  ") && log.contains("edit pack  tags: x"))
        }
    }
}
