import ArgumentParser
import Foundation

struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Benchmarks; each prints one JSON object.",
        subcommands: [BenchIngest.self, BenchGossip.self, BenchIdentity.self, BenchProcs.self, BenchHostile.self, BenchPlaces.self])
}

struct BenchIngest: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingest",
        abstract: "Ops decoded + verified + admitted + committed per second, against raw Ed25519 verification.")

    @Option(help: "Ops per run.") var ops = 20_000
    @Option(help: "Packs the ops spread over.") var packs = 10
    @Option(help: "Distinct users.") var users = 200
    @Option(help: "Ops per store transaction.") var batch = 2_000
    @Option(help: "Runs; medians are reported.") var runs = 3

    func run() throws {
        guard ops > 0, packs > 0, users > 0, batch > 0, runs > 0 else { throw ValidationError("all options must be positive") }
        do {
            print(try IngestBenchmark(ops: ops, packs: packs, users: users, batch: batch).run(runs: runs))
        } catch {
            print(BenchFailure.json(bench: "ingest", reason: "\(error)"))
        }
    }
}
