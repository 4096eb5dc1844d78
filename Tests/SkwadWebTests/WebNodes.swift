import Foundation
import SkwadModel
import SkwadNode
import SkwadREPL
import SkwadTestKit
import SkwadWeb

/// Node A with its web page on 127.0.0.1 (a port the OS picks), and optionally node B at the
/// same place, gossiping with A over the in-memory datagram network (with `pageOnB`, B's page
/// too). `shutdown` stops the
/// page, closes the nodes and removes their directories; every wait is bounded.
final class WebNodes: @unchecked Sendable {
    static let here = try! GeoPoint(lat: 40.4433, lon: -79.9436)
    static let radius = 2000.0
    let memory = MemoryDatagramNetwork()
    let dirs: [String]
    let a: Node
    let b: Node?
    let server: WebServer
    let serverB: WebServer?
    var client: RawClient { RawClient(port: server.port, token: server.token) }
    var clientB: RawClient? { serverB.map { RawClient(port: $0.port, token: $0.token) } }

    init(_ name: String, second: Bool = false, pageOnB: Bool = false) async throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-web-\(name)-\(UUID().uuidString)").path
        dirs = second ? [base, base + "-b"] : [base]
        func node(_ dir: String) throws -> Node {
            var c = NodeConfig(dataDir: dir)
            c.location = Self.here
            return try Node(config: c)
        }
        a = try node(dirs[0])
        b = second ? try node(dirs[1]) : nil
        let seed = try await a.goOnline(over: memory.binder, listen: "127.0.0.1:0", peers: [])
        if let b { try await b.goOnline(over: memory.binder, listen: "127.0.0.1:0", peers: [seed]) }
        server = try await WebServer.start(executor: Executor(node: a))
        await a.setEventSink { [server] in server.events.publish($0) }
        if pageOnB, let b {
            let web = try await WebServer.start(executor: Executor(node: b))
            await b.setEventSink { web.events.publish($0) }
            serverB = web
        } else {
            serverB = nil
        }
    }

    /// Polls `condition` every 20 ms for at most `seconds` (generous: CI runs every suite at
    /// once on 2 cores; passing runs take milliseconds).
    func eventually(seconds: Double = 60, _ condition: () async throws -> Bool) async rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try await condition() { return true }
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
        return try await condition()
    }

    func shutdown() async {
        await server.stop()
        await serverB?.stop()
        await a.setEventSink(nil)
        await b?.setEventSink(nil)
        await a.close()
        await b?.close()
        for d in dirs { try? FileManager.default.removeItem(atPath: d) }
    }
}

extension MemoryDatagramNetwork {
    var binder: DatagramBinder { DatagramBinder { [self] host, port in try self.bind(host: host, port: port) } }
}
