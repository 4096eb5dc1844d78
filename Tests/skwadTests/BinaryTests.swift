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
        DispatchQueue.global().async { errData = stderr.fileHandleForReading.readDataToEndOfFile(); errDone.signal() }
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
        let first = try Self.run(["--data", dir], input: script)
        #expect(first.status == 0)
        let lines = first.out.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("created pack Quad ") && $0.contains("radius 800 m, locked") })
        #expect(lines.contains { $0.hasPrefix("posted ") })
        #expect(lines.contains("error: unknown command 'bogus'; type help"))
        #expect(lines.contains { $0.contains("Quad") && $0.contains("Free pizza") && $0.contains("(0 comments)") })
        #expect(!first.out.contains("\u{1B}["))   // no terminal decorations when piped
        #expect(lines.last == "bye")

        let second = try Self.run(["--data", dir], input: "feed\nden\n")
        #expect(second.status == 0)
        #expect(second.out.contains("Free pizza"))
        #expect(second.out.contains("your packs (Alpha): Quad"))
    }

    @Test func jsonModeAnswersEveryLineWithOneObject() throws {
        let dir = tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let script = "create Q\npost Q \"t\" \"b\"\nfeed\nup nothex\n\nhelp feed\n"
        let r = try Self.run(["--data", dir, "--json"], input: script)
        #expect(r.status == 0)
        let objects = try r.out.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        #expect(objects.count == 5)   // the blank line gets no reply
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

@Suite struct BinaryConfigTests {
    /// `skwad config` prints the documented default; a copy of it, edited, runs a node.
    @Test func printedDefaultConfigRunsANode() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-bin-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let printed = try BinaryTests.run(["config"], input: "")
        #expect(printed.status == 0 && printed.out.contains("pow_bits = 16") && printed.out.contains("[limits]"))
        let cfg = dir + "/node.toml"
        let edited = printed.out.replacingOccurrences(of: "pow_bits = 16", with: "pow_bits = 4")
            .replacingOccurrences(of: "# data_dir = \"~/.skwad\"", with: "data_dir = \"data\"")
        try edited.write(toFile: cfg, atomically: true, encoding: .utf8)
        #expect(try BinaryTests.run(["config", "--check", cfg], input: "").out == "ok\n")

        let r = try BinaryTests.run(["--config", cfg, "--location", "40.4433,-79.9436", "--json"], input: "whoami\ncreate Q --radius 500\n")
        #expect(r.status == 0)
        let objects = try r.out.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(objects.count == 2)
        #expect(objects[0]?["dataDir"] as? String == dir + "/data")   // relative to the config file
        #expect(objects[0]?["location"] as? String == "40.4433,-79.9436")
        #expect(((objects[1]?["pack"] as? [String: Any])?["radius"] as? Double) == 500)
        #expect(FileManager.default.fileExists(atPath: dir + "/data/skwad.sqlite"))

        try "pow_bits = 99\n".write(toFile: cfg, atomically: true, encoding: .utf8)
        let bad = try BinaryTests.run(["config", "--check", cfg], input: "")
        #expect(bad.status != 0 && bad.err.hasPrefix("skwad: config: key 'pow_bits' (line 1): expected an integer 0...28"))
    }
}

@Suite struct BinaryCrashTests {
    /// DESIGN §7: what the REPL reported as posted survives `kill -9`.
    @Test func reportedPostsSurviveKillDashNine() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-bin-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let bin = try #require(BinaryTests.binary, "build the skwad executable first")
        let p = Process()
        p.executableURL = bin
        p.arguments = ["--data", dir]
        let stdin = Pipe(), stdout = Pipe()
        p.standardInput = stdin; p.standardOutput = stdout; p.standardError = FileHandle.nullDevice
        try p.run()
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        // A watchdog ends a hung child, which ends the blocking reads below.
        let pid = p.processIdentifier
        let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: watchdog)
        defer { watchdog.cancel() }
        stdin.fileHandleForWriting.write(Data("create Q\npost Q \"kept\" \"after a crash\"\n".utf8))
        // Read until the REPL reports the post, then kill it without warning.
        var seen = ""
        while !seen.contains("posted ") {
            let chunk = stdout.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen += String(decoding: chunk, as: UTF8.self)
        }
        #expect(seen.contains("posted "))
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        #expect(p.terminationReason == .uncaughtSignal)

        let again = try BinaryTests.run(["--data", dir], input: "feed\n")
        #expect(again.status == 0 && again.out.contains("kept"))
    }
}

/// `skwad simulate` as a user runs it: two separate processes (each with its own hash
/// seed) given the same seed write the same bytes; the summary line is on stderr.
@Suite struct SimulateBinaryTests {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func twoProcessesOneSeedSameBytes() throws {
        let scenario = Self.repo.appendingPathComponent("simulations/churn.toml").path
        let dirs = (0..<2).map { _ in FileManager.default.temporaryDirectory.appendingPathComponent("skwad-sim-\(UUID().uuidString)").path }
        defer { dirs.forEach { try? FileManager.default.removeItem(atPath: $0) } }
        let runs = try dirs.map { dir in
            try BinaryTests.run(["simulate", scenario, "--seed", "9", "--nodes", "60", "--quiet", "--out", dir,
                                 "--set", "strategy.strategies=[\"skwad\", \"push-pull\"]", "--set", "duration_ms=20000",
                                 "--set", "churn.end_ms=15000", "--set", "workload.end_ms=12000"], input: "", seconds: 120)
        }
        for r in runs { #expect(r.status == 0, "\(r.err)") }
        #expect(runs[0].out == runs[1].out)
        #expect(runs[0].out.contains("\"strategy\" : \"skwad\""))
        #expect(runs[0].err.contains("60 nodes") && runs[0].err.contains("events/s"))
        let csv = try dirs.map { try String(contentsOfFile: $0 + "/churn.csv", encoding: .utf8) }
        #expect(csv[0] == csv[1] && csv[0].hasPrefix("strategy,time_ms"))
        let svg = try String(contentsOfFile: dirs[0] + "/churn.svg", encoding: .utf8)
        #expect(svg.contains("<svg") && svg.contains("skwad") && svg.contains("push-pull"))
    }

    @Test func aBadScenarioIsOneClearLine() throws {
        let r = try BinaryTests.run(["simulate", Self.repo.appendingPathComponent("simulations/churn.toml").path,
                                     "--set", "strategy.strategies=[\"gossip-magic\"]"], input: "")
        #expect(r.status != 0)
        let lines = r.err.split(separator: "\n").filter { !$0.isEmpty }
        #expect(lines.count == 1 && lines[0].contains("gossip-magic"))
    }
}
