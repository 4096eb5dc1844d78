import Foundation
import NIOPosix
import SkwadModel
import SkwadNode
import SkwadLab

/// Process figures from /proc and getrusage.
enum ProcessFigures {
    static func rssBytes() -> Int { ProcessMemory.residentBytes() ?? -1 }
    static func cpuSeconds() -> Double {
        var u = rusage()
        getrusage(RUSAGE_SELF.rawValue, &u)
        return Double(u.ru_utime.tv_sec) + Double(u.ru_utime.tv_usec) / 1e6 + Double(u.ru_stime.tv_sec) + Double(u.ru_stime.tv_usec) / 1e6
    }
}

struct HostileBenchmark {
    let seconds: Double, rate: Double, perSource: Int, addresses: Int, sockets: Int, postEveryMs: Int

    final class Box<T: Sendable>: @unchecked Sendable {
        private let lock = NSLock(); private var value: T
        init(_ v: T) { value = v }
        func get() -> T { lock.withLock { value } }
        func set(_ v: T) { lock.withLock { value = v } }
    }

    func run() async throws -> String {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-bench-hostile-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let here = try GeoPoint(lat: 40.4433, lon: -79.9436)
        func config(_ name: String) -> NodeConfig {
            var c = NodeConfig(dataDir: "\(root)/\(name)")
            c.powBits = 0; c.location = here
            return c
        }
        // A: the sprayed node, default limits. B: its honest peer.
        let a = try Node(config: config("sprayed")), b = try Node(config: config("honest"))
        let arrivals = Arrivals()
        await a.setEventSink { e in if case .newPost(let p) = e { arrivals.record(p.title, node: 0, at: GossipBenchmark.seconds()) } }
        let address = try await a.goOnline(group: group, listen: "127.0.0.1:0", peers: [])
        guard let port = UInt16(address.split(separator: ":").last ?? "") else { throw NodeError("no port in \(address)") }
        _ = try await b.goOnline(group: group, listen: "127.0.0.1:0", peers: [address])
        defer {
            Task {
                await a.goOffline(); await b.goOffline(); try? await group.shutdownGracefully()
            }
        }
        var linked = false
        for _ in 0..<500 {
            if await !a.peerSummaries().filter({ $0.state == "active" }).isEmpty { linked = true; break }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        guard linked else { throw NodeError("the honest node did not link to the sprayed one within 10 s") }
        let pack = try await a.createPack(name: "hostile-bench", radiusMeters: 5000, locked: false, tags: [], color: "")
        for _ in 0..<500 {
            if await b.packs().contains(where: { $0.pack.id == pack.id }) { break }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        _ = try await b.join(pack.id.hex)
        _ = try await a.join(pack.id.hex)
        // Warm-up: the first post mints the pseudonym's stamp; wait for it to arrive.
        _ = try await b.post(pack: pack.id.hex, title: "warm-up", body: "x", tags: [])
        for _ in 0..<500 where arrivals.count("warm-up") == 0 { try await Task.sleep(nanoseconds: 20_000_000) }
        guard arrivals.count("warm-up") == 1 else { throw NodeError("the warm-up post did not arrive within 10 s") }
        try await Task.sleep(nanoseconds: 500_000_000)

        let rss0 = ProcessFigures.rssBytes(), cpu0 = ProcessFigures.cpuSeconds(), t0 = GossipBenchmark.seconds()
        var sprayer = UDPSprayer(port: port, seconds: seconds)
        sprayer.ratePerSecond = rate; sprayer.perSource = perSource; sprayer.addresses = addresses; sprayer.openSockets = sockets
        let done = Box<UDPSprayer.Result?>(nil)
        let spray = sprayer
        Thread.detachNewThread { done.set(spray.run()) }

        var posted: [(String, Double)] = []
        var rssPeak = rss0
        while done.get() == nil {
            let title = "honest \(posted.count)"
            _ = try await b.post(pack: pack.id.hex, title: title, body: String(repeating: "x", count: 160), tags: [])
            posted.append((title, GossipBenchmark.seconds()))
            rssPeak = max(rssPeak, ProcessFigures.rssBytes())
            try await Task.sleep(nanoseconds: UInt64(postEveryMs) * 1_000_000)
        }
        let wall = GossipBenchmark.seconds() - t0, cpu = ProcessFigures.cpuSeconds() - cpu0
        let rss1 = ProcessFigures.rssBytes()
        rssPeak = max(rssPeak, rss1)
        try await Task.sleep(nanoseconds: 2_000_000_000)  // late arrivals count, late
        let result = done.get()!
        var delays: [Double] = []
        for (title, at) in posted { if let t = arrivals.latest(title) { delays.append((t - at) * 1000) } }
        delays.sort()
        func pct(_ p: Double) -> String {
            delays.isEmpty ? "null" : String(format: "%.1f", delays[min(delays.count - 1, Int(Double(delays.count - 1) * p))])
        }
        let stats = await a.networkStats()
        let drops = stats.filter { $0.0.hasPrefix("drop.") && $0.1 > 0 }.sorted { $0.0 < $1.0 }
            .map { "\"\($0.0.dropFirst(5))\":\($0.1)" }.joined(separator: ",")
        func stat(_ k: String) -> Int { stats.first { $0.0 == k }?.1 ?? 0 }
        let nodeCPU = max(0, cpu - result.cpuSeconds)
        return """
            {"bench":"hostile","seconds":\(String(format: "%.1f", wall)),"datagrams_sprayed":\(result.datagrams),\
            "hellos":\(result.hellos),"junk":\(result.junk),"source_sockets":\(result.sources),\
            "distinct_source_ports":\(result.distinctSourcePorts),"send_errors":\(result.sendErrors),"bind_errors":\(result.bindErrors),\
            "datagrams_in":\(stat("datagrams.in")),"cookies_sent":\(stat("cookies.sent")),"handshakes":\(stat("handshakes")),\
            "sessions":\(stat("sessions")),"limit_addresses":\(stat("limits.addresses")),\
            "drops":{\(drops)},\
            "rss_growth_mib":\(String(format: "%.2f", Double(rss1 - rss0) / 1048576)),\
            "rss_peak_growth_mib":\(String(format: "%.2f", Double(rssPeak - rss0) / 1048576)),\
            "node_cpu_share":\(String(format: "%.3f", nodeCPU / wall)),\
            "sprayer_cpu_share":\(String(format: "%.3f", result.cpuSeconds / wall)),\
            "honest_posts":\(posted.count),"honest_delivered":\(delays.count),\
            "delivery_ms_p50":\(pct(0.5)),"delivery_ms_p90":\(pct(0.9)),"delivery_ms_max":\(pct(1))}
            """
    }
}
