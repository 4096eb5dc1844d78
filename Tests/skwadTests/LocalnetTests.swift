import Foundation
import Testing
import SkwadTestKit

/// A `skwad` process driven through its stdin, its stdout collected as it comes.
final class OutputBuffer: @unchecked Sendable {
    private let lock = NSLock()
    private var text = ""
    func append(_ s: String) { lock.withLock { text += s } }
    var value: String { lock.withLock { text } }
}

final class RunningNode: @unchecked Sendable {
    let process: Process
    let stdin: FileHandle
    let output = OutputBuffer()

    init(binary: URL, args: [String]) throws {
        process = Process()
        process.executableURL = binary
        process.arguments = args
        let inPipe = Pipe(), outPipe = Pipe()
        process.standardInput = inPipe
        process.standardOutput = outPipe
        process.standardError = outPipe
        stdin = inPipe.fileHandleForWriting
        let out = output
        outPipe.fileHandleForReading.readabilityHandler = { h in
            let d = h.availableData
            if !d.isEmpty { out.append(String(decoding: d, as: UTF8.self)) }
        }
        try process.run()
    }

    func send(_ line: String) { stdin.write(Data((line + "\n").utf8)) }
    var text: String { output.value }

    /// Polls (sending `poll` each time, if given) until the output contains `needle`, at
    /// most `seconds`.
    func waitFor(_ needle: String, poll: String? = nil, seconds: Double = 30) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if text.contains(needle) { return true }
            if let poll { send(poll) }
            try? await Task.sleep(nanoseconds: 200_000_000)
        }
        return text.contains(needle)
    }

    /// The first line of output that starts with `prefix`, without the prefix.
    func line(startingWith prefix: String) -> String? {
        text.split(separator: "\n").first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }

    func stop() {
        try? stdin.close()
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}

/// Three nodes from configs/localnet (their locations and settings), on ports the OS picks:
/// `a` listens first; `b` and `c` join through it (and `c` through `b` too). Each node's
/// data lives in a fresh temporary directory, removed afterwards.
final class Localnet: @unchecked Sendable {
    let dir: String
    var nodes: [String: RunningNode] = [:]
    let bin: URL
    let root: URL

