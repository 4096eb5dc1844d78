import ArgumentParser

/// The lab's executable: the simulator and the benchmarks, kept out of the node binary so that
/// a node carries no attack tooling (hostile peers, wire forging). `skwad simulate …` and
/// `skwad bench …` run it from beside the `skwad` binary (Sources/skwad/LabCommands.swift).
@main
struct SkwadLabCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "skwad-lab",
        abstract: "Skwad's lab: the deterministic simulator and the benchmarks (also run as `skwad simulate` and `skwad bench`).",
        subcommands: [Simulate.self, Bench.self])
}
