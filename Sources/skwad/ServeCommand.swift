import ArgumentParser
import Foundation
import Logging
import NIOPosix
import ServiceLifecycle
import SkwadNode
import SkwadREPL
import SkwadWeb

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run a node without a REPL (a campus node) until SIGINT or SIGTERM.")

    @OptionGroup var options: NodeOptions

    @Option(name: .long, help: "Expose the node's counters as Prometheus text on HOST:PORT (GET /metrics).")
    var metrics: String?

    @Option(name: .long, help: "Log level on stderr: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String = "info"

    @Option(name: .long, help: "Seconds between summaries of dropped datagrams and rejected ops.")
    var dropSummarySeconds: Int = 60

    @OptionGroup var web: WebOptions

    func validate() throws {
        try web.validate()
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("unknown log level '\(logLevel)'") }
        guard dropSummarySeconds >= 1 else { throw ValidationError("--drop-summary-seconds must be at least 1") }
    }

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var h = StreamLogHandler.standardError(label: label)
            h.logLevel = level
            return h
        }
        let logger = Logger(label: "skwad")
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let (_, node) = await options.open(group: group)
        let address = await node.listenAddress ?? "offline"
        print("skwad: serving on \(address)")
        fflush(nil)
        logger.info("serving", metadata: ["listen": "\(address)"])
        var executor = Executor(node: node)
        executor.peers = { await node.peerSummaries().map { PeerInfo(address: $0.address, state: $0.state, cell: $0.cell) } }
        let page = await web.start(executor: executor)
        await node.setEventSink { event in
            page?.events.publish(event)
            switch event {
            case .peerJoined(let a): logger.debug("peer joined", metadata: ["peer": "\(a)"])
            case .peerLeft(let a): logger.debug("peer left", metadata: ["peer": "\(a)"])
            default: break
            }
        }
        var services: [(String, any Service)] = [
            ("node", NodeService(node: node, logger: logger)),
            ("drop-summary", DropLogService(node: node, logger: logger, interval: .seconds(dropSummarySeconds)))
        ]
        if let metrics {
            do {
                let service = try await MetricsService.bind(metrics, node: node, group: group)
                print("skwad: metrics on http://\(service.localAddress)/metrics")
                fflush(nil)
                logger.info("metrics", metadata: ["address": "\(service.localAddress)"])
                services.append(("metrics", service))
            } catch {
                FileHandle.standardError.write(Data("skwad: \(error)\n".utf8))
                await node.goOffline()
                try? await group.shutdownGracefully()
                Foundation.exit(2)
            }
        }
        let serviceGroup = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services.map { .init(service: $0.1, successTerminationBehavior: .gracefullyShutdownGroup, serviceName: $0.0) },
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        do { try await serviceGroup.run() } catch { logger.error("stopped: \(error)") }
        await page?.stop()
        await node.goOffline()
        print("skwad: shutting down")
        try? await group.shutdownGracefully()
    }
}
