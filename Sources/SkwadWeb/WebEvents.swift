import Foundation
import SkwadModel
import SkwadNode
import SkwadREPL

/// The node's live lines for the page: each event rendered as the REPL prints it in JSON
/// mode, handed to every open WebSocket. Each socket's queue keeps the newest 256 lines, so a
/// slow page never holds the node back.
public final class WebEvents: @unchecked Sendable {
    /// At most this many sockets at once: a page needs one.
    public static let maxSubscribers = 16
    private let lock = NSLock()
    private var subscribers: [Int: AsyncStream<String>.Continuation] = [:]
    private var nextID = 0
    private var styles: [PackID: PackStyle] = [:]
    private var idLength = 8

    public init() {}

    /// Tells every socket about `e`; peer joins and leaves are not sent (the REPL prints them
    /// only with `--verbose`).
    public func publish(_ e: NodeEvent) {
        switch e {
        case .peerJoined, .peerLeft: return
        default: break
        }
        let (s, n, subs) = lock.withLock { (styles, idLength, Array(subscribers.values)) }
        guard !subs.isEmpty else { return }
        var r = Renderer(mode: .json)
        r.nowMs = wallClockMs()
        r.styles = s
        r.idLength = n
        let line = r.event(e)
        for c in subs { c.yield(line) }
    }

    /// Pack labels and the id length as of the last command, for events rendered on their own.
    func setStyles(_ s: [PackID: PackStyle], idLength n: Int) {
        lock.withLock {
            styles = s; idLength = n
        }
    }

    /// A new socket's stream of lines, or nil when `maxSubscribers` are open.
    func subscribe() -> (id: Int, lines: AsyncStream<String>)? {
        let (stream, cont) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(256))
        return lock.withLock {
            guard subscribers.count < Self.maxSubscribers else { return nil }
            nextID += 1
            subscribers[nextID] = cont
            return (nextID, stream)
        }
    }

    func unsubscribe(_ id: Int) {
        let c = lock.withLock { subscribers.removeValue(forKey: id) }
        c?.finish()
    }

    /// Ends every stream (the server is stopping).
    func finishAll() {
        let all = lock.withLock {
            let all = Array(subscribers.values)
            subscribers = [:]
            return all
        }
        for c in all { c.finish() }
    }

    public var subscriberCount: Int { lock.withLock { subscribers.count } }
}
