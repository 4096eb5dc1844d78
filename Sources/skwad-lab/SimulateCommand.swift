import ArgumentParser
import Foundation
import SkwadSim

/// `skwad simulate FILE`: runs a scenario of simulations/*.toml, prints the JSON summary on
/// stdout and its wall time and simulated events per second on stderr; with `--out DIR`
/// also writes the report, the CSV time series and the SVG coverage plot there.
struct Simulate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a deterministic simulation scenario (simulations/*.toml) and print its JSON summary.")

    @Argument(help: "The scenario file (TOML).") var file: String
    @Option(help: "Random seed; the same seed gives the same report, byte for byte.") var seed: UInt64 = 1
    @Option(help: "Directory for <name>.json, <name>.csv and <name>.svg.") var out: String?
    @Option(help: "Number of nodes (same as --set nodes.count=N).") var nodes: Int?
    @Option(
        name: .customLong("set"),
        help: ArgumentHelp("Override a scenario key, e.g. --set network.loss=0.3 (repeatable).", valueName: "KEY=VALUE"))
    var overrides: [String] = []
    @Flag(help: "No progress bar (on a terminal) and no progress lines (elsewhere).") var quiet = false
    @Option(help: "Threads that run the simulated nodes (the report is the same byte for byte).") var threads = 1

    func run() throws {
        let text: String
        do { text = try String(contentsOfFile: file, encoding: .utf8) } catch {
            throw ValidationError("cannot read \(file): \((error as NSError).localizedDescription)")
        }
        if let nodes, nodes < 1 { throw ValidationError("--nodes must be at least 1") }
        guard (1...64).contains(threads) else { throw ValidationError("--threads must be 1 to 64") }
        let scenario = try Scenario.load(tomlText: text, overrides: overrides + (nodes.map { ["nodes.count=\($0)"] } ?? []))
        let bar = ProgressBar(mode: quiet ? .off : isatty(STDERR_FILENO) != 0 ? .bar : .lines)
        let clock = ContinuousClock()
        let started = clock.now
        let result = simulate(scenario: scenario, seed: seed, threads: threads) { bar.update($0) }
        let elapsed = clock.now - started
        bar.finish()

        let json = result.report.json()
        FileHandle.standardOutput.write(json)
        FileHandle.standardOutput.write(Data("\n".utf8))
        if let out {
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            let base = (out as NSString).appendingPathComponent(scenario.name)
            try json.write(to: URL(fileURLWithPath: base + ".json"))
            try Data(result.csv().utf8).write(to: URL(fileURLWithPath: base + ".csv"))
            try Data(result.svg().utf8).write(to: URL(fileURLWithPath: base + ".svg"))
        }
        let seconds = elapsed.seconds
        let events = result.report.runs.reduce(0) { $0 + $1.events }
        let line = String(
            format: "%@: %d nodes, %d ops, %d strateg%@: %d events in %.2f s wall (%.0f events/s)\n",
            scenario.name, result.report.nodes, result.report.ops, result.report.runs.count,
            result.report.runs.count == 1 ? "y" : "ies", events, seconds, Double(events) / max(seconds, 1e-9))
        FileHandle.standardError.write(Data(line.utf8))
        for outcome in result.outcomes {
            guard let f = outcome.footprint else { continue }
            let held = String(
                format: "%@: per live node (mean) %.1f packs, %.1f ops, %.1f sessions, %.1f peer records; peak RSS %@ (%@ per node)\n",
                outcome.report.strategy, f.packs, f.ops, f.sessions, f.peerRecords, ProgressBar.peakText(),
                ProgressBar.peakText(perNode: result.report.nodes))
            FileHandle.standardError.write(Data(held.utf8))
        }
        // Strategies whose nodes share state (the hostile mix) never run in parallel windows.
        for outcome in result.outcomes where threads > 1 && outcome.parallelSeconds > 0 {
            let split = String(
                format: "%@: %.1f of %.1f s in the nodes' own work on %d threads (%.0f %%), the rest one event at a time\n",
                outcome.report.strategy, outcome.parallelSeconds, outcome.runSeconds, threads,
                100 * outcome.parallelSeconds / outcome.runSeconds)
            FileHandle.standardError.write(Data(split.utf8))
        }
    }
}

/// Progress on stderr: a one-line bar on a terminal; elsewhere (a log of a long run) a line
/// every 10 % of simulated time with the wall time and the process's resident memory.
final class ProgressBar {
    enum Mode { case off, bar, lines }
    let mode: Mode
    private var lastPercent = -1
    private let clock = ContinuousClock()
    private let started: ContinuousClock.Instant
    init(mode: Mode) { self.mode = mode; started = clock.now }

    func update(_ p: SimProgress) {
        let percent = Int(p.fraction * 100)
        switch mode {
        case .off: return
        case .bar:
            guard percent != lastPercent else { return }
            lastPercent = percent
            let width = 30
            let filled = min(width, Int(p.fraction * Double(width)))
            let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
            let line = String(
                format: "\r[%@] %3d%%  %@ (%d/%d)  t=%.1fs  %d events", bar, percent, p.strategy,
                p.strategyIndex + 1, p.strategyCount, Double(p.nowMs) / 1000, p.events)
            FileHandle.standardError.write(Data(line.utf8))
        case .lines:
            let tenth = percent / 10 * 10
            guard tenth != lastPercent else { return }
            lastPercent = tenth
            let wall = (clock.now - started).components.seconds
            let line = String(
                format: "%3d%%  %@ (%d/%d)  t=%.1fs  %d events  %d s wall  %@ RSS\n", tenth, p.strategy,
                p.strategyIndex + 1, p.strategyCount, Double(p.nowMs) / 1000, p.events, Int(wall), Self.residentText())
            FileHandle.standardError.write(Data(line.utf8))
        }
    }

    func finish() {
        guard mode == .bar, lastPercent >= 0 else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }

    /// VmRSS of /proc/self/status ("?" where there is none).
    static func residentText() -> String { statusKB("VmRSS:").map { String(format: "%.2f GB", $0 / 1e6) } ?? "?" }

    /// The peak RSS so far (VmHWM), in all or per node.
    static func peakText(perNode nodes: Int? = nil) -> String {
        guard let kb = statusKB("VmHWM:") else { return "?" }
        guard let nodes else { return String(format: "%.2f GB", kb / 1e6) }
        return String(format: "%.0f KB", kb / Double(max(1, nodes)))
    }

    private static func statusKB(_ key: String) -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix(key) })
        else { return nil }
        // "VmRSS:\t  830000 kB", or with no space at all after the tab for larger values.
        return Double(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "")
    }
}
