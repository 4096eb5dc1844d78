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

    func stop() {
        try? stdin.close()
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}

@Suite struct LocalnetTests {
    @Test func aPostOnOneLocalnetNodeAppearsOnTheOtherTwo() async throws {
        let bin = try #require(BinaryTests.binary, "build the skwad executable first (scripts/test.sh does)")
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-localnet-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        let nodes = try ["a", "b", "c"].map { n in
            try RunningNode(binary: bin, args: ["--config", root.appendingPathComponent("configs/localnet/\(n).toml").path, "--data", "\(tmp)/\(n)"])
        }
        defer { nodes.forEach { $0.stop() } }
        func waitFor(_ node: RunningNode, _ needle: String, poll: String? = nil, seconds: Double = 30) async -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if node.text.contains(needle) { return true }
                if let poll { node.send(poll) }
                try? await Task.sleep(nanoseconds: 300_000_000)
            }
            return node.text.contains(needle)
        }
        // They find each other through the peers lists in configs/localnet.
        for n in nodes { #expect(await waitFor(n, "* peer joined")) }
        nodes[0].send("create Quad --radius 1000 --tags campus")
        #expect(await waitFor(nodes[0], "created pack Quad"))
        nodes[0].send(#"post Quad "Free pizza" "Gates 4th floor""#)
        #expect(await waitFor(nodes[0], "posted "))
        #expect(await waitFor(nodes[1], "Free pizza", poll: "feed Quad"))
        #expect(await waitFor(nodes[2], "Free pizza", poll: "feed Quad"))
        for n in nodes { n.send("quit") }
        for n in nodes { #expect(await waitFor(n, "bye", seconds: 10)) }
    }
}
