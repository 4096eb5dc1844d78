import Foundation
import SkwadBrowser

/// A plain WebSocket client on a node's live lines (`/api/v1/events`), read on a thread of
/// its own: it stamps when each post's event reached a socket outside the browser, so that
/// `skwad bench web` can say how much of the page's time is the node's server and how much
/// the browser.
final class SocketWatch: @unchecked Sendable {
    private let lock = NSLock()
    private var arrivals: [String: Double] = [:]
    private var stopped = false
    private let connection: RawConnection

    /// Subscribes to the events of the page at `url` (its token after `#token=`); reads for at
    /// most `seconds`.
    init(url: String, seconds: Double) async throws {
        guard let parsed = URL(string: url), let port = parsed.port,
            let token = parsed.fragment?.split(separator: "=", maxSplits: 1).last.map(String.init)
        else { throw WebBenchmark.Failure(reason: "the page's address has no port or token: \(url)") }
        let (c, r) = try await RawClient(port: port).webSocket(
            "/api/v1/events", headers: ["Sec-WebSocket-Protocol: skwad, skwad.token.\(token)"])
        guard let c else { throw WebBenchmark.Failure(reason: "the events socket was refused: \(r.status)") }
        connection = c
        Thread.detachNewThread { [self] in
            c.readFramesBlocking(seconds: seconds, stop: { self.lock.withLock { self.stopped } }) { opcode, payload in
                let t = monotonicSeconds()
                guard opcode == 1, let obj = (try? JSONSerialization.jsonObject(with: Data(payload))) as? [String: Any],
                    obj["event"] as? String == "post", let title = (obj["post"] as? [String: Any])?["title"] as? String
                else { return }
                self.lock.withLock { if self.arrivals[title] == nil { self.arrivals[title] = t } }
            }
        }
    }

    /// When the post titled `title` reached the socket (monotonic seconds), if it has.
    func arrival(_ title: String) -> Double? { lock.withLock { arrivals[title] } }

    func stop() { lock.withLock { stopped = true } }
}
