import Foundation
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
        let reply = try Self.get(port: port, path: "/metrics")
        #expect(reply.hasPrefix("HTTP/1.1 200"))
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

    /// GET over a plain TCP socket to 127.0.0.1 (5 s receive timeout).
    static func get(port: Int, path: String) throws -> String {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var tv = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let ok = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard ok == 0 else { return "" }
        _ = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".withCString { send(fd, $0, strlen($0), 0) }
        var out = [UInt8](), buf = [UInt8](repeating: 0, count: 4096)
        for _ in 0..<1000 {
            let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            out += buf[0..<n]
        }
        return String(decoding: out, as: UTF8.self)
    }
}
