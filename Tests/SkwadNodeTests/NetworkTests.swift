import Foundation
import NIOPosix
import Testing
import SkwadGossip
import SkwadModel
import SkwadReplica
@testable import SkwadNode
import SkwadTestKit

@Suite(.serialized) struct NetworkTests {
    static let here = try! GeoPoint(lat: 40.4433, lon: -79.9436)

    func makeNode(_ dir: String) throws -> Node {
        var c = NodeConfig(dataDir: dir)
        c.powBits = 4
        c.location = Self.here
        return try Node(config: c)
    }

    /// SwiftNIO closes a datagram socket when a send fails with EPERM (a firewall drop) or
    /// ENETUNREACH (the network went away); before, the node then went deaf for good.
    @Test func aSocketClosedUnderTheNodeIsBoundAgainAndGossipGoesOn() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let dirs = (0..<2).map { _ in
            FileManager.default.temporaryDirectory.appendingPathComponent("skwad-rebind-\(UUID().uuidString)").path
        }
        defer { dirs.forEach { try? FileManager.default.removeItem(atPath: $0) } }
        let a = try makeNode(dirs[0]), b = try makeNode(dirs[1])
        let seed = try await a.goOnline(group: group, listen: "127.0.0.1:0", peers: [])
        try await b.goOnline(group: group, listen: "127.0.0.1:0", peers: [seed])
        #expect(await eventually() { await !a.peerSummaries().filter { $0.state == "active" }.isEmpty })
        let pack = try await a.createPack(name: "Quad", radiusMeters: 2000, locked: false, tags: [], color: "")
        #expect(await eventually() { await b.packs().contains { $0.pack.id == pack.id } })
        _ = try await b.join(pack.id.hex)

