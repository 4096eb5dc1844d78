import Foundation
import Testing
import SkwadModel
import SkwadNode
@testable import SkwadREPL

@Suite struct RenderTests {
    @Test func relativeTimesAndJSONEscaping() {
        #expect(Renderer.relative(1_000, now: 1_000 + 10_000) == "now")
        #expect(Renderer.relative(0, now: 5 * 60_000) == "5m ago")
        #expect(Renderer.relative(0, now: 3 * 3_600_000) == "3h ago")
        #expect(Renderer.relative(0, now: 3 * 86_400_000) == "3d ago")
        #expect(Renderer.relative(10 * 3_600_000, now: 0) == "in 10h")
        #expect(Renderer.compass(10) == "N" && Renderer.compass(100) == "E" && Renderer.compass(225) == "SW")
        #expect(JSON.object([("a", "x\"y\n"), ("b", .array([1, true, .null]))]).render() == #"{"a":"x\"y\n","b":[1,true,null]}"#)
    }

    @Test func aSessionThroughTheREPLInJSON() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-repl-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var config = NodeConfig(dataDir: dir)
        config.powBits = 2
        let node = try Node(config: config)
        let repl = REPL(executor: Executor(node: node), reader: LineReader(interactive: false, historyPath: nil), mode: .json)
        func run(_ line: String) async throws -> [String: Any] {
            let out = await repl.handle(line, nowMs: wallClockMs()).output ?? ""
            #expect(!out.contains("\n"))
            return try JSONSerialization.jsonObject(with: Data(out.utf8)) as! [String: Any]
        }
        let created = try await run("create Quad --tags campus")
        #expect(created["ok"] as? Bool == true && (created["id"] as? String)?.count == 64)
        let posted = try await run(#"post Quad "Hello" "World""#)
        let postID = posted["id"] as! String
        _ = try await run("up \(postID.prefix(8))")
        let feed = try await run("feed --sort top")
        let posts = feed["posts"] as! [[String: Any]]
        #expect(
            posts.count == 1 && posts[0]["title"] as? String == "Hello" && posts[0]["score"] as? Int == 0  // own vote: not counted
                && posts[0]["role"] as? String == "alpha")
        let bad = try await run("show 00000000")
        #expect(bad["ok"] as? Bool == false && (bad["error"] as? String)?.isEmpty == false)
        let quit = await repl.handle("quit", nowMs: 0)
        #expect(quit.quit)
    }
}
