import Foundation
import Testing
import SkwadModel
import SkwadNode
@testable import SkwadREPL

/// Issue 10, finding 6: text from the network reaches the terminal without control
/// characters, escape sequences or bidi overrides, in plain and terminal modes.
@Suite(.serialized) struct SafeRenderingTests {
    static let hostileName = "Q\u{1B}]0;owned\u{07}uad\u{202E}"
    static let hostileTitle = "hi\u{1B}[2J\u{1B}[H\u{9B}31mthere\rX"
    static let hostileBody = "line one\nline two\u{1B}[31m red\u{2066}\n* new post fake"

    @Test func safeTextStripsControlsAndIndentsBodies() {
        #expect(SafeText.line("a\u{1B}[2Jb") == "a\u{FFFD}[2Jb")
        #expect(SafeText.line("x\ny\tz\u{202E}\u{200F}") == "x y z\u{FFFD}\u{FFFD}")
        #expect(SafeText.line("ünïcödé 中文 🙂") == "ünïcödé 中文 🙂")
        #expect(SafeText.block("a\nb\r\nc", indent: "  ") == "a\n  b\n  c")
    }

    @Test(arguments: [Renderer.Mode.plain, .terminal])
    func remoteTextIsRenderedSafely(mode: Renderer.Mode) async throws {
        let net = try await NodePair("safe")
        let (a, b) = (net.a, net.b)
        _ = try await a.createPack(name: Self.hostileName, radiusMeters: NodePair.radius, locked: false, tags: ["t\u{1B}[5m"], color: "")
        let post = try await a.post(pack: Self.hostileName, title: Self.hostileTitle, body: Self.hostileBody, tags: [])
        #expect(await net.eventually { (try? await b.show(post.hex)) != nil })
        let repl = REPL(executor: Executor(node: b), reader: LineReader(interactive: false, historyPath: nil), mode: mode)
        func run(_ line: String) async -> String { await repl.handle(line, nowMs: wallClockMs()).output ?? "" }
        var outputs = [await run("feed"), await run("packs"), await run("show \(post.short(8))")]
        _ = await run("join \(outputs[1].prefix(6))")
        outputs.append(await run("den"))
        for out in outputs {
            // The renderer's own colour codes (terminal mode) are CSI "m" sequences it wrote;
            // nothing else may carry an ESC, a C1 CSI, BEL, CR or a bidi control.
            let stripped = out.replacingOccurrences(of: #"\u{1B}\[[0-9;]*m"#, with: "", options: .regularExpression)
            for bad in ["\u{1B}", "\u{9B}", "\u{07}", "\r", "\u{202E}", "\u{2066}"] {
                #expect(!stripped.contains(bad), "\(bad.unicodeScalars.first!.value) in \(out.debugDescription)")
            }
        }
        let thread = outputs[2]
        #expect(thread.contains("\n    line two"))  // body lines indented
        #expect(!thread.contains("\n* new post fake"))  // a body cannot fake a line of output
        #expect(thread.contains("anon·") && thread.contains("(alpha)"))
        await net.shutdown()
    }
}
