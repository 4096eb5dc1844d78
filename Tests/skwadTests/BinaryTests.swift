import Foundation
import Testing

/// Drives the real `skwad` executable through piped stdin, as a script would.
@Suite struct BinaryTests {
    /// The built executable, next to the test bundle in the build directory.
    static var binary: URL? {
        var dir = Bundle.main.bundleURL
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("skwad")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return nil
    }

    /// Runs the binary with `input` on stdin; a watchdog kills it after `seconds` (then the
    /// test fails on the exit status), so a hang can never block the test run.
    static func run(_ args: [String], input: String, seconds: Double = 60) throws -> (out: String, err: String, status: Int32) {
        let bin = try #require(binary, "build the skwad executable first (scripts/test.sh does)")
        let p = Process()
        p.executableURL = bin
        p.arguments = args
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        p.standardInput = stdin; p.standardOutput = stdout; p.standardError = stderr
        try p.run()
        let watchdog = DispatchWorkItem { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: watchdog)
        defer { watchdog.cancel() }
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        // Read stderr on another thread so that neither pipe can fill up and stall the child.
        nonisolated(unsafe) var errData = Data()
        let errDone = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            errData = stderr.fileHandleForReading.readDataToEndOfFile(); errDone.signal()
        }
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        errDone.wait()
        p.waitUntilExit()
        return (String(decoding: out, as: UTF8.self), String(decoding: errData, as: UTF8.self), p.terminationStatus)
    }

    func tempDir() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("skwad-bin-\(UUID().uuidString)").path
    }

    @Test func plainSessionThenRestartKeepsEverything() throws {
        let dir = tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let script = """
            locate 40.4433,-79.9436
            create Quad --radius 800 --locked --tags campus
            post Quad "Free pizza" "Gates 4th floor"
            bogus
            feed
            quit
            """
        let first = try Self.run(["--data", dir, "--offline"], input: script)
        #expect(first.status == 0)
        let lines = first.out.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("created pack Quad ") && $0.contains("radius 800 m, locked") })
        #expect(lines.contains { $0.hasPrefix("posted ") })
        #expect(lines.contains("error: unknown command 'bogus'; type help"))
        #expect(lines.contains { $0.contains("Quad") && $0.contains("Free pizza") && $0.contains("(0 comments)") })
        #expect(!first.out.contains("\u{1B}["))  // no terminal decorations when piped
        #expect(lines.last == "bye")

        let second = try Self.run(["--data", dir, "--offline"], input: "feed\nden\n")
        #expect(second.status == 0)
        #expect(second.out.contains("Free pizza"))
        #expect(second.out.contains("your packs (Alpha): Quad"))
    }

    @Test func jsonModeAnswersEveryLineWithOneObject() throws {
        let dir = tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let script = "create Q\npost Q \"t\" \"b\"\nfeed\nup nothex\n\nhelp feed\n"
        let r = try Self.run(["--data", dir, "--json", "--offline"], input: script)
        #expect(r.status == 0)
        let objects = try r.out.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        #expect(objects.count == 5)  // the blank line gets no reply
        #expect(objects.map { $0["ok"] as? Bool } == [true, true, true, false, true])
        #expect((objects[0]["id"] as? String)?.count == 64)
        #expect(((objects[2]["posts"] as? [[String: Any]])?.first?["title"] as? String) == "t")
    }

    @Test func badConfigIsAOneLineErrorAndNonZeroExit() throws {
        let dir = tempDir()
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let cfg = dir + "/bad.toml"
        try "colour = \"red\"\n".write(toFile: cfg, atomically: true, encoding: .utf8)
        let r = try Self.run(["--data", dir, "--config", cfg], input: "quit\n")
        #expect(r.status != 0)
        #expect(r.err.hasPrefix("skwad: config: key 'colour' (line 1): unknown key"))
        #expect(r.err.split(separator: "\n").count == 1)
    }
}
