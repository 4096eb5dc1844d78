import ArgumentParser
import Foundation
import SkwadBench

struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Benchmarks; each prints one JSON object.",
        subcommands: [
            BenchIngest.self, BenchGossip.self, BenchIdentity.self, BenchProcs.self, BenchHostile.self, BenchPlaces.self, BenchLan.self,
            BenchNat.self, BenchPictures.self, BenchWeb.self
        ])
}

struct BenchIngest: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingest",
        abstract: "Ops decoded + verified + admitted + committed per second, against raw Ed25519 verification.")

    @Option(help: "Ops per run.") var ops = 20_000
    @Option(help: "Packs the ops spread over.") var packs = 10
    @Option(help: "Distinct users.") var users = 200
    @Option(help: "Ops per store transaction.") var batch = 2_000
    @Option(help: "Runs; medians are reported.") var runs = 3

    func run() throws {
        guard ops > 0, packs > 0, users > 0, batch > 0, runs > 0 else { throw ValidationError("all options must be positive") }
        do {
            print(try Benchmarks.ingest(ops: ops, packs: packs, users: users, batch: batch, runs: runs))
        } catch {
            print(Benchmarks.failure(bench: "ingest", reason: "\(error)"))
        }
    }
}

struct BenchGossip: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gossip",
        abstract: "N full nodes in this process over UDP loopback: herd join time, time for an op to reach all, bytes per node per op.")

    @Option(help: "Nodes.") var nodes = 50
    @Option(help: "Ops to time (one at a time).") var ops = 30
    @Option(help: "Milliseconds between ops.") var gapMs = 20

    func run() async throws {
        guard nodes >= 2, ops >= 1 else { throw ValidationError("need at least 2 nodes and 1 op") }
        print(await Benchmarks.gossip(nodes: nodes, ops: ops, gapMs: gapMs))
    }
}

struct BenchHostile: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hostile",
        abstract:
            "A node on loopback sprayed with HELLOs and junk from many source ports: its RSS growth, CPU share, and an honest peer's "
            + "post delivery time meanwhile."
    )

    @Option(help: "Seconds of spray.") var seconds = 30.0
    @Option(help: "Datagrams per second, at most.") var rate = 20_000.0
    @Option(help: "Datagrams from each source port before it closes.") var perSource = 4
    @Option(help: "Source addresses 127.0.x.y cycled through.") var addresses = 256
    @Option(help: "Sockets open at once.") var sockets = 64
    @Option(help: "Milliseconds between honest posts.") var postEveryMs = 500

    func run() async throws {
        // Failures are reported as JSON, not as an exit status.
        do {
            guard seconds > 0, rate > 0, perSource > 0, addresses > 0, sockets > 0, postEveryMs > 0 else {
                throw ValidationError("all options must be positive")
            }
            print(
                try await Benchmarks.hostile(
                    seconds: seconds, rate: rate, perSource: perSource, addresses: addresses,
                    sockets: sockets, postEveryMs: postEveryMs))
        } catch {
            print(#"{"bench":"hostile","error":"\#(String(describing: error).replacingOccurrences(of: "\"", with: "'"))"}"#)
        }
    }
}

struct BenchIdentity: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "identity",
        abstract:
            "The price of identity: ms to mint a pack genesis and a pseudonym stamp at the floors; packs admitted out of those one "
            + "source offers."
    )

    @Option(help: "Stamps minted per kind; the mean and median are reported.") var samples = 20
    @Option(help: "Geneses one source offers a node.") var offered = 4_000

    func run() throws {
        guard samples > 0, offered > 0 else { throw ValidationError("all options must be positive") }
        print(Benchmarks.identity(samples: samples, offered: offered))
    }
}

struct BenchLan: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lan",
        abstract: "ms from start to first link through the LAN beacon: two nodes in two network namespaces on one veth link (root).")

    @Option(help: "Runs; each is reported, with the median and the slowest.") var runs = 5

    func run() async throws {
        guard runs > 0 else { throw ValidationError("--runs must be positive") }
        print(await Benchmarks.lan(runs: runs))
    }
}

struct BenchPlaces: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "places",
        abstract: "ms to summarise every place of a pack (averages, distribution, Bayesian average) from its review ops.")

    @Option(help: "Places in the pack.") var places = 1_000
    @Option(help: "Reviews over them (5 per reviewer).") var reviews = 10_000
    @Option(help: "Runs; the median and the slowest are reported.") var runs = 9

    func run() throws {
        guard places > 0, reviews > 0, runs > 0 else { throw ValidationError("all options must be positive") }
        print(Benchmarks.places(places: places, reviews: reviews, runs: runs))
    }
}

struct BenchNat: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nat",
        abstract:
            "Nodes behind the NAT testbed's routers (root; `scripts/testbed.sh nat-run` makes the testbed): ms to the first link through "
            + "each NAT kind, idle bytes/s per node."
    )

    @Option(help: "The testbed file `scripts/testbed.sh nat-up` prints.") var testbed: String
    @Option(help: "Idle window, seconds.") var idle = 60.0
    @Option(help: "Seconds allowed for each pair to link.") var linkTimeout = 30.0

    func run() async throws {
        guard idle > 0, linkTimeout > 0 else { throw ValidationError("--idle and --link-timeout must be positive") }
        print(await Benchmarks.nat(testbed: testbed, idle: idle, linkTimeout: linkTimeout))
    }
}

