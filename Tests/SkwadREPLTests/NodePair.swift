import Foundation
import SkwadModel
import SkwadNode
@testable import SkwadREPL
import SkwadTestKit

/// Two nodes at one place gossiping over the in-memory datagram network (no sockets): how
/// text from the network reaches a REPL in these tests. Waits are bounded (`eventually`).
final class NodePair: @unchecked Sendable {
    static let here = try! GeoPoint(lat: 40.4433, lon: -79.9436)
    /// A fence around `here`: the packs of these tests reach both nodes without joining.
    static let radius = 2000.0
    let memory = MemoryDatagramNetwork()
    let dirs: [String]
    let a: Node, b: Node

    init(_ name: String) async throws {
        let dirA = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-\(name)-\(UUID().uuidString)").path
        dirs = [dirA, dirA + "-b"]
        func node(_ dir: String) throws -> Node {
            var c = NodeConfig(dataDir: dir)
            c.location = Self.here
            return try Node(config: c)
        }
        a = try node(dirs[0]); b = try node(dirs[1])
        let seed = try await a.goOnline(over: memory.binder, listen: "127.0.0.1:0", peers: [])
        try await b.goOnline(over: memory.binder, listen: "127.0.0.1:0", peers: [seed])
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

    /// `a` creates pack `name` (around `here`); true once `b` lists it.
    func packOnBoth(_ name: String) async throws -> Bool {
        _ = try await a.createPack(name: name, radiusMeters: Self.radius, locked: false, tags: [], color: "")
        return await eventually { await b.packs().contains { $0.pack.name == name } }
    }

    /// A REPL over `node`, reading no terminal.
    static func repl(_ node: Node, mode: Renderer.Mode = .plain) -> REPL {
        REPL(executor: Executor(node: node), reader: LineReader(interactive: false, historyPath: nil), mode: mode)
    }

    /// What the REPL prints for one line.
    static func run(_ r: REPL, _ line: String) async -> String { await r.handle(line, nowMs: wallClockMs()).output ?? "" }

    func shutdown() async {
        await a.close(); await b.close()
        for d in dirs { try? FileManager.default.removeItem(atPath: d) }
    }

    /// A test that failed before `shutdown` (a thrown `#require`) leaves no directory behind.
    deinit { for d in dirs { try? FileManager.default.removeItem(atPath: d) } }
}

extension MemoryDatagramNetwork {
    /// A node's binder for this network.
    var binder: DatagramBinder { DatagramBinder { [self] host, port in try self.bind(host: host, port: port) } }
}
