import Foundation
import SkwadLab

/// `skwad bench pictures` (issue 28): N `skwad --json` processes on loopback join one pack;
/// node 0 posts a picture of about 200 KB, `runs` times; each run is timed from node 0's
/// commit reply until every other node has fetched the whole picture (`pictures.fetches_done`,
/// polled on every node at once every 10 ms), and each node's bytes sent in that window (IP
/// level, less its idle rate) are divided by the picture's size. The JSON reports every run
/// and the medians, and where the time went: per run, ms from the post to the last node's
/// post event (`postLastNodeMs`), each node's ms from its post event to its whole picture
/// (`fetchMs`, node 0 first, null for node 0), blocks each node served (`served`) and the CPU
/// seconds all the nodes used (`cpuSecondsAllNodes`, the polling's share included).
struct PictureBenchmark {
    let count: Int, runs: Int, width: Int, height: Int
    let herdTimeout: Double, packTimeout: Double, fetchTimeout: Double, idleSeconds: Double
    /// Seconds between one run's end and the next post, so that each picture starts with the
    /// per-peer answer budgets rested (§10b: 256 blocks a second per peer).
    let gapSeconds: Double
    let binary: String

    func run() async -> String {
        signal(SIGPIPE, SIG_IGN)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-bench-pictures-\(UUID().uuidString)").path
        let children = ChildRegistry()
        let signals = children.endOnSignals(removing: dir)
        var out: [String: Any] = ["bench": "pictures", "nodes": count, "runs": runs]
        do {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            try await measure(dir: dir, children: children, into: &out)
            out["converged"] = true
        } catch let f as ProcessBenchmark.Failure {
            out["converged"] = false; out["reason"] = f.reason
        } catch {
            out["converged"] = false; out["reason"] = "\(error)"
        }
        out["drops"] = await ProcessBenchmark.drops(children.all)
        signals.forEach { $0.cancel() }
        children.stopAll()
        try? FileManager.default.removeItem(atPath: dir)
        guard let d = try? JSONSerialization.data(withJSONObject: out, options: [.sortedKeys]) else {
            return BenchFailure.json(bench: "pictures", reason: "unencodable report")
        }
        return String(decoding: d, as: UTF8.self)
    }

