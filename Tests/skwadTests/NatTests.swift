import Foundation
import Testing

/// Nodes behind NAT routers, and the NAT testbed itself (NatTestbed.swift; root needed, as in CI).
@Suite(.serialized) struct NatTests {
    /// The testbed's routers do what they claim: the public node sees a node behind an
    /// endpoint-independent router at the router's address.
    /// (Links are awaited up to 60 s: beside the rest of the suite this one took 17 s of a 20 s
    /// bound, and more with a build running beside the tests.)
    @Test func aNodeBehindANatLinksToThePublicNodeFromItsRoutersAddress() async throws {
        #expect(getuid() == 0, "network namespaces need root (CI runs as root)")
        var bed = NatTestbed()
        defer { bed.down() }
        try bed.up()
        let p = try bed.publicNode()
        let a = try bed.node("eim1", ["--peer", NatTestbed.publicAddress])
        #expect(await a.waitFor("active", poll: "peers", seconds: 60))
        #expect(await p.waitFor("198.18.1.1:", poll: "peers", seconds: 60))
        #expect(!p.text.contains("192.168.1.2"))
    }

    /// A testbed whose tag names a process that is gone (a crashed test run) is swept, with
    /// the process still running inside it; a testbed of a live process is left alone.
    @Test func aDeadRunsTestbedIsSweptWithItsNodesAndALiveRunsIsNot() throws {
        #expect(getuid() == 0, "network namespaces need root (CI runs as root)")
        // Here, in a suite that runs one test at a time: every testbed's `up` sweeps too.
        // No process can have a pid above pid_max.
        let pidMax = try String(contentsOfFile: "/proc/sys/kernel/pid_max", encoding: .utf8)
        let deadPid = try #require(Int(pidMax.trimmingCharacters(in: .whitespacesAndNewlines))) + 1
        let dead = "skwn\(deadPid)p\(Int.random(in: 0..<1000))", live = "skwn\(getpid())p\(Int.random(in: 1000..<2000))"
        let namespaces = ["\(dead)-net", "\(dead)-n1", "\(live)-net"]
        var sleeper: Process?
        defer {
            sleeper?.terminate()
            for ns in namespaces { _ = try? Self.ip(["netns", "del", ns]) }
        }
        for ns in namespaces { try Self.ip(["netns", "add", ns]) }
        // A node the dead run left behind, still running in its namespace.
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        p.arguments = ["netns", "exec", "\(dead)-n1", "sleep", "120"]
        try p.run()
        sleeper = p
        // Bounded: until the sleeper shows in its namespace (10 s at most).
        for _ in 0..<100 where try Self.ip(["netns", "pids", "\(dead)-n1"]).isEmpty { Thread.sleep(forTimeInterval: 0.1) }
        #expect(try !Self.ip(["netns", "pids", "\(dead)-n1"]).isEmpty, "the sleeper runs in the dead run's namespace")

        let out = try NatTestbed.script(["nat-sweep"])
        #expect(out.contains("swept \(dead)"))
        #expect(!out.contains("swept \(live)"))
        let left = try Self.ip(["netns", "list"])
        #expect(!left.contains("\(dead)-"), "the dead run's namespaces are gone: \(left)")
        #expect(left.contains("\(live)-net"), "a live run's namespace stays")
        for _ in 0..<100 where p.isRunning { Thread.sleep(forTimeInterval: 0.1) }
        #expect(!p.isRunning, "the process left in the dead run's namespace was stopped")
    }

