import ArgumentParser
import Foundation
import SkwadModel
import SkwadNode
import SkwadREPL

/// Options shared by the node commands.
struct NodeOptions: ParsableArguments {
    @Option(name: .long, help: "Data directory (default: $SKWAD_DATA or ~/.skwad).")
    var data: String?

    @Option(name: .long, help: "A TOML config file (`skwad config` prints the documented default).")
    var config: String?

    @Option(name: .long, help: "Your location, LAT,LON.")
    var location: String?

    func resolve() throws -> NodeConfig {
        var c = try config.map { try NodeConfig.load(file: $0) } ?? NodeConfig.embeddedDefault
        if let data { c.dataDir = data }
        if let location { c.location = try GeoPoint(parsing: location) }
        return c
    }
}

struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "run", abstract: "Start a node and its REPL (the default).")

    @OptionGroup var options: NodeOptions

    @Flag(name: .long, help: "Answer every command with one JSON object per line.")
    var json = false

    func run() async throws {
        let config: NodeConfig
        let node: Node
        do {
            config = try options.resolve()
            node = try Node(config: config)
            try await node.ensureAdminPacks()
        } catch {
            FileHandle.standardError.write(Data("skwad: \(error)\n".utf8))
            throw ExitCode(2)
        }
        let interactive = isatty(0) == 1 && isatty(1) == 1
        let mode: Renderer.Mode = json ? .json : (interactive ? .terminal : .plain)
        let reader = LineReader(interactive: interactive && !json, historyPath: config.dataDir + "/history")
        let repl = REPL(executor: Executor(node: node), reader: reader, mode: mode)
        await repl.run()
    }
}

struct Keygen: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Make an admin key: prints the secret seed and the public key.")

    @Option(name: .long, help: "Write the secret seed to this file (mode 0600) instead of printing it.")
    var out: String?

    func run() throws {
        let key = SigningKeyPairFactory.generate()
        if let out {
            guard FileManager.default.createFile(atPath: out, contents: Data((key.seedHex + "\n").utf8), attributes: [.posixPermissions: 0o600]) else {
                throw ValidationError("cannot write \(out)")
            }
            print("public \(key.publicHex)")
        } else {
            print("secret \(key.seedHex)\npublic \(key.publicHex)")
        }
    }
}
