import Foundation
import NIOPosix
import Testing
import SkwadModel
@testable import SkwadNode
import SkwadTestKit

/// Seconds until the peer closes `c` (at most 10).
func secondsUntilClosed(_ c: RawConnection) async -> Double {
    let start = Date()
    _ = await c.read(seconds: 10, untilClose: true) { _ in nil }
    return Date().timeIntervalSince(start)
}

/// The value of the sample line `name` (exact series, labels included) in a Prometheus text.
func sample(_ text: String, _ series: String) -> Double? {
    text.split(separator: "\n").first { $0.hasPrefix(series + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") }
}

@Suite(.serialized) struct ObservabilityTests {
    /// The endpoint on a real socket; the nodes' gossip over the in-memory network.
    @Test func metricsEndpointOfARealNodeShowsItsTraffic() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let memory = MemoryDatagramNetwork()
        let dirs = (0..<2).map { _ in
            FileManager.default.temporaryDirectory.appendingPathComponent("skwad-metrics-\(UUID().uuidString)").path
        }
        defer { dirs.forEach { try? FileManager.default.removeItem(atPath: $0) } }
        let nodes = try dirs.map { dir -> Node in
            var c = NodeConfig(dataDir: dir)
            c.location = try GeoPoint(lat: 40.4433, lon: -79.9436)
            return try Node(config: c)
        }
        let seed = try await nodes[0].goOnline(over: memory.binder, listen: "127.0.0.1:0", peers: [])
        try await nodes[1].goOnline(over: memory.binder, listen: "127.0.0.1:0", peers: [seed])
        #expect(await eventually { await !nodes[0].peerSummaries().filter { $0.state == "active" }.isEmpty })

        let service = try await MetricsService.bind("127.0.0.1:0", node: nodes[0], group: group)
        let serving = Task { try await service.run() }
        let port = try #require(Int(service.localAddress.split(separator: ":").last ?? ""))
        #expect(port > 0)

        // Each request is asked up to three times: while every suite runs at once on two cores,
        // rendering can outlast the server's 5 s request timeout (an empty reply).
        func ask(_ path: String, method: String = "GET") async throws -> RawResponse {
            for _ in 0..<2 { if let r = try? await RawClient(port: port).request(method, path), r.status > 0 { return r } }
            return try await RawClient(port: port).request(method, path)
        }
        let scraped = try await ask("/metrics")
        #expect(scraped.status == 200)
        #expect(scraped.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        let reply = scraped.text
        #expect(reply.contains("# TYPE skwad_datagrams_in_total counter"))
        #expect((sample(reply, "skwad_datagrams_in_total") ?? 0) > 0)
        #expect((sample(reply, "skwad_bytes_out_total") ?? 0) > 0)
        #expect(sample(reply, "skwad_peers_active") == 1)
        #expect((sample(reply, "process_resident_memory_bytes") ?? 0) > 1_000_000)
        // Counters only grow between scrapes.
        let before = try #require(sample(reply, "skwad_datagrams_out_total"))
        try await Task.sleep(nanoseconds: 300_000_000)
        let again = try await ask("/metrics").text
        #expect(try #require(sample(again, "skwad_datagrams_out_total")) >= before)

        #expect(try await ask("/other").status == 404)
        #expect(try await ask("/metrics", method: "POST").status == 405)
        #expect(try await ask("/metrics", method: "BOGUS!").status == 400)

        await service.server.close()
        _ = await serving.result
        for n in nodes { await n.goOffline() }
        try await group.shutdownGracefully()
    }

    /// Silent clients cannot hold the endpoint: past 16 open connections a new one is closed
    /// at once, and a connection with no complete request is closed after 5 s.
    @Test func silentClientsAreBoundedInNumberAndTime() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let server = try await MetricsServer.bind("127.0.0.1:0", group: group) { "x 1\n" }
        let serving = Task { await server.run() }
        let port = try #require(Int(server.localAddress.split(separator: ":").last ?? ""))
        let opened = Date()
        let silent = try (0..<MetricsServer.maxConnections).map { _ in try RawConnection(port: port) }
        // Wait until the server has taken all of them in: a loaded test run accepts slowly.
        for _ in 0..<200 where server.openConnections < MetricsServer.maxConnections {
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        #expect(server.openConnections == MetricsServer.maxConnections)
        let extra = try RawConnection(port: port)
        // The 17th is closed at once, long before the silent ones' 5 s are up.
        #expect(await secondsUntilClosed(extra) < 3)
        // A silent one is closed by its timeout: not before 5 s from its connect, and not never.
        _ = await secondsUntilClosed(silent[0])
        let lived = Date().timeIntervalSince(opened)
        #expect(lived >= 4.9 && lived < 20, "closed after \(lived) s")
        (silent + [extra]).forEach { shutdown($0.fd, Int32(SHUT_RDWR)) }
        // Once they are gone, the endpoint answers again.
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(try await RawClient(port: port).request("GET", "/metrics").text.hasSuffix("x 1\n"))
        await server.close()
        _ = await serving.result
        try await group.shutdownGracefully()
    }

    @Test func metricsFollowCountersAndNameFamiliesAsLabels() throws {
        let m = NodeMetrics()
        m.update([("bytes.out", 10), ("drop.rateLimited", 2), ("sessions", 3), ("ops.rejected.bad sig", 1)])
        m.update([("bytes.out", 25), ("drop.rateLimited", 2), ("drop.replay", 4), ("sessions", 1), ("ops.rejected.bad sig", 1)])
        let text = m.render()
        #expect(sample(text, "skwad_bytes_out_total") == 25)
        #expect(sample(text, #"skwad_drops_total{reason="rateLimited"}"#) == 2)
        #expect(sample(text, #"skwad_drops_total{reason="replay"}"#) == 4)
        #expect(sample(text, "skwad_sessions") == 1)
        #expect(sample(text, #"skwad_ops_rejected_total{layer="replica",reason="bad_sig"}"#) == 1)
        // A counter that went down (offline and back) starts over rather than going negative.
        m.update([("bytes.out", 5)])
        #expect(sample(m.render(), "skwad_bytes_out_total") == 30)
    }

    @Test func dropSummaryLogsWhatGrewOnceAWindow() {
        var s = DropSummary()
        #expect(s.summarize([("drop.replay", 7), ("bytes.in", 100)]) == nil)  // first call: baseline
        #expect(s.summarize([("drop.replay", 7), ("bytes.in", 900)]) == nil)  // nothing dropped
        let line = s.summarize([("drop.replay", 10), ("drop.rateLimited", 5), ("reject.badSignature", 1), ("bytes.in", 1000)])
        #expect(line == "dropped 9: drop.rateLimited=5 drop.replay=3 reject.badSignature=1")
        #expect(s.summarize([("drop.replay", 10), ("drop.rateLimited", 5), ("reject.badSignature", 1)]) == nil)
    }
}
