import Foundation
import Testing

/// Neighbours on the local network (PROTOCOL §9, "LAN beacon"): two nodes started with no
/// `--peer` and no `--listen`, in two network namespaces joined by a veth pair (made here,
/// removed on every exit path; root needed, as in CI), link and exchange packs.
@Suite(.serialized) struct LanBeaconTests {
    /// Two namespaces `tag`a and `tag`b joined by a veth pair: 10.78.0.1/24 and 10.78.0.2/24.
    struct Link {
        let tag = "skwl\(getpid())-\(Int.random(in: 0..<10_000))"
        var a: String { tag + "a" }
        var b: String { tag + "b" }

        static func ip(_ args: [String]) throws {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
            p.arguments = args
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            p.waitUntilExit()
            guard p.terminationStatus == 0 else { throw LinkError(args: args) }
        }

        /// Namespaces left by a test process that died before `down` (a crash runs no
        /// cleanup): removed at the next run, by the pid in their name.
        static func sweepStale() {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: "/run/netns")) ?? []
            for name in names where name.hasPrefix("skwl") {
                guard let pid = Int32(name.dropFirst(4).prefix(while: { $0 != "-" })), pid != getpid(),
                    kill(pid, 0) != 0 && errno == ESRCH
                else { continue }
                try? ip(["netns", "del", name])
            }
        }

        func up() throws {
            Self.sweepStale()
            try Self.ip(["netns", "add", a])
            try Self.ip(["netns", "add", b])
            try Self.ip(["link", "add", "veth0", "netns", a, "type", "veth", "peer", "name", "veth0", "netns", b])
            for (ns, addr) in [(a, "10.78.0.1/24"), (b, "10.78.0.2/24")] {
                try Self.ip(["-n", ns, "addr", "add", addr, "dev", "veth0"])
                try Self.ip(["-n", ns, "link", "set", "veth0", "up"])
                try Self.ip(["-n", ns, "link", "set", "lo", "up"])
            }
        }

        func down() {
            try? Self.ip(["netns", "del", a])
            try? Self.ip(["netns", "del", b])
        }
    }

    struct LinkError: Error { let args: [String] }

    static func node(in ns: String, data: String, extra: [String] = []) throws -> RunningNode {
        let bin = try #require(BinaryTests.binary, "build the skwad executable first (scripts/test.sh does)")
        return try RunningNode(binary: URL(fileURLWithPath: "/usr/sbin/ip"), args: ["netns", "exec", ns, bin.path, "--data", data] + extra)
    }

    @Test func twoNodesOnOneLinkFindEachOtherWithNoPeerGiven() async throws {
        #expect(getuid() == 0, "network namespaces need root (CI runs as root)")
        let link = Link()
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-lan-\(UUID().uuidString)").path
        defer { link.down(); try? FileManager.default.removeItem(atPath: root) }
        try link.up()
        let a = try Self.node(in: link.a, data: root + "/a")
        defer { a.stop() }
        let b = try Self.node(in: link.b, data: root + "/b")
        defer { b.stop() }
        #expect(await a.waitFor("reachable at 10.78.0.1:", poll: "whoami", seconds: 20))
        #expect(a.text.contains("finding neighbours on the local network"))
        #expect(await a.waitFor("active", poll: "peers", seconds: 20))
        #expect(await b.waitFor("active", poll: "peers", seconds: 20))
        a.send("create lanroom")
        #expect(await b.waitFor("lanroom", poll: "packs", seconds: 20))
    }

    @Test func withNoLanTheyStayApart() async throws {
        #expect(getuid() == 0, "network namespaces need root (CI runs as root)")
        let link = Link()
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-lan-\(UUID().uuidString)").path
        defer { link.down(); try? FileManager.default.removeItem(atPath: root) }
        try link.up()
        let a = try Self.node(in: link.a, data: root + "/a", extra: ["--no-lan"])
        defer { a.stop() }
        let b = try Self.node(in: link.b, data: root + "/b")
        defer { b.stop() }
        #expect(await a.waitFor("not looking for neighbours", poll: "whoami", seconds: 20))
        // b beacons; a neither beacons nor listens, so nobody joins anybody (5 s: b's fast phase).
        #expect(!(await b.waitFor("active", poll: "peers", seconds: 5)))
        #expect(!a.text.contains("active"))
    }

    /// `skwad bench lan` removes the namespaces a benchmark process left when it died (named
    /// by its pid), and keeps those of a live one.
    @Test func benchLanSweepsTheNamespacesOfADeadRun() throws {
        #expect(getuid() == 0, "network namespaces need root (CI runs as root)")
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run()
        gone.waitUntilExit()
        let stale = "skwb\(gone.processIdentifier)x0a", live = "skwb\(getpid())x0a"
        defer {
            try? Link.ip(["netns", "del", stale])
            try? Link.ip(["netns", "del", live])
        }
        try Link.ip(["netns", "add", stale])
        try Link.ip(["netns", "add", live])
        let r = try BinaryTests.run(["bench", "lan", "--runs", "1"], input: "", seconds: 120)
        #expect(r.status == 0, "stderr: \(r.err)")
        #expect(r.out.contains("\"converged\":true"), "\(r.out)")
        let left = (try? FileManager.default.contentsOfDirectory(atPath: "/run/netns")) ?? []
        #expect(!left.contains(stale))
        #expect(left.contains(live))
    }
}