    init() throws {
        bin = try #require(BinaryTests.binary, "build the skwad executable first (scripts/test.sh does)")
        root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-localnet-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    /// The localnet config of `name` with its fixed listen port and peers taken out.
    func config(_ name: String) throws -> String {
        let text = try String(contentsOf: root.appendingPathComponent("configs/localnet/\(name).toml"), encoding: .utf8)
        let kept = text.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("listen") && !$0.hasPrefix("peers") && !$0.hasPrefix("data_dir") }
        let path = "\(dir)/\(name).toml"
        try (kept.joined(separator: "\n") + "\nlisten = \"127.0.0.1:0\"\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Starts node `name` joining through `peers`; returns its address (from `whoami`).
    @discardableResult
    func start(_ name: String, peers: [String]) async throws -> String {
        var args = ["--config", try config(name), "--data", "\(dir)/\(name)", "--verbose"]  // "* peer joined" lines
        for p in peers { args += ["--peer", p] }
        let node = try RunningNode(binary: bin, args: args)
        nodes[name] = node
        #expect(await node.waitFor("listening on 127.0.0.1:", poll: "whoami", seconds: 30))
        return try #require(node.line(startingWith: "listening on "))
    }

    subscript(_ name: String) -> RunningNode { nodes[name]! }

    /// The usual three: `a`, `b` peered with `a`, `c` with both; true once each has a link.
    func startThree() async throws -> Bool {
        let a = try await start("a", peers: [])
        let b = try await start("b", peers: [a])
        try await start("c", peers: [a, b])
        var linked = true
        for n in ["a", "b", "c"] {
            if await !self[n].waitFor("* peer joined") { linked = false }
        }
        return linked
    }

    /// `a` creates pack `name` (radius 1 km); true once `b` and `c` list it too.
    func packOnAll(_ name: String) async -> Bool {
        self["a"].send("create \(name) --radius 1000")
        guard await self["a"].waitFor("created pack \(name)") else { return false }
        for n in ["b", "c"] where await !self[n].waitFor(name, poll: "packs", seconds: 30) { return false }
        return true
    }

    func stop() {
        for n in nodes.values { n.send("quit") }
        for n in nodes.values { n.stop() }
        try? FileManager.default.removeItem(atPath: dir)
    }
}

@Suite(.serialized) struct LocalnetTests {
    @Test func aPostOnOneLocalnetNodeAppearsOnTheOtherTwo() async throws {
        let net = try Localnet()
        defer { net.stop() }
        #expect(try await net.startThree())
        net["a"].send("create Quad --radius 1000 --tags campus")
        #expect(await net["a"].waitFor("created pack Quad"))
        net["a"].send(#"post Quad "Free pizza" "Gates 4th floor""#)
        #expect(await net["a"].waitFor("posted "))
        #expect(await net["b"].waitFor("Free pizza", poll: "feed Quad"))
        #expect(await net["c"].waitFor("Free pizza", poll: "feed Quad"))
    }

    /// Issue: "a pack created 2 s after start, joined by the others by id prefix" failed in
    /// 3 of 6 runs. Ten runs in a row, each with three fresh processes: all join, all see the post.
    @Test func aPackCreatedTwoSecondsAfterStartIsJoinedByIdPrefixTenTimesInARow() async throws {
        var joined = 0, sawPost = 0
        for run in 0..<10 {
            let net = try Localnet()
            defer { net.stop() }
            let a = try await net.start("a", peers: [])
            let b = try await net.start("b", peers: [a])
            try await net.start("c", peers: [a, b])
            try await Task.sleep(nanoseconds: 2_000_000_000)
            net["a"].send("create Meet\(run)")
            #expect(await net["a"].waitFor("created pack Meet\(run) "))
            let created = try #require(net["a"].line(startingWith: "created pack Meet\(run) "))
            let prefix = String(created.prefix(6))
            for n in ["b", "c"] { net[n].send("join \(prefix)") }
            for n in ["b", "c"] { if await net[n].waitFor("joined Meet\(run)", seconds: 30) { joined += 1 } }
            net["a"].send(#"post Meet\#(run) "Run \#(run)" "hello""#)
            for n in ["b", "c"] { if await net[n].waitFor("Run \(run)", poll: "feed", seconds: 30) { sawPost += 1 } }
        }
        #expect(joined == 20)
        #expect(sawPost == 20)
    }

    /// A node started after 20 packs were created lists them all (its directory: unfenced
    /// packs and packs whose fence it is near) within 5 s of its first link.
    @Test func aNodeStartedLateListsEveryPackAroundIt() async throws {
        let net = try Localnet()
        defer { net.stop() }
        let a = try await net.start("a", peers: [])
        try await net.start("b", peers: [a])
        #expect(await net["b"].waitFor("* peer joined"))
        for i in 0..<10 { net["a"].send("create Open\(i)") }
        for i in 0..<10 { net["a"].send("create Fenced\(i) --radius 1500") }
        #expect(await net["a"].waitFor("created pack Fenced9 "))
        try await net.start("c", peers: [a])
        #expect(await net["c"].waitFor("* peer joined", seconds: 30))
        let linked = Date()
        var listed = false
        while Date().timeIntervalSince(linked) < 5 {
            net["c"].send("packs")
            try await Task.sleep(nanoseconds: 200_000_000)
            let text = net["c"].text
            if (0..<10).allSatisfy({ text.contains("Open\($0) ") && text.contains("Fenced\($0) ") }) { listed = true; break }
        }
        #expect(listed, "c listed: \(net["c"].text.suffix(2000))")
    }
}
