import Foundation
import SkwadModel
@testable import SkwadNode
import SkwadTestKit

/// Nodes gossiping over an in-memory datagram network (`MemoryDatagramNetwork`: loopback
/// addresses, no sockets): the node's path for ops between nodes, with its engine, store and
/// transport seam, minus the kernel. Each node stands at `here` (so packs with a fence around
/// it reach every node without joining); the first node online is the seed. Every wait is
/// bounded in time (`eventually`, polling every 20 ms). Real UDP is tested in
/// UDPTransportTests, NetworkTests and the binary tests.
final class TestNet: @unchecked Sendable {
    static let here = try! GeoPoint(lat: 40.4433, lon: -79.9436)
    /// A fence around `here` for test packs.
    static let radius = 2000.0

    let memory = MemoryDatagramNetwork()
    let clock: RunningClock
    private(set) var dirs: [String] = []
    private(set) var nodes: [Node] = []
    private(set) var addresses: [String] = []

    init(clock: RunningClock = RunningClock()) { self.clock = clock }

    /// The configuration of a node of this network in `dir`.
    func config(_ dir: String) -> NodeConfig {
        var c = testConfig(dir)
        c.location = Self.here
        return c
    }

    /// Opens a node on `dir` (a new directory when nil) with `clock` (this network's when
    /// nil), brings it online and joins it through the first node online.
    @discardableResult
    func add(dir: String? = nil, config: ((inout NodeConfig) -> Void)? = nil, now: (@Sendable () -> UInt64)? = nil) async throws -> Node {
        let d = dir ?? tempDataDir()
        if !dirs.contains(d) { dirs.append(d) }
        var c = self.config(d)
        config?(&c)
        let clock = clock
        let node = try Node(config: c, now: now ?? { clock.now })
        var seed: [String] = []
        for (n, a) in zip(nodes, addresses) where await n.listenAddress != nil { seed = [a]; break }
        let address = try await node.goOnline(over: memory.binder, listen: "127.0.0.1:0", peers: seed)
        nodes.append(node); addresses.append(address)
        return node
    }

    /// Waits until every online node has an active link.
    func linked(seconds: Double = patience) async -> Bool {
        await eventually(seconds: seconds, every: 0.02) {
            for n in nodes where await n.listenAddress != nil {
                if await !n.peerSummaries().contains(where: { $0.state == "active" }) { return false }
            }
            return true
        }
    }

    /// Waits until every online node holds every op any online node holds.
    func synced(seconds: Double = patience) async -> Bool {
        await eventually(seconds: seconds, every: 0.02) {
            var sets: [Set<OpID>] = []
            for n in nodes where await n.listenAddress != nil { sets.append(await Set(n.replica.allOps.map(\.id))) }
            return sets.allSatisfy { $0 == sets.first }
        }
    }

    /// A hostile wire peer on this network, aimed at node `i`.
    func wirePeer(to i: Int, seed: UInt64) throws -> TransportWirePeer {
        TransportWirePeer(transport: try memory.bind(), target: addresses[i], seed: seed)
    }

    /// Closes every node; removes the directories unless `keepData` (then the test reopens
    /// them offline and removes them itself: `removeData`).
    func shutdown(keepData: Bool = false) async {
        for n in nodes { await n.close() }
        if !keepData { removeData() }
    }

    func removeData() { for d in dirs { try? FileManager.default.removeItem(atPath: d) } }

    /// A test that failed before `shutdown` (a thrown `#require`) leaves no directory behind.
    deinit { removeData() }
}

/// How long a test waits for something that should happen between nodes. Passing runs
/// take milliseconds; the bound is generous because CI runs every suite at once on 2 cores,
/// where an actor can wait seconds for a thread (a 10 s bound once failed there).
let patience: Double = 60

/// Polls `condition` every `every` seconds for at most `seconds`.
func eventually(seconds: Double = patience, every: Double = 0.02, _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try await condition() { return true }
        try? await Task.sleep(nanoseconds: UInt64(every * 1e9))
    }
    return try await condition()
}

/// Does `node` hold every op of `ids`?
func holds(_ node: Node, _ ids: [OpID]) async -> Bool {
    let r = await node.replica
    return ids.allSatisfy { r.contains($0) }
}

extension MemoryDatagramNetwork {
    /// The node's binder for this network.
    var binder: DatagramBinder { DatagramBinder { [self] host, port in try self.bind(host: host, port: port) } }
}
