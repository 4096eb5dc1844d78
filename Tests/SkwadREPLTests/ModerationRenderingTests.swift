import Foundation
import Testing
import SkwadModel
import SkwadNode
@testable import SkwadREPL

/// Issue 11, part A: what the moderation verbs print of network text (report reasons and
/// targets' titles, pack edits in the log) is made safe, and the verbs work through the REPL.
@Suite(.serialized) struct ModerationRenderingTests {
    static let hostile = "bad\u{1B}]0;owned\u{07}\u{202E}\nfake line"

    @Test(arguments: [Renderer.Mode.plain, .terminal, .json])
    func reportsAndTheLogAreRenderedSafely(mode: Renderer.Mode) async throws {
        let net = try await NodePair("modrender")
        let (a, b) = (net.a, net.b)
        #expect(try await net.packOnBoth("Quad"))
        let post = try await b.post(pack: "Quad", title: Self.hostile, body: "", tags: [])
        let report = try await b.report(post.short(8), reason: Self.hostile)
        #expect(
            await net.eventually {
                guard (try? await a.show(post.hex)) != nil else { return false }
                return (try? await a.reports(pack: "Quad").map(\.id)) == [report]
            })
        let replA = NodePair.repl(a, mode: mode)
        func run(_ line: String) async -> String { await replA.handle(line, nowMs: wallClockMs()).output ?? "" }
        let reports = await run("reports")
        _ = await run("hide \(post.short(8)) \"\(Self.hostile.replacingOccurrences(of: "\n", with: " "))\"")
        _ = await run("edit Quad --tags x")
        let bTag = pseudonymTag(try await b.resolveOp(post.short(8)).author)
        let banned = await run("ban Quad \(bTag) \"report abuse\"")
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
            #expect(reports.contains(#""reporter":"\#(bTag)""#))
            #expect(log.contains(#""action":"hide""#) && log.contains(#""action":"edit pack""#))
            #expect(log.contains(#""action":"ban""#) && log.contains(#""subject":"\#(bTag)""#))
            #expect(banned.contains(#""id":""#))
        } else {
            #expect(reports.contains("reason: bad") && reports.contains("on \(post.short(6))"))
            // The moderator sees who reported: b's pseudonym in the pack (the post's author).
            #expect(reports.contains("by \(bTag)"))
            #expect(log.contains("(alpha)  hide  ") && log.contains("edit pack  tags: x"))
            #expect(log.contains("(alpha)  ban  \(bTag)  reason: report abuse"))
            #expect(banned.contains("banned \(bTag) from Quad"))
        }
        await net.shutdown()
    }
}
