import ArgumentParser

@main
struct Skwad: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "skwad",
        abstract: "A peer-to-peer node for local anonymous chat rooms.",
        subcommands: [Run.self, Serve.self, Simulate.self, Bench.self, Keygen.self, ConfigCommand.self, IdentityCommand.self],
        defaultSubcommand: Run.self)

    static func main() async {
        await main(WebOptions.withDefaultAddress(Array(CommandLine.arguments.dropFirst())))
    }
}
