import Foundation
import Testing

/// The NAT testbed of `scripts/testbed.sh nat-up` (scripts/testbed-nat.sh): two public nodes'
/// namespaces (`pub`, `pub2`) and nodes behind endpoint-independent (`eim1`, `eim2`) and symmetric (`sym3`,
/// `sym4`) routers. Made by `up`, removed by `down` with every node started in it (call it in
/// a `defer` on every path); root needed, as in CI.
struct NatTestbed {
    struct Host {
        let namespace: String
        let address: String
        /// The public address of its router (nil for the public node).
        let router: String?
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// `skwnPIDpN`: the process that made it, so that a later run sweeps it if this one dies
    /// without `down` (`scripts/testbed.sh nat-sweep`).
    let tag = "skwn\(getpid())p\(Int.random(in: 0..<1000))"
    var hosts: [String: Host] = [:]
    /// Conntrack's UDP timeout (seconds) set in the routers; nil: the kernel's.
    let udpTimeout: Int?
    /// The nodes started, stopped by `down`.
    private var started: [RunningNode] = []
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-nat-\(UUID().uuidString)").path

    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    init(udpTimeout: Int? = nil) { self.udpTimeout = udpTimeout }

    @discardableResult
    static func script(_ args: [String], env: [String: String] = [:]) throws -> String {
        try run("/bin/bash", [repo.appendingPathComponent("scripts/testbed.sh").path] + args, env: env)
    }

    /// Runs a program to its end; its output (stdout and stderr), or a failure naming it.
    @discardableResult
    static func run(_ program: String, _ args: [String], env: [String: String] = [:]) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: program)
        p.arguments = args
        p.environment = ProcessInfo.processInfo.environment.merging(env) { $1 }
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard p.terminationStatus == 0 else { throw Failure(description: "\(program) \(args.joined(separator: " ")): \(text)") }
        return text
    }

    mutating func up() throws {
        var env: [String: String] = [:]
        if let t = udpTimeout { env["SKWAD_NAT_UDP_TIMEOUT"] = String(t) }
        // What a crashed run left behind (namespaces, nodes still in them) goes first.
        try Self.script(["nat-sweep"])
        let out = try Self.script(["nat-up", "--tag", tag], env: env)
        let file = try #require(out.split(separator: "\n").first { $0.hasPrefix("file ") }).dropFirst(5)
        for line in try String(contentsOfFile: String(file), encoding: .utf8).split(separator: "\n") {
            let f = line.split(separator: " ").map(String.init)
            guard f.count >= 3 else { continue }
            hosts[f[0]] = Host(namespace: f[1], address: f[2], router: f.count > 3 ? f[3] : nil)
        }
        guard hosts.count == 6 else { throw Failure(description: "testbed file has \(hosts.count) hosts") }
    }

    func down() {
        for n in started { n.stop() }
        _ = try? Self.script(["nat-down", "--tag", tag])
        try? FileManager.default.removeItem(atPath: root)
    }

    /// Conntrack's UDP timeouts in the routers, as `nat-timeouts` prints them.
    func timeouts() throws -> String { try Self.script(["nat-timeouts", "--tag", tag]).trimmingCharacters(in: .whitespacesAndNewlines) }

    /// Router `n` (1-4) drops what its LAN sends to `address` (a path that does not work), or,
    /// with nil, stops dropping it. Whatever else it forwards is untouched.
    func cut(router n: Int, to address: String?) throws {
        let rules =
            address.map {
                "add table ip skwadcut; add chain ip skwadcut cut { type filter hook forward priority -10; }; "
                    + "add rule ip skwadcut cut ip daddr \($0) drop"
            }
            ?? "delete table ip skwadcut"
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        p.arguments = ["netns", "exec", "\(tag)-r\(n)", "nft", rules]
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw Failure(description: "nft in router \(n): status \(p.terminationStatus)") }
    }

    /// Starts the binary in host `role`'s namespace, with no LAN beacon.
    mutating func node(_ role: String, _ extra: [String] = []) throws -> RunningNode {
        let host = try #require(hosts[role])
        let bin = try #require(BinaryTests.binary, "build the skwad executable first (scripts/test.sh does)")
        let n = try RunningNode(
            binary: URL(fileURLWithPath: "/usr/sbin/ip"),
            args: ["netns", "exec", host.namespace, bin.path, "--data", "\(root)/\(role)", "--no-lan"] + extra)
        started.append(n)
        return n
    }

    /// A public node (`pub` or `pub2`), listening on port 7400.
    mutating func publicNode(_ role: String = "pub", _ extra: [String] = []) throws -> RunningNode {
        try node(role, ["--listen", "\(try #require(hosts[role]).address):7400"] + extra)
    }

    /// The public node, then nodes `a` and `b` (their roles, and their other arguments)
    /// joining through it.
    mutating func publicAndTwo(_ a: (String, [String]), _ b: (String, [String])) throws -> (RunningNode, RunningNode, RunningNode) {
        let p = try publicNode()
        return (p, try node(a.0, ["--peer", Self.publicAddress] + a.1), try node(b.0, ["--peer", Self.publicAddress] + b.1))
    }
    static let publicAddress = "198.18.0.10:7400"
    static let publicAddress2 = "198.19.0.10:7400"
}
