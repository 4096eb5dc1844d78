import Foundation
import Testing

@Suite struct BinaryCrashTests {
    /// DESIGN §7: what the REPL reported as posted survives `kill -9`.
    @Test func reportedPostsSurviveKillDashNine() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-bin-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let bin = try #require(BinaryTests.binary, "build the skwad executable first")
        let p = Process()
        p.executableURL = bin
        p.arguments = ["--data", dir, "--offline"]
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

        let again = try BinaryTests.run(["--data", dir, "--offline"], input: "feed\n")
        #expect(again.status == 0 && again.out.contains("kept"))
    }
}
