import Foundation

/// Reach through NATs on the NAT testbed (`scripts/testbed.sh nat-run`, scripts/testbed-nat.sh;
/// root needed): `skwad --json` processes in the testbed's namespaces — the two public nodes,
/// two nodes behind endpoint-independent routers (`eim1`, `eim2`), two behind symmetric ones
/// (`sym3`, `sym4`). Each NAT'd pair stands 1 km apart (the two pairs 300 km from each other),
/// is given only the public nodes as peers and joins no pack: the public node introduces the
/// two by their shared fence (PROTOCOL §9 "Introductions"). Reported per NAT kind: the time from
/// the second node's start until both list each other as an active peer — directly at the
/// other's router address behind endpoint-independent NATs, through the relay behind symmetric
/// ones; then the IP bytes per second each node sends while idle (28 bytes of IPv4 + UDP
/// header a datagram, as `bench procs`), keep-alives included.
struct NatBenchmark {
    struct Host { let namespace: String; let address: String; let router: String? }
    let hosts: [String: Host]
    let binary: String
    let idleSeconds: Double
    let linkTimeout: Double

    struct Failure: Error { let reason: String }

    static let publicPeer = "198.18.0.10:7400", publicPeer2 = "198.19.0.10:7400"
    /// Where each NAT'd node stands: the pairs 1 km apart, the two pairs 300 km apart.
    static let locations = ["eim1": "48.8566,2.3522", "eim2": "48.8656,2.3522", "sym3": "46.1566,2.3522", "sym4": "46.1656,2.3522"]

    /// The testbed file: `ROLE NAMESPACE ADDRESS [ROUTER-ADDRESS]` per line.
    static func hosts(file text: String) -> [String: Host] {
        var out: [String: Host] = [:]
        for line in text.split(separator: "\n") {
            let f = line.split(separator: " ").map(String.init)
            guard f.count >= 3 else { continue }
            out[f[0]] = Host(namespace: f[1], address: f[2], router: f.count > 3 ? f[3] : nil)
        }
        return out
    }

