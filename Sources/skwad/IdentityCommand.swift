import ArgumentParser
import Foundation
import SkwadCrypto
import SkwadNode

/// `skwad identity export|import`: the same pseudonyms on a second device (PROTOCOL §2).
struct IdentityCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "identity",
        abstract: "Carry your identity (every pack pseudonym) to a second device, sealed under a passphrase.",
        subcommands: [Export.self, Import.self])

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print (or write) this data directory's identity, sealed under a passphrase.",
            discussion: """
                The passphrase is asked twice on a terminal; otherwise it is the first line of standard \
                input, or $SKWAD_PASSPHRASE. Sealing takes a fraction of a second (Argon2id, 3 passes over 64 MiB).
                """)

        @Option(name: .long, help: "Data directory (default: $SKWAD_DATA or ~/.skwad).")
        var data: String?

        @Option(name: .long, help: "Write the sealed identity to this file (mode 0600) instead of printing it.")
        var out: String?

        func run() throws {
            let dir = data ?? NodeConfig.defaultDataDir
            try IdentityCommand.failing {
                let passphrase = try Passphrase.read(confirm: true)
                let text = try IdentityTransfer.export(dataDir: dir, passphrase: passphrase)
                guard let out else { print(text); return }
                guard
                    FileManager.default.createFile(atPath: out, contents: Data((text + "\n").utf8), attributes: [.posixPermissions: 0o600])
                else { throw NodeError("cannot write \(out)") }
                print("wrote \(out)")
            }
        }
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Install an identity sealed by `skwad identity export` on another device.",
            discussion: "Nothing is written unless the passphrase opens it; another identity already here is replaced only with --replace.")

        @Argument(help: "The sealed identity (skwad-identity:…), or a file holding it.")
        var sealed: String

        @Option(name: .long, help: "Data directory (default: $SKWAD_DATA or ~/.skwad).")
        var data: String?

        @Flag(name: .long, help: "Replace another identity found here (kept as master.key.replaced-<time>).")
        var replace = false

        func run() throws {
            let dir = data ?? NodeConfig.defaultDataDir
            try IdentityCommand.failing {
                let text = sealed.hasPrefix(IdentityTransfer.prefix) ? sealed : try IdentityCommand.readFile(sealed)
                let passphrase = try Passphrase.read(confirm: false)
                switch try IdentityTransfer.install(
                    text, passphrase: passphrase, dataDir: dir, replace: replace,
                    nowSeconds: Int(Date().timeIntervalSince1970))
                {
                case .installed: print("installed: \(dir) now acts as the exported identity")
                case .unchanged: print("unchanged: \(dir) already holds this identity")
                case .replaced(let kept): print("replaced: the previous identity is kept as \(dir)/\(kept)")
                }
            }
        }
    }

    static func readFile(_ path: String) throws -> String {
        guard let d = FileManager.default.contents(atPath: path), d.count <= 4096, let s = String(data: d, encoding: .utf8) else {
            throw NodeError(
                "cannot read a sealed identity from \(NodeError.quote(path)) (a file, or the text starting with skwad-identity:)")
        }
        return s
    }

    /// Runs `body`; an error is one line on standard error and exit status 2.
    static func failing(_ body: () throws -> Void) throws {
        do { try body() } catch {
            FileHandle.standardError.write(Data("skwad: \(error)\n".utf8))
            throw ExitCode(2)
        }
    }
}

/// Reading a passphrase: $SKWAD_PASSPHRASE; else, on a terminal, a prompt with echo off
/// (asked twice when `confirm`); else the first line of standard input.
enum Passphrase {
    static func read(confirm: Bool) throws -> String {
        if let p = ProcessInfo.processInfo.environment["SKWAD_PASSPHRASE"] { return p }
        guard isatty(STDIN_FILENO) == 1 else {
            guard let line = readLine(strippingNewline: true) else { throw NodeError("no passphrase on standard input") }
            return line
        }
        let first = try prompt("passphrase: ")
        if confirm, try prompt("again: ") != first { throw NodeError("the two passphrases differ") }
        return first
    }

    static func prompt(_ text: String) throws -> String {
        FileHandle.standardError.write(Data(text.utf8))
        var saved = termios()
        tcgetattr(STDIN_FILENO, &saved)
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSANOW, &quiet)
        defer {
            tcsetattr(STDIN_FILENO, TCSANOW, &saved)
            FileHandle.standardError.write(Data("\n".utf8))
        }
        guard let line = readLine(strippingNewline: true) else { throw NodeError("no passphrase given") }
        return line
    }
}
