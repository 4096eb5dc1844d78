import Foundation

/// The process-level benchmark (issue 12). Every failure ends as a JSON report with
/// `"converged": false` and a reason; the children are ended on every path (here, at a
/// signal, and by their stdin closing if this process dies).
struct ProcessBenchmark {
    let count: Int, idleSeconds: Double, posts: Int, gapMs: Int, bodyBytes: Int
    let herdTimeout: Double, packTimeout: Double, settle: Double, deadPeerTimeout: Double
    let binary: String
    let hosts: [(netns: String, address: String)]?
    /// Direct messages timed after the posts (DirectMessageBenchmark.swift).
    var dms = 0

    /// The node binary the children run: `skwad` beside this executable (`skwad-lab`).
    static func nodeBinary() -> String {
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent("skwad").path
    }

    struct Failure: Error { let reason: String }

    func run() async -> String {
        signal(SIGPIPE, SIG_IGN)  // a child that died must not take this process with it
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-bench-procs-\(UUID().uuidString)").path
        let children = ChildRegistry()
        let signals = children.endOnSignals(removing: dir)
        var report = Report(count: count, testbed: hosts != nil)
        do {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            try await measure(dir: dir, children: children, report: &report)
        } catch let f as Failure {
            report.fail(f.reason)
        } catch {
            report.fail("\(error)")
        }
        report.drops = await Self.drops(children.all)
        signals.forEach { $0.cancel() }
        children.stopAll()
        try? FileManager.default.removeItem(atPath: dir)
        return report.json()
    }

