import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// A minimal HTTP/1.1 server for Prometheus: GET /metrics answers with `render()` as text
/// (exposition format 0.0.4); any other path is 404, any other method 405. One request per
/// connection (the reply closes it), at most `maxConnections` at once (more are closed at
/// once), and a connection that has not finished its request within `requestTimeout` is
/// closed: a scraper cannot hold the node's resources.
public final class MetricsServer: Sendable {
    public static let maxConnections = 16
    public static let requestTimeout: Duration = .seconds(5)

    typealias Connection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>
    private let server: NIOAsyncChannel<Connection, Never>
    private let render: @Sendable () async -> String
    private let open = Counter()
    /// The address bound, "HOST:PORT" (useful with port 0).
    public let localAddress: String

    private init(server: NIOAsyncChannel<Connection, Never>, render: @escaping @Sendable () async -> String) throws {
        self.server = server
        self.render = render
        guard let a = server.channel.localAddress, let ip = a.ipAddress, let port = a.port else {
            throw NodeError("metrics socket has no local address")
        }
        localAddress = "\(ip):\(port)"
    }

    /// Binds `HOST:PORT` (port 0 picks a free one). Serve with `run()`.
    public static func bind(
        _ hostPort: String, group: EventLoopGroup, render: @escaping @Sendable () async -> String
    ) async throws -> MetricsServer {
        guard let colon = hostPort.lastIndex(of: ":"), let port = Int(hostPort[hostPort.index(after: colon)...]),
            (0...65535).contains(port)
        else {
            throw NodeError("metrics address '\(hostPort)' is not HOST:PORT")
        }
        let host = String(hostPort[..<colon])
        do {
            let server = try await ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 16)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .bind(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withPipeliningAssistance: false)
                        return try Connection(wrappingChannelSynchronously: channel)
                    }
                }
            return try MetricsServer(server: server, render: render)
        } catch let e as NodeError {
            throw e
        } catch {
            throw NodeError("cannot serve metrics on \(hostPort): \(error)")
        }
    }

    /// Serves until the task is cancelled or `close()` is called.
    public func run() async {
        let render = self.render
        let open = self.open
        try? await server.executeThenClose { inbound in
            try await withThrowingDiscardingTaskGroup { group in
                for try await connection in inbound {
                    guard open.enter(max: Self.maxConnections) else {
                        try? await connection.channel.close()
                        continue
                    }
                    group.addTask {
                        defer { open.leave() }
                        await Self.serve(connection, render: render)
                    }
                }
            }
        }
    }

    public func close() async { try? await server.channel.close() }

    /// Connections being served now (at most `maxConnections`).
    var openConnections: Int { open.count }

    private static func serve(_ connection: Connection, render: @escaping @Sendable () async -> String) async {
        let channel = connection.channel
        let timeout = Task {
            try await Task.sleep(for: requestTimeout)
            try? await channel.close()
        }
        defer { timeout.cancel() }
        try? await connection.executeThenClose { inbound, outbound in
            var head: HTTPRequestHead?
            for try await part in inbound {
                switch part {
                case .head(let h): head = h
                case .body: continue
                case .end:
                    guard let h = head else { return }
                    let path = h.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? h.uri
                    let (status, body): (HTTPResponseStatus, String) =
                        h.method != .GET && h.method != .HEAD
                        ? (.methodNotAllowed, "only GET\n")
                        : path != "/metrics"
                            ? (.notFound, "see /metrics\n")
                            : (.ok, await render())
                    var headers = HTTPHeaders()
                    headers.add(
                        name: "Content-Type",
                        value: status == .ok ? "text/plain; version=0.0.4; charset=utf-8" : "text/plain; charset=utf-8")
                    headers.add(name: "Content-Length", value: "\(body.utf8.count)")
                    headers.add(name: "Connection", value: "close")
                    try await outbound.write(.head(HTTPResponseHead(version: h.version, status: status, headers: headers)))
                    if h.method != .HEAD { try await outbound.write(.body(.byteBuffer(channel.allocator.buffer(string: body)))) }
                    try await outbound.write(.end(nil))
                    return
                }
            }
        }
    }

    /// Connections open now.
    private final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var n = 0
        func enter(max: Int) -> Bool {
            lock.withLock {
                if n >= max { return false }; n += 1; return true
            }
        }
        func leave() { lock.withLock { n -= 1 } }
        var count: Int { lock.withLock { n } }
    }
}