    private func measure(dir: String, children: ChildRegistry, into out: inout [String: Any]) async throws {
        let procs = ProcessBenchmark(
            count: count, idleSeconds: idleSeconds, posts: 0, gapMs: 0, bodyBytes: 0, herdTimeout: herdTimeout,
            packTimeout: packTimeout, settle: 0, deadPeerTimeout: 0, binary: binary, hosts: nil)
        let first = try procs.start(0, seeds: [], dir: dir, children: children)
        guard let seed = await first.request("whoami", timeout: 20)?["listen"] as? String else {
            throw ProcessBenchmark.Failure(reason: "node 0 gave no listen address" + procs.detail(first))
        }
        var nodes = [first], addresses = [seed]
        for i in 1..<count { nodes.append(try procs.start(i, seeds: [seed], dir: dir, children: children)) }
        for n in nodes.dropFirst() {
            guard let a = await n.request("whoami", timeout: 30)?["listen"] as? String else {
                throw ProcessBenchmark.Failure(reason: "node \(n.index) gave no listen address" + procs.detail(n))
            }
            addresses.append(a)
        }
        let t0 = monotonicSeconds()
        while !(await procs.herdJoined(nodes, addresses)) {
            if monotonicSeconds() - t0 > herdTimeout { throw ProcessBenchmark.Failure(reason: "no herd join within \(herdTimeout) s") }
            try procs.checkAlive(nodes)
            try await Task.sleep(nanoseconds: 250_000_000)
        }
        guard let created = await first.request("create bench --radius 1000", timeout: 60), let pack = created["id"] as? String else {
            throw ProcessBenchmark.Failure(reason: "node 0 could not create the pack" + procs.detail(first))
        }
        let tPack = monotonicSeconds()
        for n in nodes.dropFirst() {
            while await n.request("join \(pack)", timeout: 10)?["ok"] as? Bool != true {
                try procs.checkAlive(nodes)
                if monotonicSeconds() - tPack > packTimeout {
                    throw ProcessBenchmark.Failure(reason: "node \(n.index) never got the pack within \(packTimeout) s")
                }
                try await Task.sleep(nanoseconds: 200_000_000)
            }
        }
        let idleBefore = try await procs.snapshot(nodes)
        try await Task.sleep(nanoseconds: UInt64(idleSeconds * 1e9))
        let idleAfter = try await procs.snapshot(nodes)
        let idleRates = zip(idleBefore, idleAfter).map { Double($1.ipBytes - $0.ipBytes) / max(idleSeconds, 0.001) }

        var lastNodeMs: [Double] = [], meanRatios: [Double] = [], maxRatios: [Double] = [], sizes: [Int] = []
        var postLastNodeMs: [Double] = [], fetchMs: [[Any]] = [], served: [[Int]] = [], cpu: [Double] = []
        for k in 0..<runs {
            if k > 0 { try await Task.sleep(nanoseconds: UInt64(gapSeconds * 1e9)) }
            let picture = TestPictures.png(width: width, height: height, seed: UInt64(1000 + k))
            let file = "\(dir)/picture\(k).png"
            try Data(picture).write(to: URL(fileURLWithPath: file))
            sizes.append(picture.count)
            let before = try await procs.snapshot(nodes)
            let cpuBefore = nodes.map { $0.cpuSeconds ?? 0 }
            guard let r = await first.request("post \(pack) \"picture \(k)\" \"\" --image \(file)", timeout: 30), r["ok"] as? Bool == true
            else { throw ProcessBenchmark.Failure(reason: "node 0 could not post the picture" + procs.detail(first)) }
            let tPost = monotonicSeconds()
            var done = Set<Int>()
            var last = 0.0
            var doneAt: [Int: Double] = [:]
            while done.count < nodes.count - 1 {
                if monotonicSeconds() - tPost > fetchTimeout {
                    throw ProcessBenchmark.Failure(
                        reason: "run \(k): \(nodes.count - 1 - done.count) nodes lack the picture after \(fetchTimeout) s")
                }
                let waiting = nodes.dropFirst().filter { !done.contains($0.index) }
                let finished = await withTaskGroup(of: (Int, Double?).self) { g in
                    for n in waiting {
                        g.addTask {
                            let stats = await n.request("stats", timeout: 10)?["stats"] as? [String: Any]
                            let fetched = stats?["pictures.fetches_done"] as? Int ?? 0
                            return (n.index, fetched > k ? monotonicSeconds() : nil)
                        }
                    }
                    var got: [(Int, Double)] = []
                    for await (i, t) in g { if let t { got.append((i, t)) } }
                    return got
                }
                for (i, t) in finished {
                    done.insert(i)
                    doneAt[i] = t
                    last = max(last, t - tPost)
                }
                try procs.checkAlive(nodes)
                if done.count < nodes.count - 1 { try await Task.sleep(nanoseconds: 10_000_000) }
            }
            let window = monotonicSeconds() - tPost
            cpu.append(zip(nodes, cpuBefore).map { ($0.cpuSeconds ?? 0) - $1 }.reduce(0, +))
            let after = try await procs.snapshot(nodes)
            let ratios = (0..<nodes.count).map { i in
                max(0, Double(after[i].ipBytes - before[i].ipBytes) - idleRates[i] * window) / Double(picture.count)
            }
            lastNodeMs.append(last * 1000)
            let posted = nodes.dropFirst().map { $0.arrival("picture \(k)") }
            postLastNodeMs.append(((posted.compactMap { $0 }.max() ?? tPost) - tPost) * 1000)
            fetchMs.append(
                [NSNull()]
                    + zip(nodes.dropFirst(), posted).map { n, p -> Any in
                        guard let p, let d = doneAt[n.index] else { return NSNull() }
                        return ((d - p) * 10000).rounded() / 10
                    })
            served.append(zip(before, after).map { ($1.pictures["pictures.blocks_out"] ?? 0) - ($0.pictures["pictures.blocks_out"] ?? 0) })
            meanRatios.append(ratios.reduce(0, +) / Double(ratios.count))
            maxRatios.append(ratios.max() ?? 0)
        }
        func median(_ xs: [Double]) -> Double {
            let s = xs.sorted()
            return s.isEmpty ? 0 : s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
        }
        out["pictureBytes"] = sizes
        out["lastNodeMs"] = lastNodeMs.map { ($0 * 10).rounded() / 10 }
        out["bytesPerNodeOverPicture"] = meanRatios.map { ($0 * 1000).rounded() / 1000 }
        out["maxBytesOneNodeOverPicture"] = maxRatios.map { ($0 * 1000).rounded() / 1000 }
        out["lastNodeMsMedian"] = (median(lastNodeMs) * 10).rounded() / 10
        out["bytesPerNodeOverPictureMedian"] = (median(meanRatios) * 1000).rounded() / 1000
        out["pollMs"] = 10
        out["gapSeconds"] = gapSeconds
        out["postLastNodeMs"] = postLastNodeMs.map { ($0 * 10).rounded() / 10 }
        out["fetchMs"] = fetchMs
        out["served"] = served
        out["cpuSecondsAllNodes"] = cpu.map { ($0 * 100).rounded() / 100 }
    }
}