        await a.currentTransport?.close()  // what NIO does after such a send error
        #expect(await eventually() { await a.networkStats().contains { $0 == ("transport.rebinds", 1) } })
        #expect(await a.listenAddress == seed)
        let post = try await b.post(pack: pack.id.hex, title: "after the rebind", body: "b", tags: [])
        #expect(await eventually() { (try? await a.show(post.hex)) != nil })
        await a.goOffline(); await b.goOffline()
        try await group.shutdownGracefully()
    }

    /// Issue 47, finding 1: a send that fails for one destination is counted and dropped; the
    /// socket stays bound (before, SwiftNIO closed it and the node rebound, and a process
    /// looping on `bind` took the port meanwhile). A member introduces a broadcast address
    /// (refused before any send), a host a loopback socket cannot reach, and an IPv6 host to
    /// this IPv4 socket (both fail in `sendto`).
    @Test func aSendErrorAPeerCausesNeitherClosesNorRebindsTheSocket() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-senderr-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let a = try makeNode(dir)
        let bound = try await a.goOnline(group: group, listen: "127.0.0.1:0", peers: [])
        let port = try #require(UDPWirePeer.port(of: bound))
        let member = try UDPWirePeer(targetPort: port, seed: 11)
        try await member.handshake()
        member.send(WireForge.join(cell: "dppn59z"))
        #expect(await eventually { await a.peerSummaries().contains { $0.state == "active" } })
        func stat(_ name: String) async -> Int { await a.networkStats().first { $0.0 == name }?.1 ?? 0 }
        func sendFailures() async -> Int {
            await a.networkStats().filter { $0.0.hasPrefix("transport.send_failed.") }.reduce(0) { $0 + $1.1 }
        }
        for target in ["255.255.255.255:100", "192.0.2.1:100", "[::1]:100"] {
            member.send(WireForge.introduce(peer: target, padding: 256))
        }
        #expect(
            await eventually {
                let refused = await stat("drop.notUnicast"), failed = await sendFailures()
                return refused == 1 && failed >= 2
            })
        // Still bound where it was, never rebound, and serving: a new peer's handshake is answered.
        let other = try UDPWirePeer(targetPort: port, seed: 12)
        try await other.handshake()
        #expect(await stat("transport.rebinds") == 0)
        #expect(await a.listenAddress == bound)
        let held = try #require(UDPTransport.socketAddress(canonical: PeerAddress(bound)))
        await #expect(throws: (any Error).self) { _ = try await DatagramBinder.udp(group: group).bind("127.0.0.1", held.port ?? 0) }
        await a.goOffline()
        try await group.shutdownGracefully()
    }

    /// Over the in-memory network (the node's logic; UDP is the first test's).
    @Test func fiveNodesConvergeAndARestartedNodeCatchesUp() async throws {
        let memory = MemoryDatagramNetwork()
        let dirs = (0..<5).map { _ in FileManager.default.temporaryDirectory.appendingPathComponent("skwad-net-\(UUID().uuidString)").path }
        defer { dirs.forEach { try? FileManager.default.removeItem(atPath: $0) } }
        var nodes = try dirs.map(makeNode)
        let seed = try await nodes[0].goOnline(over: memory.binder, listen: "127.0.0.1:0", peers: [])
        for n in nodes.dropFirst() { try await n.goOnline(over: memory.binder, listen: "127.0.0.1:0", peers: [seed]) }
        #expect(await eventually { await nodes.asyncAllSatisfy { await !$0.peerSummaries().filter { $0.state == "active" }.isEmpty } })

        let pack = try await nodes[0].createPack(name: "Quad", radiusMeters: 2000, locked: false, tags: ["campus"], color: "")
        #expect(await eventually { await nodes.asyncAllSatisfy { await $0.packs().contains { $0.pack.id == pack.id } } })
        var posts: [OpID] = []
        for (i, n) in nodes.enumerated() {
            posts.append(try await n.post(pack: pack.id.hex, title: "hello from \(i)", body: "b", tags: []))
        }
        #expect(
            await eventually { await nodes.asyncAllSatisfy { (try? await $0.feed(pack: pack.id.hex, sort: .new, limit: 50).count) == 5 } })
        for (i, n) in nodes.enumerated() {
            _ = try await n.comment(on: posts[(i + 1) % 5].hex, text: "reply \(i)")
            _ = try await n.vote(on: posts[(i + 2) % 5].hex, value: i % 2 == 0 ? 1 : -1)
        }
        func snapshot(_ n: Node) async -> [PostView] { (try? await n.feed(pack: pack.id.hex, sort: .top, limit: 50)) ?? [] }
        #expect(
            await eventually {
                let first = await snapshot(nodes[0])
                guard first.reduce(0, { $0 + $1.commentCount }) == 5 else { return false }
                for n in nodes where await snapshot(n) != first { return false }
                return true
            })
        let threads = try await nodes.asyncMap { try await $0.show(posts[0].hex) }
        #expect(threads.allSatisfy { $0 == threads[0] })

        // Node 4 stops; the others keep posting; node 4 restarts on its data and catches up.
        await nodes[4].close()
        for (i, n) in nodes.prefix(4).enumerated() {
            _ = try await n.post(pack: pack.id.hex, title: "while away \(i)", body: "b", tags: [])
        }
        nodes[4] = try makeNode(dirs[4])
        #expect(try await nodes[4].feed(pack: pack.id.hex, sort: .new, limit: 50).count == 5)  // restored from its store
        try await nodes[4].goOnline(over: memory.binder, listen: "127.0.0.1:0", peers: [seed])
        // Every node, the restarted one included, ends with the same 9 posts (a post made
        // while node 4 was away may still be on its way to node 0 when node 4 has it).
        #expect(
            await eventually {
                let first = await snapshot(nodes[0])
                guard first.count == 9 else { return false }
                for n in nodes where await snapshot(n) != first { return false }
                return true
            })
        for n in nodes { await n.goOffline() }
    }
}

extension Array where Element: Sendable {
    func asyncAllSatisfy(_ p: (Element) async throws -> Bool) async rethrows -> Bool {
        for e in self where !(try await p(e)) { return false }
        return true
    }
    func asyncMap<T>(_ f: (Element) async throws -> T) async rethrows -> [T] {
        var out: [T] = []
        for e in self { out.append(try await f(e)) }
        return out
    }
}
