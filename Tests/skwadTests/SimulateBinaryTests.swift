import Foundation
import Testing

/// `skwad simulate` as a user runs it: two separate processes (each with its own hash
/// seed) given the same seed write the same bytes; the summary line is on stderr.
@Suite struct SimulateBinaryTests {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func twoProcessesOneSeedSameBytes() throws {
        let scenario = Self.repo.appendingPathComponent("simulations/churn.toml").path
        let dirs = (0..<2).map { _ in FileManager.default.temporaryDirectory.appendingPathComponent("skwad-sim-\(UUID().uuidString)").path }
        defer { dirs.forEach { try? FileManager.default.removeItem(atPath: $0) } }
        let runs = try dirs.map { dir in
            try BinaryTests.run(
                [
                    "simulate", scenario, "--seed", "9", "--nodes", "60", "--quiet", "--out", dir,
                    "--set", "strategy.strategies=[\"skwad\", \"push-pull\"]", "--set", "duration_ms=20000",
                    "--set", "churn.end_ms=15000", "--set", "workload.end_ms=12000"
                ], input: "", seconds: 120)
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
        let r = try BinaryTests.run(
            [
                "simulate", Self.repo.appendingPathComponent("simulations/churn.toml").path,
                "--set", "strategy.strategies=[\"gossip-magic\"]"
            ], input: "")
        #expect(r.status != 0)
        let lines = r.err.split(separator: "\n").filter { !$0.isEmpty }
        #expect(lines.count == 1 && lines[0].contains("gossip-magic"))
    }
}
