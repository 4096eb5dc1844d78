import Foundation

/// Time from start to first link through the LAN beacon (PROTOCOL §9): two `skwad --json`
/// processes with no `--peer` and no `--listen`, each in a network namespace of its own, the
/// two joined by a veth pair (made and removed by each run; root needed). Measured from the
/// second node's start to the moment both list an active peer, polled every 50 ms.
/// Then the same with a contact code (§9 "Contact codes") and no beacon (`--no-lan`): from
/// the second node's start to the answer of its `connect CODE` (linked, key checked).
struct LanBenchmark {
    let runs: Int
    let binary: String
    let timeout: Double = 15

    func run() async -> String {
        guard getuid() == 0 else { return BenchFailure.json(bench: "lan", reason: "network namespaces need root") }
        Self.sweepStale()
        var times: [Double] = [], codeTimes: [Double] = []
        for r in 0..<runs * 2 {
            let byCode = r >= runs
            let extra = byCode ? ["--no-lan"] : []
            let tag = "skwb\(getpid())x\(r)"
            let (a, b) = (tag + "a", tag + "b")
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-lanbench-\(UUID().uuidString)").path
            defer {
                Self.ip(["netns", "del", a]); Self.ip(["netns", "del", b])
                try? FileManager.default.removeItem(atPath: dir)
            }
            guard Self.ip(["netns", "add", a]), Self.ip(["netns", "add", b]),
                Self.ip(["link", "add", "veth0", "netns", a, "type", "veth", "peer", "name", "veth0", "netns", b]),
                [(a, "10.79.0.1/24"), (b, "10.79.0.2/24")].allSatisfy({ ns, addr in
                    Self.ip(["-n", ns, "addr", "add", addr, "dev", "veth0"]) && Self.ip(["-n", ns, "link", "set", "veth0", "up"])
                        && Self.ip(["-n", ns, "link", "set", "lo", "up"])
                })
            else { return BenchFailure.json(bench: "lan", reason: "cannot make the network namespaces") }
            do {
                let first = try ChildNode(
                    index: 0, binary: binary, args: ["--data", dir + "/a", "--json"] + extra,
                    launcher: ["/usr/sbin/ip", "netns", "exec", a])
                defer { first.stop(deadline: monotonicSeconds() + 2) }
                // The first node is up (it answers) before the second starts.
                guard await first.request("whoami") != nil else {
                    return BenchFailure.json(bench: "lan", reason: "first node did not start")
                }
                let code = byCode ? await first.request("invite")?["code"] as? String : nil
                if byCode && code == nil { return BenchFailure.json(bench: "lan", reason: "no contact code from invite") }
                let start = monotonicSeconds()
                let second = try ChildNode(
                    index: 1, binary: binary, args: ["--data", dir + "/b", "--json"] + extra,
                    launcher: ["/usr/sbin/ip", "netns", "exec", b])
                defer { second.stop(deadline: monotonicSeconds() + 2) }
                if let code {
                    guard let reply = await second.request("connect \(code)", timeout: timeout), reply["address"] != nil else {
                        return BenchFailure.json(bench: "lan", reason: "connect failed", extra: ["run": r])
                    }
                    codeTimes.append((monotonicSeconds() - start) * 1000)
                    continue
                }
                var linked: Double?
                while linked == nil && monotonicSeconds() < start + timeout {
                    if await Self.hasActivePeer(first), await Self.hasActivePeer(second) { linked = monotonicSeconds() - start; break }
                    try? await Task.sleep(nanoseconds: 50_000_000)
                }
                guard let linked else {
                    return BenchFailure.json(bench: "lan", reason: "no link within \(Int(timeout)) s", extra: ["run": r])
                }
                times.append(linked * 1000)
            } catch {
                return BenchFailure.json(bench: "lan", reason: "cannot start skwad: \(error)")
            }
        }
        func tenths(_ x: Double) -> Double { (x * 10).rounded() / 10 }
        let sorted = times.sorted(), codeSorted = codeTimes.sorted()
        let o: [String: Any] = [
            "bench": "lan", "converged": true, "runs": runs, "first_link_ms": times.map(tenths),
            "median_ms": tenths(sorted[sorted.count / 2]), "max_ms": tenths(sorted.last!),
            "code_link_ms": codeTimes.map(tenths), "code_median_ms": tenths(codeSorted[codeSorted.count / 2]),
            "code_max_ms": tenths(codeSorted.last!)
        ]
        let d = (try? JSONSerialization.data(withJSONObject: o, options: [.sortedKeys])) ?? Data()
        return String(decoding: d, as: UTF8.self)
    }

    static func hasActivePeer(_ n: ChildNode) async -> Bool {
        let peers = await n.request("peers", timeout: 5)?["peers"] as? [[String: Any]] ?? []
        return peers.contains { $0["state"] as? String == "active" }
    }

    /// Namespaces a benchmark process left when it died before its cleanup ran (a crash or
    /// a kill runs no `defer`): removed by the next run, by the pid in their name
    /// (`skwb<pid>x<run>a`, `…b`), when that process is gone.
    static func sweepStale() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/run/netns")) ?? []
        for name in names where name.hasPrefix("skwb") {
            guard let pid = Int32(name.dropFirst(4).prefix(while: { $0 != "x" })), pid != getpid(),
                kill(pid, 0) != 0 && errno == ESRCH
            else { continue }
            _ = ip(["netns", "del", name])
        }
    }

    @discardableResult
    static func ip(_ args: [String]) -> Bool {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        p.arguments = args
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }
}