    /// Reflexive addresses: two public nodes in two network groups tell a node behind an
    /// endpoint-independent NAT the same router address, and `whoami` lists it; behind a
    /// symmetric NAT they see two ports, and nothing is listed.
    @Test func whoamiListsTheRoutersAddressOnlyWhenTwoWitnessesAgree() async throws {
        #expect(getuid() == 0, "network namespaces need root (CI runs as root)")
        var bed = NatTestbed()
        defer { bed.down() }
        try bed.up()
        // The two witnesses (the testbed stops them on every exit path).
        _ = try bed.publicNode()
        _ = try bed.publicNode("pub2", ["--peer", NatTestbed.publicAddress])
        let a = try bed.node("eim1", ["--peer", NatTestbed.publicAddress, "--peer", NatTestbed.publicAddress2])
        let c = try bed.node("sym3", ["--peer", NatTestbed.publicAddress, "--peer", NatTestbed.publicAddress2])
        #expect(await a.waitFor("reach.reflexive_witnesses 2", poll: "stats", seconds: 30))
        #expect(await a.waitFor("reachable at 192.168.1.2:", poll: "whoami", seconds: 10))
        let line = try #require(a.text.split(separator: "\n").last { $0.hasPrefix("reachable at ") })
        #expect(line.contains(", 198.18.1.1:"), "the router's public address, confirmed: \(line)")
        #expect(await c.waitFor("reach.reflexive_witnesses 2", poll: "stats", seconds: 30))
        c.send("whoami")
        #expect(await c.waitFor("reachable at 192.168.3.2:", seconds: 10))
        #expect(!c.text.contains("198.18.3.1"), "a symmetric NAT's ports differ per witness: none is confirmed")
    }

    /// Keep-alives (PROTOCOL §9 "Keep-alives"): a node behind a NAT keeps its link through
    /// idle. The routers' conntrack UDP timeouts are cut to 5 s in their own namespaces (the
    /// kernel's are 30 s unanswered, 120 s both ways), so 60 s of idle here is 12 timeouts, as
    /// 10 minutes are 5 of the kernel's 120 s: the link stays, on the same mapping, with no new
    /// handshake at either end.
    @Test func aNodeBehindANatKeepsItsLinkThroughIdle() async throws {
        #expect(getuid() == 0, "network namespaces need root (CI runs as root)")
        var bed = NatTestbed(udpTimeout: 5)
        defer { bed.down() }
        try bed.up()
        #expect(try bed.timeouts() == "udp 5 stream 5")
        let p = try bed.publicNode()
        let a = try bed.node("eim1", ["--peer", NatTestbed.publicAddress])
        #expect(await a.waitFor("active", poll: "peers", seconds: 60))
        #expect(await p.waitFor("198.18.1.1:", poll: "peers", seconds: 60))
        try await Task.sleep(nanoseconds: 3_000_000_000)
        let before = (a: await Self.stat("handshakes", of: a), p: await Self.stat("handshakes", of: p), peers: await Self.peers(of: p))
        #expect(before.a != nil && before.p != nil, "stats answered")
        try await Task.sleep(nanoseconds: 60_000_000_000)
        #expect(await Self.stat("handshakes", of: a) == before.a)
        #expect(await Self.stat("handshakes", of: p) == before.p)
        #expect(await Self.stat("sessions.silent", of: a) == 0)
        let after = await Self.peers(of: p)
        #expect(after == before.peers && after.count == 1 && after[0].hasPrefix("198.18.1.1:") && after[0].hasSuffix("active"), "\(after)")
    }