    private func measure(dir: String, children: ChildRegistry, report: inout Report) async throws {
        // 1. Start node 0, read its address; start the rest seeded with it (a herd join).
        let first = try start(0, seeds: [], dir: dir, children: children)
        guard let seed = await first.request("whoami", timeout: 20)?["listen"] as? String else {
            throw Failure(reason: "node 0 gave no listen address" + detail(first))
        }
        let t0 = monotonicSeconds()
        var nodes = [first]
        for i in 1..<count { nodes.append(try start(i, seeds: [seed], dir: dir, children: children)) }
        var addresses = [seed]
        for n in nodes.dropFirst() {
            guard let a = await n.request("whoami", timeout: 30)?["listen"] as? String else {
                throw Failure(reason: "node \(n.index) gave no listen address" + detail(n))
            }
            addresses.append(a)
        }
        while !(await herdJoined(nodes, addresses)) {
            if monotonicSeconds() - t0 > herdTimeout { throw Failure(reason: "no herd join within \(herdTimeout) s") }
            try checkAlive(nodes)
            try await Task.sleep(nanoseconds: 250_000_000)
        }
        report.herdJoinSeconds = monotonicSeconds() - t0

        // 2. One unlocked pack, created by node 0; every node joins it once it has it.
        guard let created = await first.request("create bench --radius 1000", timeout: 60),
            created["ok"] as? Bool == true, let pack = created["id"] as? String
        else {
            throw Failure(reason: "node 0 could not create the pack" + detail(first))
        }
        let tPack = monotonicSeconds()
        for n in nodes.dropFirst() {
            while true {
                if let r = await n.request("join \(pack)", timeout: 10), r["ok"] as? Bool == true { break }
                try checkAlive(nodes)
                if monotonicSeconds() - tPack > packTimeout {
                    throw Failure(reason: "node \(n.index) never got the pack within \(packTimeout) s")
                }
                try await Task.sleep(nanoseconds: 200_000_000)
            }
        }
        report.packSpreadSeconds = monotonicSeconds() - tPack

        // 3. Idle window: traffic and RSS.
        let idleBefore = try await snapshot(nodes)
        try await Task.sleep(nanoseconds: UInt64(idleSeconds * 1e9))
        let idleAfter = try await snapshot(nodes)
        let idleRates = zip(idleBefore, idleAfter).map { Double($1.ipBytes - $0.ipBytes) / max(idleSeconds, 0.001) }
        report.idleBytesPerSecond = idleRates
        report.idleByKind = Self.ratesByKind(idleBefore, idleAfter, seconds: idleSeconds)
        let idleCPU = zip(idleBefore, idleAfter).map { ($1.cpuSeconds - $0.cpuSeconds) / max(idleSeconds, 0.001) }
        report.idleCPUMsPerSecond = idleCPU.map { $0 * 1000 }
        let idleMemory = nodes.map(\.memory)
        report.rssIdle = idleMemory.map { $0?.rss ?? 0 }
        report.anonIdle = idleMemory.map { $0?.anon ?? 0 }
        report.pssIdle = idleMemory.compactMap { $0?.pss }

        // 4. Posts from node 0, `gapMs` apart, timed from its commit reply.
        let body = String(repeating: "x", count: bodyBytes)
        let postBefore = try await snapshot(nodes)
        let tPosts = monotonicSeconds()
        var titles: [String] = [], typed: [Double] = [], committed: [Double] = [], mintMs: [Double] = []
        for k in 0..<posts {
            let due = tPosts + Double(k * gapMs) / 1000
            let wait = due - monotonicSeconds()
            if wait > 0 { try await Task.sleep(nanoseconds: UInt64(wait * 1e9)) }
            let title = "procs \(k)"
            let sent = monotonicSeconds()
            guard let r = await first.request("post \(pack) \"\(title)\" \"\(body)\"", timeout: 30), r["ok"] as? Bool == true else {
                throw Failure(reason: "node 0 could not post" + detail(first))
            }
            // The reply's read time: the other nodes' arrivals are stamped the same way, so a
            // requester resumed late cannot make a delivery look earlier than the commit.
            let t = r[ChildNode.readAtKey] as? Double ?? monotonicSeconds()
            titles.append(title); typed.append(sent); committed.append(t); mintMs.append((t - sent) * 1000)
        }
        let others = Array(nodes.dropFirst())
        let settleEnd = monotonicSeconds() + settle
        while monotonicSeconds() < settleEnd, others.contains(where: { $0.arrivalCount(titles) < titles.count }) {
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        let postAfter = try await snapshot(nodes)
        let window = monotonicSeconds() - tPosts
        report.rssAfterPosts = nodes.map { $0.rssBytes ?? 0 }
        report.postCommitMs = mintMs
        // Per post: the window's messages by kind, less the idle rate over the window.
        let postRates = Self.ratesByKind(postBefore, postAfter, seconds: window)
        report.perPostByKind = postRates.mapValues { $0 * window / Double(posts) }
            .merging(report.idleByKind.mapValues { -$0 * window / Double(posts) }) { $0 + $1 }
            .filter { $0.value > 0.005 }
        report.extraBytesPerPost = (0..<count).map { i in
            (Double(postAfter[i].ipBytes - postBefore[i].ipBytes) - idleRates[i] * window) / Double(posts)
        }
        // CPU a post costs each node: the window's CPU less the idle rate over the window.
        report.extraCPUMsPerPost = (0..<count).map { i in
            (postAfter[i].cpuSeconds - postBefore[i].cpuSeconds - idleCPU[i] * window) * 1000 / Double(posts)
        }
        for (k, title) in titles.enumerated() {
            let got = others.compactMap { $0.arrival(title) }.map { ($0 - committed[k]) * 1000 }
            report.everyNodeMs += got
            report.lostDeliveries += others.count - got.count
            if got.count == others.count {
                let last = got.max() ?? 0
                report.lastNodeMs.append(last)
                report.lastNodeEndToEndMs.append(last + (committed[k] - typed[k]) * 1000)
            } else {
                report.lostPosts += 1
            }
            report.lastNodeMsByPost.append(got.count == others.count ? got.max() : nil)
        }
        try checkAlive(nodes)
        report.converged = report.lostPosts == 0
        if report.lostPosts > 0 {
            report.reason = "\(report.lostPosts) of \(posts) posts did not reach every node within \(settle) s of the last"
        }
        if dms > 0 { try await measureDMs(nodes, pack: pack, titles: titles, committed: committed, report: &report) }
        if deadPeerTimeout > 0 { report.deadPeerSeconds = try await timeDeadPeer(nodes, addresses) }
    }

    /// Kills the last node and returns the seconds until no other node lists it as an active
    /// peer (nil: still listed after `deadPeerTimeout`).
    private func timeDeadPeer(_ nodes: [ChildNode], _ addresses: [String]) async throws -> Double? {
        guard let victim = nodes.last, let address = addresses.last else { return nil }
        kill(victim.pid, SIGKILL)
        let t0 = monotonicSeconds()
        let rest = nodes.dropLast()
        while monotonicSeconds() - t0 < deadPeerTimeout {
            var listed = false
            for n in rest {
                let peers = await n.request("peers", timeout: 10)?["peers"] as? [[String: Any]] ?? []
                if peers.contains(where: { $0["address"] as? String == address && $0["state"] as? String == "active" }) {
                    listed = true; break
                }
            }
            if !listed { return monotonicSeconds() - t0 }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        return nil
    }

    /// Starts node `i` seeded with `seeds`; `extra` goes after `run`'s other arguments.
    func start(_ i: Int, seeds: [String], dir: String, children: ChildRegistry, extra: [String] = []) throws -> ChildNode {
        // All within 200 m: up to ±60 m north and east of one point.
        let lat = 40.4433 + Double((i * 37) % 11 - 5) * 0.0001
        let lon = -79.9436 + Double((i * 53) % 11 - 5) * 0.00013
        let listen = hosts.map { "\($0[i].address):0" } ?? "127.0.0.1:0"
        let peers = seeds.map { "\"\($0)\"" }.joined(separator: ", ")
        let config = "location = \"\(lat),\(lon)\"\nlisten = \"\(listen)\"\npeers = [\(peers)]\n"
        let path = "\(dir)/node\(i).toml"
        try config.write(toFile: path, atomically: true, encoding: .utf8)
        let launcher = hosts.map { ["/usr/sbin/ip", "netns", "exec", $0[i].netns] } ?? []
        let node = try ChildNode(
            index: i, binary: binary, args: ["run", "--json", "--config", path, "--data", "\(dir)/node\(i)"] + extra, launcher: launcher)
        children.add(node)
        return node
    }

    /// Every node holds min(4, N-1) active links and the active overlay is connected.
    func herdJoined(_ nodes: [ChildNode], _ addresses: [String]) async -> Bool {
        var graph: [String: [String]] = [:]
        for (n, me) in zip(nodes, addresses) {
            guard let peers = await n.request("peers", timeout: 10)?["peers"] as? [[String: Any]] else { return false }
            let active = peers.filter { $0["state"] as? String == "active" }.compactMap { $0["address"] as? String }
            if active.count < min(4, nodes.count - 1) { return false }
            graph[me] = active
        }
        var seen: Set<String> = [addresses[0]], stack = [addresses[0]]
        while let x = stack.popLast() { for y in graph[x] ?? [] where !seen.contains(y) { seen.insert(y); stack.append(y) } }
        return seen.count == nodes.count
    }

    /// IP-level bytes sent, the per-kind message counters (`sent.*`, `sent_bytes.*`) and the
    /// picture counters (`pictures.*`).
    struct Traffic {
        let ipBytes: Int
        let byKind: [String: Int]
        var pictures: [String: Int] = [:]
        /// CPU seconds the node used so far (user + system).
        var cpuSeconds: Double = 0
    }

    /// Per kind (`sent.ping`, `sent_bytes.ping`, …): the mean per node per second between two snapshots.
    static func ratesByKind(_ before: [Traffic], _ after: [Traffic], seconds: Double) -> [String: Double] {
        var sum: [String: Int] = [:]
        for (b, a) in zip(before, after) { for (k, v) in a.byKind { sum[k, default: 0] += v - (b.byKind[k] ?? 0) } }
        let scale = 1 / (max(seconds, 0.001) * Double(max(after.count, 1)))
        return sum.filter { $0.value > 0 }.mapValues { Double($0) * scale }
    }

    /// Bytes each node sent, counted at the IP level (28 bytes of IPv4+UDP header a datagram).
    func snapshot(_ nodes: [ChildNode]) async throws -> [Traffic] {
        var out: [Traffic] = []
        for n in nodes {
            guard let stats = await n.request("stats", timeout: 10)?["stats"] as? [String: Any],
                let bytes = stats["bytes.out"] as? Int, let datagrams = stats["datagrams.out"] as? Int
            else {
                throw Failure(reason: "node \(n.index) gave no traffic counters" + detail(n))
            }
            var byKind: [String: Int] = [:]
            var pictures: [String: Int] = [:]
            for (k, v) in stats where k.hasPrefix("sent.") || k.hasPrefix("sent_bytes.") { byKind[k] = v as? Int }
            for (k, v) in stats where k.hasPrefix("pictures.") { pictures[k] = v as? Int }
            out.append(Traffic(ipBytes: bytes + 28 * datagrams, byKind: byKind, pictures: pictures, cpuSeconds: n.cpuSeconds ?? 0))
        }
        return out
    }

    /// Drop and rejection counters summed over the nodes still answering (diagnosis, also
    /// after a failure).
    static func drops(_ nodes: [ChildNode]) async -> [String: Int] {
        var sum: [String: Int] = [:]
        for n in nodes where n.exited == nil {
            guard let stats = await n.request("stats", timeout: 3)?["stats"] as? [String: Any] else { continue }
            for (k, v) in stats where k.hasPrefix("drop.") || k.hasPrefix("reject.") || k.hasPrefix("ops.rejected.") {
                if let v = v as? Int, v > 0 { sum[k, default: 0] += v }
            }
        }
        return sum
    }

    func checkAlive(_ nodes: [ChildNode]) throws {
        if let dead = nodes.first(where: { $0.exited != nil }) {
            throw Failure(reason: "node \(dead.index) exited with status \(dead.exited!)" + detail(dead))
        }
    }

    func detail(_ n: ChildNode) -> String {
        if let s = n.exited ?? (n.process.isRunning ? nil : n.process.terminationStatus) {
            return " (exited with status \(s)\(n.lastStderr.isEmpty ? "" : ": " + n.lastStderr))"
        }
        return n.lastStderr.isEmpty ? "" : " (stderr: \(n.lastStderr))"
    }
}

/// The children started so far, ended together on every exit path (including SIGINT/SIGTERM
/// to this process).
final class ChildRegistry: @unchecked Sendable {
    private let lock = NSLock()
    private var nodes: [ChildNode] = []
    func add(_ n: ChildNode) { lock.withLock { nodes.append(n) } }
    var all: [ChildNode] { lock.withLock { nodes } }

    /// Ends every child: stdin closed for all first (they quit at end of input), then the
    /// stragglers are signalled.
    func stopAll() {
        let all = lock.withLock { nodes }
        all.forEach { $0.closeInput() }
        let deadline = monotonicSeconds() + 3
        all.forEach { $0.stop(deadline: deadline) }
    }

    /// On SIGINT or SIGTERM: `also` (other processes to end), every child ended, `dir`
    /// removed, the bench's one JSON line printed, exit.
    func endOnSignals(removing dir: String, bench: String = "procs", also: @escaping @Sendable () -> Void = {}) -> [DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { sig in
            signal(sig, SIG_IGN)
            let s = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            s.setEventHandler { [self] in
                also()
                stopAll()
                try? FileManager.default.removeItem(atPath: dir)
                print(#"{"bench":"\#(bench)","converged":false,"reason":"interrupted by signal \#(sig)"}"#)
                Foundation.exit(128 + sig)
            }
            s.resume()
            return s
        }
    }
}
