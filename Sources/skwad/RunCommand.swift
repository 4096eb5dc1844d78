import ArgumentParser
import Foundation
import SkwadModel
import SkwadNode
import SkwadREPL
import SkwadWeb
import NIOPosix
import NIOCore

/// Options shared by the node commands.
struct NodeOptions: ParsableArguments {
    @Option(name: .long, help: "Data directory (default: $SKWAD_DATA or ~/.skwad).")
    var data: String?

    @Option(name: .long, help: "A TOML config file (`skwad config` prints the documented default).")
    var config: String?

    @Option(name: .long, help: "Your location, LAT,LON.")
    var location: String?

    @Option(name: .long, help: "Listen for gossip on HOST:PORT (UDP).")
    var listen: String?

    @Option(name: .long, help: "A peer to join through, HOST:PORT (repeatable).")
    var peer: [String] = []

    @Flag(name: .long, help: "No network: no socket, no LAN beacon.")
    var offline = false

    @Flag(name: .customLong("no-lan"), help: "Do not look for neighbours on the local network.")
    var noLan = false

    func resolve() throws -> NodeConfig {
        // Without --config: the data directory's config.toml (written by `trust`), if any.
        var c = try config.map { try NodeConfig.load(file: $0) } ?? NodeConfig.loadDefault(dataDir: data ?? NodeConfig.defaultDataDir)
        if let data { c.dataDir = data }
        if let location { c.location = try GeoPoint(parsing: location) }
        if let listen { c.listen = listen }
        if !peer.isEmpty { c.peers = peer }
        if offline { c.offline = true }
        if noLan { c.lanBeacon = false }
        return c
    }

    /// Ten seconds after start, once: unmaps the start-up code pages (`WorkingSet`); the
    /// environment `SKWAD_TRIM=0` keeps them (to measure the difference).
    func scheduleStartupTrim() {
        guard ProcessInfo.processInfo.environment["SKWAD_TRIM"] != "0" else { return }
        Task.detached(priority: .background) {
            try? await Task.sleep(nanoseconds: 10_000_000_000)
            WorkingSet.trimStartupCode()
        }
    }

    /// Opens the node and, unless offline, takes it online (by default on every interface, a
    /// port the OS picks, with the LAN beacon).
    func open(group: EventLoopGroup) async -> (NodeConfig, Node) {
        do {
            let config = try resolve()
            let node = try Node(config: config)
            if let notice = node.permissionNotice { FileHandle.standardError.write(Data("skwad: \(notice)\n".utf8)) }
            try await node.ensureAdminPacks()
            if !config.offline {
                try await node.goOnline(group: group, listen: config.listen)
                if let notice = await node.lanNotice { FileHandle.standardError.write(Data("skwad: \(notice)\n".utf8)) }
            }
            scheduleStartupTrim()
            return (config, node)
        } catch {
            FileHandle.standardError.write(Data("skwad: \(error)\n".utf8))
            Foundation.exit(2)
        }
    }
}

struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "run", abstract: "Start a node and its REPL (the default).")

    @OptionGroup var options: NodeOptions

    @Flag(name: .long, help: "Answer every command with one JSON object per line.")
    var json = false

    @Flag(name: .long, help: "Also print peers joining and leaving.")
    var verbose = false

    @OptionGroup var web: WebOptions

    func validate() throws { try web.validate() }

    func run() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let (config, node) = await options.open(group: group)
        var executor = Executor(node: node)
        executor.peers = { await node.peerSummaries().map { PeerInfo(address: $0.address, state: $0.state, cell: $0.cell) } }
        let page = await web.start(executor: executor)
        if config.headless {
            // `headless = true` in the config: serve without a REPL, as `skwad serve` does.
            print("skwad: serving on \(await node.listenAddress ?? "offline") (headless)")
            if let page { await node.setEventSink { page.events.publish($0) } }
            await ShutdownSignal.wait()
            await page?.stop()
            await node.goOffline()
            try? await group.shutdownGracefully()
            return
        }
        let interactive = isatty(0) == 1 && isatty(1) == 1
        let mode: Renderer.Mode = json ? .json : (interactive ? .terminal : .plain)
        let reader = LineReader(interactive: interactive && !json, historyPath: config.dataDir + "/history")
        if mode == .terminal {
            // Minting a stamp (a new pack, or a first op in a pack) takes a fraction of a
            // second: say so on stderr while it runs, then clear the line.
            let shown = ProgressFlag()
            await node.setMintProgress { tried in
                if tried == 0 {
                    if shown.take() { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
                } else {
                    shown.set()
                    FileHandle.standardError.write(Data("\rminting your stamp (proof of work): \(tried / 1000)k hashes…".utf8))
                }
            }
        }
        var alsoEvents: (@Sendable (NodeEvent) -> Void)?
        if let events = page?.events { alsoEvents = { events.publish($0) } }
        let repl = REPL(executor: executor, reader: reader, mode: mode, verbose: verbose, alsoEvents: alsoEvents)
        await repl.run()
        await page?.stop()
        await node.goOffline()
        try? await group.shutdownGracefully()
    }
}

/// Waits for SIGINT or SIGTERM.
enum ShutdownSignal {
    static func wait() async {
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let (stream, cont) = AsyncStream<Void>.makeStream()
        let sources = [SIGINT, SIGTERM].map { sig in
            let s = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            s.setEventHandler { cont.yield() }
            s.resume()
            return s
        }
        for await _ in stream { break }
        sources.forEach { $0.cancel() }
    }
}

struct Keygen: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Make an admin key: prints the secret seed and the public key.")

    @Option(name: .long, help: "Write the secret seed to this file (mode 0600) instead of printing it.")
    var out: String?

    func run() throws {
        let key = SigningKeyPairFactory.generate()
        if let out {
            guard
                FileManager.default.createFile(
                    atPath: out, contents: Data((key.seedHex + "\n").utf8), attributes: [.posixPermissions: 0o600])
            else {
                throw ValidationError("cannot write \(out)")
            }
            print("public \(key.publicHex)")
        } else {
            print("secret \(key.seedHex)\npublic \(key.publicHex)")
        }
    }
}

/// Whether a progress line is on screen (set from the node's actor, read there too).
final class ProgressFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var on = false
    func set() { lock.lock(); on = true; lock.unlock() }
    /// Returns whether it was on, and clears it.
    func take() -> Bool { lock.lock(); defer { on = false; lock.unlock() }; return on }
}
