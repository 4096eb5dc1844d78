import SkwadGossip
import Synchronization

/// A `HostilePeer` on any `DatagramTransport` (in node tests, an endpoint of the in-memory
/// network the nodes use): it runs the handshake with the node at `target` and then sends it
/// any `Message` bytes sealed under the session, e.g. `WireForge.ops` with envelopes a test
/// made. `UDPWirePeer` is the same on a real socket. Every wait is bounded (5 ms polls).
public final class TransportWirePeer: @unchecked Sendable {
    public private(set) var peer: HostilePeer
    let transport: any DatagramTransport
    let target: PeerAddress
    private let inbox = Inbox()
    private var reader: Task<Void, Never>?

    public init(transport: any DatagramTransport, target: String, seed: UInt64 = 1) {
        self.transport = transport
        self.target = PeerAddress(target)
        peer = HostilePeer(address: transport.localAddress, seed: seed)
        let stream = transport.datagrams
        reader = Task { [inbox] in
            // At most 256 unread datagrams are kept, as `UDPWirePeer` drains at most 256.
            for await d in stream { inbox.datagrams.withLock { if $0.count < 256 { $0.append(d.bytes) } } }
        }
    }

    deinit { reader?.cancel() }

    public func sendRaw(_ bytes: [UInt8]) { transport.send(bytes, to: target) }

    func drain() -> [[UInt8]] {
        inbox.datagrams.withLock { box in
            defer { box.removeAll() }; return box
        }
    }

    /// HELLO until a WELCOME comes (answering a COOKIE with a HELLO that echoes it): at most
    /// `attempts` HELLOs, each waiting up to `waitMs` for an answer in 5 ms polls.
    public func handshake(attempts: Int = 5, waitMs: Int = 400) async throws {
        for _ in 0..<max(1, attempts) {
            sendRaw(peer.hello())
            let cookie = peer.cookie
            for _ in 0..<max(1, waitMs / 5) {
                for d in drain() where peer.accept(d) { return }
                if peer.cookie != cookie { break }  // a COOKIE came: answer it at once
                try await Task.sleep(nanoseconds: 5_000_000)
            }
        }
        throw UDPWirePeer.Failure(description: "no WELCOME from \(target.value)")
    }

    /// Sends one `Message` (e.g. `WireForge.ops([...])`) sealed under the session.
    public func send(_ message: [UInt8]) { sendRaw(peer.seal(message)) }

    public func close() async { await transport.close() }
}

private final class Inbox: Sendable {
    let datagrams = Mutex<[[UInt8]]>([])
}
