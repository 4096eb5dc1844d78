import Logging
import NIOCore
import ServiceLifecycle

/// The node as a service: online until a graceful shutdown (SIGINT/SIGTERM through the
/// service group), then offline.
public struct NodeService: Service {
    let node: Node
    let logger: Logger
    public init(node: Node, logger: Logger) { self.node = node; self.logger = logger }

    public func run() async throws {
        try? await gracefulShutdown()
        logger.notice("shutting down")
        await node.goOffline()
    }
}

/// Serves GET /metrics until a graceful shutdown; each scrape reads the node's counters.
public struct MetricsService: Service {
    let server: MetricsServer
    public init(server: MetricsServer) { self.server = server }

    /// Binds `hostPort`; the metrics come from `node`.
    public static func bind(_ hostPort: String, node: Node, group: EventLoopGroup) async throws -> MetricsService {
        let metrics = NodeMetrics()
        let server = try await MetricsServer.bind(hostPort, group: group) {
            metrics.update(await node.statsPairs())
            return metrics.render()
        }
        return MetricsService(server: server)
    }

    public var localAddress: String { server.localAddress }

    public func run() async throws {
        await withGracefulShutdownHandler {
            await server.run()
        } onGracefulShutdown: {
            Task { await server.close() }
        }
    }
}

/// Logs the drops and rejections of the last `interval` as one line (warning), and nothing
/// when there were none.
public struct DropLogService: Service {
    let node: Node
    let logger: Logger
    let interval: Duration
    public init(node: Node, logger: Logger, interval: Duration = .seconds(60)) {
        self.node = node; self.logger = logger; self.interval = interval
    }

    public func run() async throws {
        var summary = DropSummary()
        _ = summary.summarize(await node.statsPairs())
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do { try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) } } catch { return }
            if let line = summary.summarize(await node.statsPairs()) { logger.warning("\(line) in the last \(interval)") }
        }
    }
}
