import SkwadGossip
import Synchronization

/// Datagrams between nodes of one process without sockets: the in-memory implementation of
/// `DatagramTransport` for node and REPL tests about logic, not sockets. Each `bind` takes a
/// port of this network and gives an address of loopback form ("127.0.0.1:PORT", canonical,
/// so the node's address rules apply as on real loopback). A send is delivered at once into
/// the receiver's bounded queue, or dropped when too large (`maxDatagram`, as the UDP
/// transport drops it), sent to an unbound port, or the queue is full (counted there). A port
/// is free again once its transport closes, so a node can bind it again.
public final class MemoryDatagramNetwork: Sendable {
    /// The largest datagram delivered (the UDP transport's limit).
    public static let maxDatagram = Datagram.maxSize
    public static let defaultInboundCapacity = 1024

    private struct State {
        var bound: [Int: MemoryDatagramTransport] = [:]
        var nextPort = 20_000
        /// Datagrams sent to a port nobody holds.
        var undeliverable = 0
    }
    private let state = Mutex(State())

    public init() {}

    /// Datagrams sent to an address that no open transport holds.
    public var undeliverable: Int { state.withLock { $0.undeliverable } }

    /// Binds `port` (0: the next free one) and returns the transport; a port already bound
    /// fails, as a second UDP bind on a node's port does.
    public func bind(
        host: String = "127.0.0.1", port: Int = 0,
        inboundCapacity: Int = defaultInboundCapacity
    ) throws -> MemoryDatagramTransport {
        let ip = host == "0.0.0.0" ? "127.0.0.1" : host
        return try state.withLock { s in
            var p = port
            if p == 0 {
                while s.bound[s.nextPort] != nil { s.nextPort += 1 }
                p = s.nextPort
                s.nextPort += 1
            }
            guard (1...65535).contains(p), s.bound[p] == nil else { throw MemoryNetworkError(description: "port \(p) is in use") }
            let t = MemoryDatagramTransport(network: self, address: PeerAddress("\(ip):\(p)"), port: p, capacity: inboundCapacity)
            s.bound[p] = t
            return t
        }
    }

    fileprivate func deliver(_ bytes: [UInt8], from: PeerAddress, to: PeerAddress) {
        guard bytes.count <= Self.maxDatagram else { return }
        let target = state.withLock { s -> MemoryDatagramTransport? in
            guard let p = Self.port(of: to), let t = s.bound[p], t.localAddress == to else { s.undeliverable += 1; return nil }
            return t
        }
        target?.enqueue(Datagram(bytes: bytes, from: from))
    }

    fileprivate func release(_ t: MemoryDatagramTransport) {
        state.withLock { s in if s.bound[t.port] === t { s.bound[t.port] = nil } }
    }

    static func port(of a: PeerAddress) -> Int? {
        guard let colon = a.value.lastIndex(of: ":") else { return nil }
        return Int(a.value[a.value.index(after: colon)...])
    }
}

public struct MemoryNetworkError: Error, CustomStringConvertible, Sendable {
    public let description: String
}

/// One endpoint of a `MemoryDatagramNetwork`.
public final class MemoryDatagramTransport: DatagramTransport {
    public let localAddress: PeerAddress
    public let datagrams: AsyncStream<Datagram>
    let port: Int
    private let continuation: AsyncStream<Datagram>.Continuation
    private let network: MemoryDatagramNetwork
    private let counters = Mutex((dropped: 0, closed: false))

    fileprivate init(network: MemoryDatagramNetwork, address: PeerAddress, port: Int, capacity: Int) {
        self.network = network
        localAddress = address
        self.port = port
        (datagrams, continuation) = AsyncStream<Datagram>.makeStream(bufferingPolicy: .bufferingOldest(max(1, capacity)))
    }

    public var inboundFull: Int { counters.withLock { $0.dropped } }

    public func send(_ bytes: [UInt8], to: PeerAddress) {
        guard !counters.withLock({ $0.closed }) else { return }
        network.deliver(bytes, from: localAddress, to: to)
    }

    public func close() async {
        counters.withLock { $0.closed = true }
        network.release(self)
        continuation.finish()
    }

    fileprivate func enqueue(_ d: Datagram) {
        if case .dropped = continuation.yield(d) { counters.withLock { $0.dropped += 1 } }
    }
}
