import ArgumentParser
import Foundation
import SkwadNode

struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Print the embedded default configuration (TOML, every key documented).",
        discussion: "Save it, edit it, and pass it with --config FILE.")

    @Option(name: .long, help: "Check this config file instead: prints ok or the one-line error.")
    var check: String?

    func run() throws {
        guard let check else { print(NodeConfig.defaultTOML); return }
        do {
            _ = try NodeConfig.load(file: check)
            print("ok")
        } catch {
            FileHandle.standardError.write(Data("skwad: \(error)\n".utf8))
            throw ExitCode(2)
        }
    }
}
