import Foundation
import NIOPosix
import SkwadModel
import SkwadNode
import SkwadReplica

/// Arrival times of posts, recorded from node event sinks.
final class Arrivals: @unchecked Sendable {
    private let lock = NSLock()
    private var times: [String: [Int: Double]] = [:]
    func record(_ title: String, node: Int, at t: Double) {
        lock.withLock { if times[title]?[node] == nil { times[title, default: [:]][node] = t } }
    }
    func count(_ title: String) -> Int { lock.withLock { times[title]?.count ?? 0 } }
    func latest(_ title: String) -> Double? { lock.withLock { times[title]?.values.max() } }
}

struct GossipBenchmark {
    let count: Int, ops: Int, gapMs: Int

    static func seconds() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    struct Failure: Error, CustomStringConvertible { let description: String }

    /// The JSON report; a failure (a node that never got the pack, an error of a node) is
    /// reported as `"converged": false` with the reason. Nodes go offline on every path.
    func run() async -> String {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-bench-gossip-\(UUID().uuidString)").path
        var nodes: [Node] = []
        var herdSeconds: Double?
        let result: String
        do {
            result = try await measure(group: group, root: root, nodes: &nodes, herdSeconds: &herdSeconds)
        } catch {
            result = BenchFailure.json(
                bench: "gossip", reason: "\(error)",
                extra: ["nodes": count, "herd_converged_s": herdSeconds.map { ($0 * 100).rounded() / 100 as Any } ?? NSNull()])
        }
        for n in nodes { await n.goOffline() }
        try? await group.shutdownGracefully()
        try? FileManager.default.removeItem(atPath: root)
        return result
    }

    private func measure(
        group: MultiThreadedEventLoopGroup, root: String, nodes: inout [Node], herdSeconds: inout Double?
    ) async throws -> String {
        let here = try GeoPoint(lat: 40.4433, lon: -79.9436)
        for i in 0..<count {
            var c = NodeConfig(dataDir: "\(root)/\(i)")
            c.powBits = 0; c.location = here
            c.gossip.limits.peerDatagramsPerSecond = 5000; c.gossip.limits.peerBytesPerSecond = 5_000_000
            c.gossip.limits.pseudonymOpsPerMinute = 6000
            nodes.append(try Node(config: c))
        }
        let arrivals = Arrivals()
        for (i, n) in nodes.enumerated() {
            await n.setEventSink { e in if case .newPost(let p) = e { arrivals.record(p.title, node: i, at: Self.seconds()) } }
        }
        // 1. Herd: everyone joins through node 0 at once.
        let t0 = Self.seconds()
        let seed = try await nodes[0].goOnline(group: group, listen: "127.0.0.1:0", peers: [])
        let others = Array(nodes.dropFirst())
        try await withThrowingTaskGroup(of: Void.self) { g in
            for n in others { g.addTask { try await n.goOnline(group: group, listen: "127.0.0.1:0", peers: [seed]) } }
            try await g.waitForAll()
        }
        while Self.seconds() - t0 < 60 {
            if await Self.membershipConverged(nodes) { herdSeconds = Self.seconds() - t0; break }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        // 2. A pack everyone is in (same place, inside the fence) and joined (for events).
        let pack = try await nodes[0].createPack(name: "bench", radiusMeters: 5000, locked: false, tags: [], color: "")
        var missing: Int?
        for _ in 0..<500 {
            missing = nil
            for (i, n) in nodes.enumerated() where await !n.packs().contains(where: { $0.pack.id == pack.id }) { missing = i; break }
            if missing == nil { break }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        if let missing {
            throw Failure(
                description: "node \(missing) never got the pack (10 s)\(herdSeconds == nil ? "; the herd had not converged in 60 s" : "")")
        }
        for n in nodes { _ = try await n.join(pack.id.hex) }
        try await Task.sleep(nanoseconds: 500_000_000)
        // 3. Ops one at a time from random nodes; time until all others have it.
        var rng = SystemRandomNumberGenerator()
        var latencies: [Double] = [], sizes: [Int] = []
        let bytesBefore = await Self.bytesOut(nodes)
        for k in 0..<ops {
            let origin = Int.random(in: 0..<count, using: &rng)
            let title = "bench op \(k)"
            // Timed from the commit on: the first post of a pseudonym mints its stamp (PROTOCOL
            // §2, tens of ms), which is not the network's time.
            let id = try await nodes[origin].post(pack: pack.id.hex, title: title, body: String(repeating: "x", count: 160), tags: [])
            let start = Self.seconds()
            arrivals.record(title, node: origin, at: start)
            if let op = await nodes[origin].envelopeSize(id) { sizes.append(op) }
            let deadline = start + 10
            while arrivals.count(title) < count && Self.seconds() < deadline { try await Task.sleep(nanoseconds: 1_000_000) }
            if arrivals.count(title) == count, let last = arrivals.latest(title) { latencies.append(last - start) }
            try await Task.sleep(nanoseconds: UInt64(gapMs) * 1_000_000)
        }
        let bytesAfter = await Self.bytesOut(nodes)
        var stem: [String: Int] = [:]
        for n in nodes { for (k, v) in await n.networkStats() where k.hasPrefix("stem.") { stem[k, default: 0] += v } }
        let sorted = latencies.sorted()
        func pct(_ p: Double) -> Double { sorted.isEmpty ? -1 : sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p))] * 1000 }
        let opSize = Double(sizes.reduce(0, +)) / Double(max(1, sizes.count))
        let ratio = Double(bytesAfter - bytesBefore) / Double(count) / Double(ops) / opSize
        return """
            {"bench":"gossip","converged":\(herdSeconds != nil && latencies.count == ops),"nodes":\(count),"ops":\(ops),\
            "reached_all":\(latencies.count),\
            "reach_all_ms_median":\(String(format: "%.1f", pct(0.5))),"reach_all_ms_p90":\(String(format: "%.1f", pct(0.9))),\
            "op_bytes":\(Int(opSize)),"bytes_per_node_per_op_over_op_size":\(String(format: "%.2f", ratio)),\
            "herd_converged_s":\(herdSeconds.map { String(format: "%.2f", $0) } ?? "null"),\
            "stem_hops":\(stem["stem.sent"] ?? 0),"stem_failsafes":\(stem["stem.failsafes"] ?? 0)}
            """
    }

    static func bytesOut(_ nodes: [Node]) async -> Int {
        var total = 0
        for n in nodes { total += await n.networkStats().first { $0.0 == "bytes.out" }?.1 ?? 0 }
        return total
    }

    /// The active overlay is connected and every active view holds at least activeSize - 1 links.
    static func membershipConverged(_ nodes: [Node]) async -> Bool {
        var graph: [String: [String]] = [:]
        for n in nodes {
            guard let me = await n.listenAddress else { return false }
            let act = await n.peerSummaries().filter { $0.state == "active" }.map(\.address)
            if act.count < 4 { return false }
            graph[me] = act
        }
        guard let start = graph.keys.first else { return false }
        var seen: Set<String> = [start], stack = [start]
        while let x = stack.popLast() { for y in graph[x] ?? [] where !seen.contains(y) { seen.insert(y); stack.append(y) } }
        return seen.count == nodes.count
    }
}
