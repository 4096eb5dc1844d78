/// The benchmarks `skwad bench` runs, each returning its one JSON object. The CLI parses and
/// checks the options; the measuring lives here, in its own target, so the `skwad` target
/// holds only the commands. Links no test code.
public enum Benchmarks {
    /// Ops decoded, verified, admitted and committed per second (IngestBenchmark.swift).
    public static func ingest(ops: Int, packs: Int, users: Int, batch: Int, runs: Int) throws -> String {
        try IngestBenchmark(ops: ops, packs: packs, users: users, batch: batch).run(runs: runs)
    }

    /// N full nodes in this process over UDP loopback (GossipBenchmark.swift).
    public static func gossip(nodes: Int, ops: Int, gapMs: Int) async -> String {
        await GossipBenchmark(count: nodes, ops: ops, gapMs: gapMs).run()
    }

    /// A node on loopback sprayed with HELLOs and junk (HostileBenchmark.swift).
    public static func hostile(
        seconds: Double, rate: Double, perSource: Int, addresses: Int, sockets: Int,
        postEveryMs: Int
    ) async throws -> String {
        try await HostileBenchmark(
            seconds: seconds, rate: rate, perSource: perSource, addresses: addresses,
            sockets: sockets, postEveryMs: postEveryMs
        ).run()
    }

    /// The price of identity (IdentityBenchmark.swift).
    public static func identity(samples: Int, offered: Int) -> String {
        IdentityBenchmark(samples: samples, offered: offered).run()
    }

    /// Start to first link through the LAN beacon, in network namespaces (LanBenchmark.swift).
    public static func lan(runs: Int) async -> String {
        await LanBenchmark(runs: runs, binary: ProcessBenchmark.nodeBinary()).run()
    }

    /// Reach through the NAT testbed's routers (NatBenchmark.swift): `testbed` is the file
    /// `scripts/testbed.sh nat-up` writes.
    public static func nat(testbed: String, idle: Double, linkTimeout: Double) async -> String {
        guard let text = try? String(contentsOfFile: testbed, encoding: .utf8) else {
            return BenchFailure.json(bench: "nat", reason: "cannot read the testbed file \(testbed)")
        }
        return await NatBenchmark(
            hosts: NatBenchmark.hosts(file: text), binary: ProcessBenchmark.nodeBinary(), idleSeconds: idle, linkTimeout: linkTimeout
        ).run()
    }

    /// Summaries of every place of a pack (PlaceBenchmark.swift).
    public static func places(places: Int, reviews: Int, runs: Int) -> String {
        PlaceBenchmark(places: places, reviews: reviews, runs: runs).run()
    }

    /// N separate `skwad --json` processes (ProcessBenchmark.swift); `binary` nil: this one.
    public static func processes(
        nodes: Int, idle: Double, posts: Int, gapMs: Int, bodyBytes: Int, herdTimeout: Double,
        packTimeout: Double, settle: Double, deadPeerTimeout: Double, binary: String?,
        hosts: [(netns: String, address: String)]?, dms: Int
    ) async -> String {
        await ProcessBenchmark(
            count: nodes, idleSeconds: idle, posts: posts, gapMs: gapMs, bodyBytes: bodyBytes,
            herdTimeout: herdTimeout, packTimeout: packTimeout, settle: settle, deadPeerTimeout: deadPeerTimeout,
            binary: binary ?? ProcessBenchmark.nodeBinary(), hosts: hosts, dms: dms
        ).run()
    }

    /// A picture of `width` × `height` (a PNG: 200 KB at 256 × 260) from node 0 to every node
    /// of `nodes` processes, `runs` times (PictureBenchmark.swift); `binary` nil: this one.
    public static func pictures(
        nodes: Int, runs: Int, width: Int, height: Int, herdTimeout: Double, packTimeout: Double, fetchTimeout: Double, idle: Double,
        gap: Double = 2, binary: String?
    ) async -> String {
        await PictureBenchmark(
            count: nodes, runs: runs, width: width, height: height, herdTimeout: herdTimeout, packTimeout: packTimeout,
            fetchTimeout: fetchTimeout, idleSeconds: idle, gapSeconds: gap, binary: binary ?? ProcessBenchmark.nodeBinary()
        ).run()
    }

    /// The local web page against the REPL on three `skwad` processes (WebBenchmark.swift);
    /// `binary` nil: the one beside this executable.
    public static func web(loads: Int, posts: Int, gapMs: Int, herdTimeout: Double, settle: Double, binary: String?) async -> String {
        await WebBenchmark(
            loads: loads, posts: posts, gapMs: gapMs, herdTimeout: herdTimeout, settle: settle,
            binary: binary ?? ProcessBenchmark.nodeBinary()
        ).run()
    }

    /// A benchmark that could not finish, as its one JSON object.
    public static func failure(bench: String, reason: String) -> String { BenchFailure.json(bench: bench, reason: reason) }
}
