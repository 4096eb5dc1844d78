import Foundation
import Testing
import SkwadModel
import SkwadNode
@testable import SkwadREPL

/// The REPL in plain and terminal modes over a real node in a temp directory.
@Suite struct SessionTests {
    func withREPL(_ mode: Renderer.Mode, _ body: (REPL) async throws -> Void) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-repl-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var config = NodeConfig(dataDir: dir)
        config.powBits = 2
        let node = try Node(config: config)
        try await body(REPL(executor: Executor(node: node), reader: LineReader(interactive: false, historyPath: nil), mode: mode))
    }

    @Test func plainModeHasNoDecorationsAndAbsoluteTimes() async throws {
        try await withREPL(.plain) { repl in
            func run(_ line: String) async -> String { await repl.handle(line, nowMs: wallClockMs()).output ?? "" }
            #expect(await run("locate 40.4433,-79.9436") == "location set to 40.44330,-79.94360")
            #expect(await run("create Quad --radius 800 --locked --tags campus").hasPrefix("created pack Quad "))
            let posted = await run(#"post Quad "Free pizza" "Gates 4th floor""#)
            #expect(posted.hasPrefix("posted "))
            let id = String(posted.dropFirst("posted ".count))
            #expect(await run("comment \(id) \"still there?\"").hasPrefix("commented "))
            #expect(await run("up \(id)") == "upvoted \(id)")
            let feed = await run("feed --sort top")
            // The author's own upvote does not count (self-votes, issue 10): the score stays 0.
            #expect(feed.hasPrefix("\(id)  0  Quad  anon·") && feed.contains("(alpha)") && feed.contains("Free pizza  (1 comment)"))
            #expect(feed.contains("Z  ") && !feed.contains("\u{1B}["))  // ISO 8601 UTC time, no colour
            let thread = await run("show \(id)")
            #expect(thread.split(separator: "\n").count == 3 && thread.contains("still there?"))
            #expect(await run("den").contains("posts: 1  comments: 1  upvotes received: 0"))
            #expect(await run("packs").contains("(joined)"))
            #expect(await run("up zz").hasPrefix("error: 'zz' is not an id: ids are the hex digits"))
            #expect(await run("up 0000") == "error: no post or comment with id '0000'")
            #expect(await run("\"") == "error: unterminated quote: close it with \"")
        }
    }

    @Test func terminalModeColoursPacksAndShowsRelativeTimes() async throws {
        try await withREPL(.terminal) { repl in
            _ = await repl.handle("create Quad", nowMs: wallClockMs())
            _ = await repl.handle(#"post Quad "Hi" "there""#, nowMs: wallClockMs())
            let feed = await repl.handle("feed", nowMs: wallClockMs()).output ?? ""
            #expect(feed.contains("\u{1B}[") && feed.contains("Quad") && feed.contains("now"))
            let later = await repl.handle("feed", nowMs: wallClockMs() + 3 * 3_600_000).output ?? ""
            #expect(later.contains("3h ago"))
        }
    }

    @Test func helpExplainsEveryCommand() async throws {
        try await withREPL(.plain) { repl in
            for h in Registry.helped {
                let out = await repl.handle("help \(h.verbs[0])", nowMs: 0).output ?? ""
                // Lines are wrapped at 80 columns: compare the words.
                let words = out.split(whereSeparator: \.isWhitespace).joined(separator: " ")
                #expect(words.hasPrefix(h.usage ?? "-") && words.contains(h.summary))
            }
        }
    }

    /// Whatever is typed, the REPL answers with one line of error or a reply, never a trap.
    @Test func hostileInputGetsAnswers() async throws {
        try await withREPL(.json) { repl in
            let lines = [
                "post", "post \"\" \"\" \"\"", "feed --limit 99999999999999999999999", "locate 1e308,1e308",
                "create \(String(repeating: "n", count: 500))", "create X --radius nan", "create X --radius -5",
                "show ", "delete ffffffff", "join \u{0}", "up \(String(repeating: "a", count: 200))",
                "comment 00 \"x\"", "packs --sort", "feed --sort top --sort new", "\u{1B}[A", "help nope"
            ]
            for line in lines {
                let out = await repl.handle(line, nowMs: wallClockMs()).output ?? ""
                #expect(!out.contains("\n"), "multi-line answer to \(line)")
                let obj = try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any]
                #expect(obj?["ok"] as? Bool == false, "\(line) -> \(out)")
                #expect((obj?["error"] as? String)?.isEmpty == false)
            }
        }
    }
}
