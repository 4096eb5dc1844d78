import ArgumentParser
import Foundation
import SkwadREPL
import SkwadWeb

/// `--web [HOST:PORT]` and `--web-lan`, shared by `run` and `serve` (docs/WEB.md).
struct WebOptions: ParsableArguments {
    @Option(
        name: .customLong("web"),
        help: ArgumentHelp(
            "Serve the local web page on HOST:PORT (alone: 127.0.0.1 and a port the OS picks); prints its URL with a token.",
            valueName: "HOST:PORT"))
    var address: String?

    @Flag(
        name: .customLong("web-lan"),
        help: "Allow --web to bind an address other than loopback (anyone on the network who has the token can act as you).")
    var lan = false

    var enabled: Bool { address != nil }

    func validate() throws {
        guard enabled else {
            if lan { throw ValidationError("--web-lan goes with --web HOST:PORT") }
            return
        }
        let (host, _) = try parsed()
        if !WebServer.isLoopback(host) && !lan {
            throw ValidationError("--web \(host) is not a loopback address: add --web-lan to serve the page to the network")
        }
    }

    /// `--web` given without an address (last, or before another option) means 127.0.0.1 and a
    /// port the OS picks: the default is put in, since an option's value cannot be optional.
    static func withDefaultAddress(_ args: [String]) -> [String] {
        var out: [String] = []
        for (i, a) in args.enumerated() {
            out.append(a)
            if a == "--" { return out + args[(i + 1)...] }
            if a == "--web" && (i + 1 == args.count || args[i + 1].hasPrefix("-")) { out.append("127.0.0.1:0") }
        }
        return out
    }

    func parsed() throws -> (host: String, port: Int) {
        do { return try WebServer.address(address) } catch { throw ValidationError("\(error)") }
    }

    /// Starts the page when asked: prints its URL (stdout) and, off loopback, a warning (stderr).
    /// Exits with status 2 when it cannot bind.
    func start(executor: Executor) async -> WebServer? {
        guard enabled else { return nil }
        do {
            let (host, port) = try parsed()
            let server = try await WebServer.start(executor: executor, host: host, port: port, allowLAN: lan)
            if !WebServer.isLoopback(host) {
                FileHandle.standardError.write(
                    Data(
                        "skwad: warning: the web page listens on \(host), off this machine: anyone who has the token can act as you\n".utf8)
                )
            }
            print("skwad: web page at \(server.url)")
            fflush(nil)
            return server
        } catch {
            FileHandle.standardError.write(Data("skwad: \(error)\n".utf8))
            Foundation.exit(2)
        }
    }
}