    func run() async -> String {
        signal(SIGPIPE, SIG_IGN)
        guard getuid() == 0 else { return BenchFailure.json(bench: "nat", reason: "network namespaces need root") }
        let roles = ["pub", "pub2", "eim1", "eim2", "sym3", "sym4"]
        guard roles.allSatisfy({ hosts[$0] != nil }) else {
            return BenchFailure.json(bench: "nat", reason: "the testbed file lacks one of \(roles.joined(separator: ", "))")
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-bench-nat-\(UUID().uuidString)").path
        var nodes: [String: ChildNode] = [:]
        defer {
            for n in nodes.values { n.closeInput() }
            for n in nodes.values { n.stop(deadline: monotonicSeconds() + 2) }
            try? FileManager.default.removeItem(atPath: dir)
        }
        do {
            func start(_ role: String, _ extra: [String]) async throws -> ChildNode {
                let h = hosts[role]!
                let n = try ChildNode(
                    index: nodes.count, binary: binary, args: ["--data", "\(dir)/\(role)", "--json", "--no-lan"] + extra,
                    launcher: ["/usr/sbin/ip", "netns", "exec", h.namespace])
                nodes[role] = n
                guard await n.request("whoami") != nil else { throw Failure(reason: "\(role) did not start: \(n.lastStderr)") }
                return n
            }
            _ = try await start("pub", ["--listen", Self.publicPeer])
            _ = try await start("pub2", ["--listen", Self.publicPeer2, "--peer", Self.publicPeer])
            var linkMs: [String: Double] = [:]
            for (kind, a, b) in [("eim", "eim1", "eim2"), ("sym", "sym3", "sym4")] {
                let peers = ["--peer", Self.publicPeer, "--peer", Self.publicPeer2]
                let na = try await start(a, peers + ["--location", Self.locations[a]!])
                let t0 = monotonicSeconds()
                let nb = try await start(b, peers + ["--location", Self.locations[b]!])
                let relayed = kind == "sym"
                var done = false
                while !done && monotonicSeconds() < t0 + linkTimeout {
                    let ab = await Self.links(na, to: hosts[b]!.router!, relayed: relayed)
                    let ba = await Self.links(nb, to: hosts[a]!.router!, relayed: relayed)
                    if ab && ba { done = true; break }
                    try? await Task.sleep(nanoseconds: 100_000_000)
                }
                guard done else {
                    var seen: [String] = []
                    for (role, n) in [(a, na), (b, nb), ("pub", nodes["pub"]!), ("pub2", nodes["pub2"]!)] {
                        let s = await n.request("stats")?["stats"] as? [String: Any] ?? [:]
                        let reach = s.filter { $0.key.hasPrefix("reach.") || $0.key.hasPrefix("drop.") || $0.key.hasPrefix("sent.") }.sorted
                        { $0.key < $1.key }
                        let peers = await n.request("peers")?["peers"] as? [[String: Any]] ?? []
                        seen.append(
                            "\(role): \(reach.map { "\($0.key)=\($0.value)" }.joined(separator: " ")) "
                                + "peers \(peers.map { "\($0["address"] ?? "") \($0["state"] ?? "")" })"
                        )
                    }
                    throw Failure(reason: "\(a) and \(b) did not link within \(Int(linkTimeout)) s; \(seen.joined(separator: "; "))")
                }
                linkMs[kind] = ((monotonicSeconds() - t0) * 1000 * 10).rounded() / 10
            }
            try? await Task.sleep(nanoseconds: 2_000_000_000)
            let before = try await Self.traffic(roles.map { nodes[$0]! })
            try? await Task.sleep(nanoseconds: UInt64(idleSeconds * 1e9))
            let after = try await Self.traffic(roles.map { nodes[$0]! })
            var idle: [String: Double] = [:]
            for (i, role) in roles.enumerated() { idle[role] = (Double(after[i].ip - before[i].ip) / idleSeconds * 10).rounded() / 10 }
            // What the NAT'd nodes sent while idle, by message kind (plaintext bytes), per node per second.
            var byKind: [String: Double] = [:]
            for i in 2..<roles.count {
                for (k, v) in after[i].byKind { byKind[k, default: 0] += Double(v - (before[i].byKind[k] ?? 0)) / idleSeconds / 4 }
            }
            byKind = byKind.filter { $0.value > 0 }.mapValues { ($0 * 100).rounded() / 100 }
            let natted = roles.dropFirst(2).map { idle[$0]! }.sorted()
            var fenceIntroductions = 0
            if let s = await nodes["pub"]!.request("stats")?["stats"] as? [String: Any] {
                fenceIntroductions = s["reach.fence_introductions"] as? Int ?? 0
            }
            let o: [String: Any] = [
                "bench": "nat", "converged": true, "eim_first_direct_link_ms": linkMs["eim"]!,
                "sym_first_relayed_link_ms": linkMs["sym"]!, "idle_seconds": idleSeconds,
                "idle_ip_bytes_per_second": idle, "idle_natted_p50": natted[natted.count / 2],
                "idle_natted_max": natted.last!, "fence_introductions": fenceIntroductions,
                "idle_natted_by_kind": byKind
            ]
            let d = (try? JSONSerialization.data(withJSONObject: o, options: [.sortedKeys])) ?? Data()
            return String(decoding: d, as: UTF8.self)
        } catch let f as Failure {
            return BenchFailure.json(bench: "nat", reason: f.reason)
        } catch {
            return BenchFailure.json(bench: "nat", reason: "cannot start skwad: \(error)")
        }
    }

    /// Does `n` list an active peer at `router` (directly, or through a relay)?
    static func links(_ n: ChildNode, to router: String, relayed: Bool) async -> Bool {
        let peers = await n.request("peers", timeout: 5)?["peers"] as? [[String: Any]] ?? []
        return peers.contains { p in
            guard p["state"] as? String == "active", let a = p["address"] as? String, a.hasPrefix(router + ":") else { return false }
            return a.contains("@") == relayed
        }
    }

    /// IP-level bytes each node sent so far, and its counters of messages, bytes and drops by kind.
    static func traffic(_ nodes: [ChildNode]) async throws -> [(ip: Int, byKind: [String: Int])] {
        var out: [(ip: Int, byKind: [String: Int])] = []
        for n in nodes {
            guard let s = await n.request("stats", timeout: 10)?["stats"] as? [String: Any], let bytes = s["bytes.out"] as? Int,
                let datagrams = s["datagrams.out"] as? Int
            else { throw Failure(reason: "node \(n.index) gave no traffic counters") }
            var byKind: [String: Int] = ["datagrams.out": datagrams, "bytes.out": bytes]
            for (k, v) in s where k.hasPrefix("sent_bytes.") || k.hasPrefix("drop.") { byKind[k] = v as? Int }
            out.append((bytes + 28 * datagrams, byKind))
        }
        return out
    }
}