    /// Hole punching (PROTOCOL §9 "Introductions"): two nodes behind two different
    /// endpoint-independent NATs, joined through the public node only, link directly: with
    /// the public node gone, posts still go both ways. Each says it is behind a NAT, and the
    /// public node introduces the two as they share a pack. (In an overlay this small, each
    /// also learns the other from the public node's walks and shuffles, and both send to the
    /// other within the NAT's 30 s, which punches the hole too; so whether the introduction
    /// or the walk linked them first is not asserted: `IntroductionTests` shows an
    /// introduction alone makes the punch.)
    @Test func twoNodesBehindTwoNatsArePunchedTogetherAndPostBothWays() async throws {
        #expect(getuid() == 0, "network namespaces need root (CI runs as root)")
        var bed = NatTestbed()
        defer { bed.down() }
        try bed.up()
        let (p, a, b) = try bed.publicAndTwo(("eim1", []), ("eim2", []))
        #expect(await a.waitFor("active", poll: "peers", seconds: 60))
        #expect(await b.waitFor("active", poll: "peers", seconds: 60))
        a.send("create natroom")
        #expect(await a.waitFor("created pack natroom", seconds: 20))
        #expect(await b.waitFor("joined natroom", poll: "join natroom", seconds: 30))
        #expect(await a.waitFor("198.18.2.1:", poll: "peers", seconds: 30), "a links to b's router address")
        #expect(await b.waitFor("198.18.1.1:", poll: "peers", seconds: 30), "b links to a's router address")
        #expect(await p.waitFor("reach.introductions_sent 2", poll: "stats", seconds: 10))
        #expect(await a.waitFor("reach.introductions_heard 1", poll: "stats", seconds: 10))
        #expect(await b.waitFor("reach.introductions_heard 1", poll: "stats", seconds: 10))
        p.send("quit")
        p.stop()
        a.send(#"post natroom "from a" "through the hole""#)
        #expect(await b.waitFor("from a", poll: "feed natroom", seconds: 30))
        b.send(#"post natroom "from b" "and back""#)
        #expect(await a.waitFor("from b", poll: "feed natroom", seconds: 30))
    }

    /// Introductions by shared fence (PROTOCOL §9 "Introductions"): two nodes behind two
    /// endpoint-independent NATs, 1 km apart, in no pack, link directly (hole punched) and the
    /// public node counts a fence introduction.
    @Test func twoNeighboursBehindTwoNatsWithNoPackInCommonArePunchedTogether() async throws {
        #expect(getuid() == 0, "network namespaces need root (CI runs as root)")
        var bed = NatTestbed()
        defer { bed.down() }
        try bed.up()
        let (p, a, b) = try bed.publicAndTwo(("eim1", ["--location", "48.8566,2.3522"]), ("eim2", ["--location", "48.8656,2.3522"]))
        #expect(await a.waitFor("198.18.2.1:", poll: "peers", seconds: 30), "a links to b's router address")
        #expect(await b.waitFor("198.18.1.1:", poll: "peers", seconds: 30), "b links to a's router address")
        #expect(await p.waitFor("reach.fence_introductions 1", poll: "stats", seconds: 10))
        #expect(!a.text.contains("@198.18.0.10"), "never through the relay")
    }

    /// Relays (PROTOCOL §9 "Relays"): behind two symmetric NATs the punch fails, and the two
    /// link through the public node that introduced them; posts go both ways over that link
    /// (the public node holds no subscription to the pack, so it carries no op of it by
    /// itself: it passes the two's encrypted frames).
    @Test func behindSymmetricNatsTwoNodesPostThroughTheRelay() async throws {
        #expect(getuid() == 0, "network namespaces need root (CI runs as root)")
        var bed = NatTestbed()
        defer { bed.down() }
        try bed.up()
        let (p, a, b) = try bed.publicAndTwo(("sym3", []), ("sym4", []))
        #expect(await a.waitFor("active", poll: "peers", seconds: 60))
        #expect(await b.waitFor("active", poll: "peers", seconds: 60))
        a.send("create symroom")
        #expect(await a.waitFor("created pack symroom", seconds: 20))
        #expect(await b.waitFor("joined symroom", poll: "join symroom", seconds: 30))
        #expect(await a.waitFor("@198.18.0.10:7400  active", poll: "peers", seconds: 30), "a links to b through the relay")
        #expect(await b.waitFor("@198.18.0.10:7400  active", poll: "peers", seconds: 30), "b links to a through the relay")
        a.send(#"post symroom "from a" "through the relay""#)
        #expect(await b.waitFor("from a", poll: "feed symroom", seconds: 30))
        b.send(#"post symroom "from b" "and back""#)
        #expect(await a.waitFor("from b", poll: "feed symroom", seconds: 30))
        #expect((await Self.stat("reach.relayed_bytes", of: p) ?? 0) > 0)
        #expect(!p.text.contains("from a"), "the relay holds no subscription: it saw no post")
    }

    /// Direct links first (PROTOCOL §9): two nodes behind endpoint-independent NATs whose
    /// routers first drop what goes to the other's router (a path that does not work) link
    /// through the public node; once the path works, the relayed link's direct tries (30 s
    /// after it came up) link them directly, the relayed link is retired, and the public
    /// node relays nothing more for them.
    @Test func aRelayedPairMovesToADirectLinkOnceThePathWorks() async throws {
        #expect(getuid() == 0, "network namespaces need root (CI runs as root)")
        var bed = NatTestbed()
        defer { bed.down() }
        try bed.up()
        try bed.cut(router: 1, to: "198.18.2.1")
        try bed.cut(router: 2, to: "198.18.1.1")
        let (p, a, b) = try bed.publicAndTwo(("eim1", ["--location", "48.8566,2.3522"]), ("eim2", ["--location", "48.8656,2.3522"]))
        #expect(await a.waitFor("@198.18.0.10:7400  active", poll: "peers", seconds: 30), "a links to b through the relay")
        #expect(await b.waitFor("@198.18.0.10:7400  active", poll: "peers", seconds: 30), "b links to a through the relay")
        try bed.cut(router: 1, to: nil)
        try bed.cut(router: 2, to: nil)
        func direct(_ n: RunningNode, to router: String) async -> (direct: Bool, relayed: Bool) {
            let lines = await Self.peers(of: n).filter { $0.hasPrefix(router + ":") && $0.contains("  active") }
            return (lines.contains { !$0.contains("@") }, lines.contains { $0.contains("@") })
        }
        var ok = false
        for _ in 0..<60 where !ok {
            let (ab, ba) = (await direct(a, to: "198.18.2.1"), await direct(b, to: "198.18.1.1"))
            ok = ab.direct && ba.direct && !ab.relayed && !ba.relayed
            if !ok { try await Task.sleep(nanoseconds: 1_000_000_000) }
        }
        let (pa, pb) = (await Self.peers(of: a), await Self.peers(of: b))
        #expect(ok, "a and b hold a direct link and no relayed one: \(pa) \(pb)")
        #expect((await Self.stat("reach.relayed_to_direct", of: a) ?? 0) >= 1)
        let relayed = await Self.stat("reach.relayed_bytes", of: p) ?? -1
        try await Task.sleep(nanoseconds: 5_000_000_000)
        #expect(await Self.stat("reach.relayed_bytes", of: p) == relayed, "the relay passes nothing more")
    }

    /// The value of `key` in a fresh `stats` answer.
    static func stat(_ key: String, of n: RunningNode) async -> Int? {
        let mark = n.text.count
        n.send("stats")
        _ = await n.waitFor("limits.addresses", seconds: 0.2)
        for _ in 0..<25 {
            let fresh = n.text.dropFirst(mark)
            if fresh.contains("limits.addresses"),
                let line = fresh.split(separator: "\n").first(where: { $0.hasPrefix(key + " ") })
            {
                return Int(line.dropFirst(key.count + 1))
            }
            try? await Task.sleep(nanoseconds: 200_000_000)
        }
        return nil
    }

    /// The lines of a fresh `peers` answer.
    static func peers(of n: RunningNode) async -> [String] {
        let mark = n.text.count
        n.send("peers")
        for _ in 0..<25 {
            try? await Task.sleep(nanoseconds: 200_000_000)
            let lines = n.text.dropFirst(mark).split(separator: "\n").map(String.init).filter {
                $0.contains("  active") || $0.contains("  passive")
            }
            if !lines.isEmpty { return lines }
        }
        return []
    }

    @discardableResult
    static func ip(_ args: [String]) throws -> String { try NatTestbed.run("/usr/sbin/ip", args) }
}
