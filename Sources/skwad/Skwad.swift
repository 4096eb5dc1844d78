import ArgumentParser

@main
struct Skwad: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "skwad",
        abstract: "A peer-to-peer node for local anonymous chat rooms.",
        subcommands: [Run.self, Serve.self, SimulateVerb.self, BenchVerb.self, Keygen.self, ConfigCommand.self, IdentityCommand.self],
        defaultSubcommand: Run.self)

    static func main() async {
        let args = Array(CommandLine.arguments.dropFirst())
        if let verb = args.first, Lab.verbs.contains(verb) { Lab.exec(args) }
        await main(WebOptions.withDefaultAddress(args))
    }
}
