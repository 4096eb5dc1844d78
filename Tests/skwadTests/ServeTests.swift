import Foundation
import SkwadTestKit
import Testing

/// `skwad serve` as a campus node runs it: metrics on an OS-picked port, logs on stderr,
/// a clean shutdown on SIGTERM.
@Suite struct ServeTests {
    @Test func serveExposesMetricsAndStopsCleanlyOnSIGTERM() async throws {
        let bin = try #require(BinaryTests.binary, "build the skwad executable first (scripts/test.sh does)")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-serve-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let node = try RunningNode(
            binary: bin,
            args: [
                "serve", "--data", dir, "--listen", "127.0.0.1:0",
                "--metrics", "127.0.0.1:0", "--log-level", "debug"
            ])
        defer { node.stop() }
        #expect(await node.waitFor("/metrics", seconds: 30))
        let url = try #require(node.line(startingWith: "skwad: metrics on http://"))
        let port = try #require(Int(url.split(separator: ":").last?.split(separator: "/").first ?? ""))
        let scraped = try await RawClient(port: port).request("GET", "/metrics")
        #expect(scraped.status == 200)
        let reply = scraped.text
        #expect(reply.contains("skwad_datagrams_in_total") || reply.contains("skwad_ops_local_total"))
        #expect(reply.contains("process_resident_memory_bytes"))

        kill(node.process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(15)
        while node.process.isRunning && Date() < deadline { try await Task.sleep(nanoseconds: 50_000_000) }
        #expect(!node.process.isRunning)
        #expect(node.process.terminationStatus == 0)
        #expect(node.text.contains("skwad: shutting down"))
        // swift-log lines on stderr: "TIME LEVEL skwad: METADATA [MODULE] MESSAGE".
        let logs = node.text.split(separator: "\n")
        #expect(logs.contains { $0.contains(" info skwad:") && $0.hasSuffix("] serving") })
        #expect(logs.contains { $0.contains(" notice skwad:") && $0.hasSuffix("] shutting down") })
    }
}
