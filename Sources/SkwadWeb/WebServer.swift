import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle
import SkwadCrypto
import SkwadNode
import SkwadREPL

/// The local web page: the page itself (`WebPage`), `POST /api/v1/VERB` over the command
/// registry, and `GET /api/v1/events`, a WebSocket of the node's live lines. Loopback unless
/// told otherwise; every API request carries the token printed at start (docs/WEB.md).
public final class WebServer: Sendable {
    /// Request bodies above this are refused with 413.
    public static let maxBody = 64 * 1024
    /// A picture upload's body (the file as `post --image` reads it) is bounded as that file is.
    public static let maxPictureBody = WebPictures.maxUpload

    /// The body bound of a request to `path`: a picture upload's, else `maxBody`.
    static func bodyLimit(path: String) -> Int { path.hasPrefix(WebPictures.uploadPrefix) ? maxPictureBody : maxBody }
    /// The `Sec-WebSocket-Protocol` entry a browser sends the token in.
    static let tokenProtocolPrefix = "skwad.token."
    /// The subprotocol the server answers with.
    static let subprotocol = "skwad"

    public let token: String
    public let host: String
    public let port: Int
    /// Node events go here (the REPL's `alsoEvents`, or the node's sink under `serve`).
    public let events: WebEvents
    private let group: ServiceGroup
    private let task: Task<Void, Never>

    /// The URL to open: the token after `#`, which a browser never sends to a server.
    public var url: String {
        let h = host.contains(":") ? "[\(host)]" : host
        return "http://\(h):\(port)/#token=\(token)"
    }

    /// Whether `host` is a loopback address (`127.0.0.0/8`, `::1`, `localhost`).
    public static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// Parses `HOST:PORT` (or `PORT`, or nothing: 127.0.0.1 and a port the OS picks).
    public static func address(_ s: String?) throws -> (host: String, port: Int) {
        guard let s, !s.isEmpty else { return ("127.0.0.1", 0) }
        if let p = Int(s) { return try address("127.0.0.1:\(p)") }
        guard let colon = s.lastIndex(of: ":"), let port = Int(s[s.index(after: colon)...]), (0...65535).contains(port) else {
            throw WebError("--web takes HOST:PORT, got '\(WebCommands.clip(s))'")
        }
        var host = String(s[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw WebError("--web takes HOST:PORT, got '\(WebCommands.clip(s))'") }
        return (host, port)
    }

    /// Binds and starts serving; returns once the port is known. A non-loopback `host` is
    /// refused unless `allowLAN`.
    public static func start(
        executor: Executor, host: String = "127.0.0.1", port: Int = 0, allowLAN: Bool = false
    ) async throws
        -> WebServer
    {
        guard isLoopback(host) || allowLAN else {
            throw WebError("\(host) is not a loopback address: add --web-lan to serve the page to the network")
        }
        let token = SecureRandom.bytes(32).map { String(format: "%02x", $0) }.joined()
        let events = WebEvents()
        let hosts = WebHosts(bound: host)
        let commands = WebCommands(executor: executor, events: events)
        let router = Router(context: BasicWebSocketRequestContext.self)
        router.middlewares.add(WebGuard<BasicWebSocketRequestContext>(token: Array(token.utf8), hosts: hosts))
        WebPage.addRoutes(to: router)
        WebPictures(commands: commands).addRoutes(to: router)
        router.post("/api/v1/:verb") { request, context -> Response in
            let verb = context.parameters.get("verb") ?? ""
            var request = request
            let body: ByteBuffer
            do { body = try await request.collectBody(upTo: maxBody) } catch {
                return WebResponse.error(413, "the body is larger than \(maxBody) bytes")
            }
            let (status, json) = await commands.run(verb, body: Data(body.readableBytesView))
            return WebResponse.json(status, json)
        }
        router.post("/api/v1/swipe-key") { request, _ -> Response in
            var request = request
            let body: ByteBuffer
            do { body = try await request.collectBody(upTo: maxBody) } catch {
                return WebResponse.error(413, "the body is larger than \(maxBody) bytes")
            }
            let (status, json) = await commands.swipe(body: Data(body.readableBytesView))
            return WebResponse.json(status, json)
        }
        router.post("/api/v1/qr") { request, _ -> Response in
            var request = request
            let body: ByteBuffer
            do { body = try await request.collectBody(upTo: maxBody) } catch {
                return WebResponse.error(413, "the body is larger than \(maxBody) bytes")
            }
            let (status, json) = commands.qr(body: Data(body.readableBytesView))
            return WebResponse.json(status, json)
        }
        router.ws("/api/v1/events") { request, _ in
            // The guard has checked the token; a browser offered it as a subprotocol, so
            // answer with the plain one.
            var headers = HTTPFields()
            if request.headers[.secWebSocketProtocol] != nil { headers[.secWebSocketProtocol] = subprotocol }
            return events.subscriberCount < WebEvents.maxSubscribers ? .upgrade(headers) : .dontUpgrade
        } onUpgrade: { inbound, outbound, _ in
            guard let (id, lines) = events.subscribe() else { return }
            defer { events.unsubscribe(id) }
            // Lines go out until the socket or the stream ends (the server stopping ends the
            // stream, and then the socket is closed from here).
            let writer = Task {
                for await line in lines {
                    do { try await outbound.write(.text(line)) } catch { return }
                }
                try? await outbound.close(.goingAway, reason: nil)
            }
            // Nothing the page sends is read; this ends when the socket closes.
            do { for try await _ in inbound {} } catch {}
            writer.cancel()
        }
        var logger = Logger(label: "skwad.web")
        logger.logLevel = .critical
        let (portStream, portCont) = AsyncStream<Int>.makeStream()
        let app = Application(
            router: router,
            server: .http1WebSocketUpgrade(webSocketRouter: router),
            configuration: .init(address: .hostname(host, port: port), serverName: nil),
            onServerRunning: { channel in
                portCont.yield(channel.localAddress?.port ?? 0)
                portCont.finish()
            },
            logger: logger)
        let group = ServiceGroup(services: [app], logger: logger)
        let failure = FailureBox()
        let task = Task {
            do { try await group.run() } catch { failure.set(error) }
            portCont.finish()
        }
        var bound: Int?
        for await p in portStream { bound = p; break }
        guard let bound, bound > 0 else {
            task.cancel()
            throw WebError("cannot serve the page on \(host):\(port): \(failure.get().map { "\($0)" } ?? "not bound")")
        }
        hosts.setPort(bound)
        return WebServer(token: token, host: host, port: bound, events: events, group: group, task: task)
    }

    private init(token: String, host: String, port: Int, events: WebEvents, group: ServiceGroup, task: Task<Void, Never>) {
        self.token = token; self.host = host; self.port = port; self.events = events; self.group = group; self.task = task
    }

    /// Stops serving: closes the listener and every socket, and waits for them.
    public func stop() async {
        events.finishAll()
        await group.triggerGracefulShutdown()
        await task.value
    }
}

public struct WebError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ d: String) { description = d }
}

private final class FailureBox: @unchecked Sendable {
    private let lock = NSLock()
    private var error: (any Error)?
    func set(_ e: any Error) { lock.withLock { error = e } }
    func get() -> (any Error)? { lock.withLock { error } }
}