struct BenchProcs: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "procs",
        abstract:
            "N separate `skwad --json` processes: herd join, idle traffic, post latency timed from outside, extra bytes per post, RSS.")

    @Option(help: "Processes (nodes).") var nodes = 20
    @Option(help: "Idle window before the posts, seconds.") var idle = 15.0
    @Option(help: "Posts node 0 makes.") var posts = 20
    @Option(help: "Milliseconds between posts.") var gapMs = 1000
    @Option(help: "Bytes in each post's body.") var bodyBytes = 200
    @Option(help: "Seconds allowed for the herd join.") var herdTimeout = 60.0
    @Option(help: "Seconds allowed for every node to get the pack.") var packTimeout = 30.0
    @Option(help: "Seconds to wait after the last post for stragglers.") var settle = 5.0
    @Option(
        help: ArgumentHelp(
            "At the end, kill the last node (SIGKILL) and time until no node lists it as an active peer; "
                + "at most this many seconds (0: skip).")
    )
    var deadPeerTimeout = 30.0
    @Option(help: "Direct messages node 0 sends to the last node after the posts, timed like them (0: none).") var dms = 0
    @Option(help: "The skwad binary to start (default: skwad beside this one).") var binary: String?
    @Option(
        help:
            "A testbed file (scripts/testbed.sh writes it): one `NETNS ADDRESS` line per node; node i runs in NETNS and listens on ADDRESS."
    )
    var testbed: String?

    func run() async throws {
        guard nodes >= 2, posts >= 1, idle >= 0, gapMs >= 0, bodyBytes >= 1, dms >= 0 else {
            throw ValidationError("need at least 2 nodes and 1 post; times and sizes positive")
        }
        var hosts: [(netns: String, address: String)]? = nil
        if let testbed {
            let text = try String(contentsOfFile: testbed, encoding: .utf8)
            hosts = text.split(separator: "\n").compactMap { line in
                let w = line.split(separator: " ")
                return w.count == 2 ? (String(w[0]), String(w[1])) : nil
            }
            guard hosts!.count >= nodes else { throw ValidationError("the testbed has \(hosts!.count) nodes, fewer than \(nodes)") }
        }
        print(
            await Benchmarks.processes(
                nodes: nodes, idle: idle, posts: posts, gapMs: gapMs, bodyBytes: bodyBytes,
                herdTimeout: herdTimeout, packTimeout: packTimeout, settle: settle,
                deadPeerTimeout: deadPeerTimeout, binary: binary, hosts: hosts, dms: dms))
    }
}

struct BenchPictures: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pictures",
        abstract:
            "N `skwad --json` processes: ms until a picture (≈ 200 KB) posted on node 0 is whole on every node, and bytes sent per node "
            + "÷ picture size."
    )

    @Option(help: "Processes (nodes).") var nodes = 20
    @Option(help: "Pictures posted, one run each; the medians are reported.") var runs = 5
    @Option(help: "Picture width in pixels (a PNG of random RGB pixels).") var width = 256
    @Option(help: "Picture height in pixels (256 × 260 ≈ 200 KB).") var height = 260
    @Option(help: "Seconds allowed for the herd join.") var herdTimeout = 60.0
    @Option(help: "Seconds allowed for every node to get the pack.") var packTimeout = 30.0
    @Option(help: "Seconds allowed for a picture to reach every node.") var fetchTimeout = 60.0
    @Option(help: "Idle window measured before the pictures (its traffic is subtracted), seconds.") var idle = 5.0
    @Option(help: "Seconds between runs (each picture starts with rested per-peer budgets).") var gap = 2.0
    @Option(help: "The skwad binary to start (default: skwad beside this one).") var binary: String?

    func run() async throws {
        guard nodes >= 2, runs >= 1, width >= 1, height >= 1, idle > 0, gap >= 0 else {
            throw ValidationError("need at least 2 nodes, 1 run, a picture of at least 1 × 1 and a positive idle window")
        }
        print(
            await Benchmarks.pictures(
                nodes: nodes, runs: runs, width: width, height: height, herdTimeout: herdTimeout, packTimeout: packTimeout,
                fetchTimeout: fetchTimeout, idle: idle, gap: gap, binary: binary))
    }
}

struct BenchWeb: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "web",
        abstract:
            "The local web page in headless Chromium over WebDriver: ms from load to first feed; a post's ms from its commit on node A"
            + " to node C's page against C's REPL event (3 processes)."
    )

    @Option(help: "Page loads timed; the median is reported.") var loads = 9
    @Option(help: "Posts node A makes, each timed.") var posts = 20
    @Option(help: "Milliseconds between posts.") var gapMs = 500
    @Option(help: "Seconds allowed for the herd join.") var herdTimeout = 60.0
    @Option(help: "Seconds to wait after the last post for stragglers.") var settle = 10.0
    @Option(help: "The skwad binary to start (default: skwad beside this one).") var binary: String?

    func run() async throws {
        guard loads >= 1, posts >= 1, gapMs >= 0, herdTimeout > 0, settle > 0 else {
            throw ValidationError("need at least 1 load and 1 post; times positive")
        }
        print(await Benchmarks.web(loads: loads, posts: posts, gapMs: gapMs, herdTimeout: herdTimeout, settle: settle, binary: binary))
    }
}
