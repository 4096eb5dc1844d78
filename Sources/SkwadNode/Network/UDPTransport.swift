import NIOCore
import NIOPosix
import Foundation
import Synchronization
import SkwadGossip

/// The node's UDP socket (SwiftNIO `DatagramBootstrap`), its `DatagramTransport`. Received
/// datagrams go into a bounded queue (`datagrams`, at most `inboundCapacity` waiting); when it
/// is full a new datagram is dropped and counted (`inboundFull`), so a flood costs memory for
/// at most that many datagrams and the node reads them with one task, not one task each.
/// It knows nothing about the protocol; the gossip engine decides what to send. Datagrams
/// larger than `maxDatagram` are neither sent nor read. The socket is bound without
/// SO_REUSEADDR: a second process cannot take (or share) a node's port.
public final class UDPTransport: DatagramTransport {
    public static let maxDatagram = 1200
    public static let defaultInboundCapacity = 1024

    private let channel: Channel
    /// The bound socket address; `localAddress` is its text.
    public let socketAddress: SocketAddress
    public let localAddress: PeerAddress
    /// Datagrams received, in order, until the socket closes.
    public let datagrams: AsyncStream<Datagram>
    private let counters: InboundCounters

    private init(channel: Channel, datagrams: AsyncStream<Datagram>, counters: InboundCounters) throws {
        self.channel = channel
        self.datagrams = datagrams
        self.counters = counters
        guard let addr = channel.localAddress else { throw TransportError("socket has no local address") }
        socketAddress = addr
        localAddress = PeerAddress(describe(addr))
    }

    /// Datagrams dropped because the inbound queue was full.
    public var inboundFull: Int { counters.dropped.withLock { $0 } }

    /// Binds `host:port` (port 0 picks a free one) on `group` and starts reading.
    public static func bind(
        host: String, port: Int, group: EventLoopGroup,
        inboundCapacity: Int = defaultInboundCapacity
    ) async throws -> UDPTransport {
        let (stream, continuation) = AsyncStream<Datagram>.makeStream(bufferingPolicy: .bufferingOldest(max(1, inboundCapacity)))
        let counters = InboundCounters()
        let bootstrap = DatagramBootstrap(group: group)
            .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 2048))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(InboundHandler(continuation: continuation, counters: counters))
                }
            }
        do {
            let channel = try await bootstrap.bind(host: host, port: port).get()
            channel.closeFuture.whenComplete { _ in continuation.finish() }
            return try UDPTransport(channel: channel, datagrams: stream, counters: counters)
        } catch let e as TransportError {
            continuation.finish()
            throw e
        } catch {
            continuation.finish()
            if let io = error as? IOError, io.errnoCode == EADDRINUSE {
                throw TransportError("cannot listen on \(host):\(port): address already in use")
            }
            throw TransportError("cannot listen on \(host):\(port): \(error)")
        }
    }

    /// Sends one datagram to a canonical address (PROTOCOL §8: no DNS, no table of addresses
    /// to grow); silently drops it for any other address.
    public func send(_ bytes: [UInt8], to peer: PeerAddress) {
        if let address = Self.socketAddress(canonical: peer) { send(bytes, to: address) }
    }

    /// Sends one datagram; silently drops it if it is larger than `maxDatagram` (the engine
    /// never builds such a frame) or the socket is closed.
    public func send(_ bytes: [UInt8], to address: SocketAddress) {
        guard bytes.count <= Self.maxDatagram else { return }
        let buffer = channel.allocator.buffer(bytes: bytes)
        channel.writeAndFlush(AddressedEnvelope(remoteAddress: address, data: buffer), promise: nil)
    }

    public func close() async {
        try? await channel.close()
    }

    /// Parses "HOST:PORT" (IPv4 or a name) into a socket address. It may ask DNS: use it for
    /// the listen address and configured seeds at start, never for addresses from the wire
    /// (`socketAddress(canonical:)`).
    public static func resolve(_ hostPort: String) throws -> SocketAddress {
        guard let colon = hostPort.lastIndex(of: ":"), let port = Int(hostPort[hostPort.index(after: colon)...]),
            (0...65535).contains(port)
        else {
            throw TransportError("expected HOST:PORT such as 127.0.0.1:7400, got '\(hostPort)'")
        }
        let host = String(hostPort[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        do { return try SocketAddress.makeAddressResolvingHost(host, port: port) } catch {
            throw TransportError("cannot resolve '\(host)': \(error)")
        }
    }
}

extension UDPTransport {
    /// The socket address of a canonical peer address (PROTOCOL §8), without DNS; nil for
    /// anything else.
    public static func socketAddress(canonical peer: PeerAddress) -> SocketAddress? {
        guard peer.isCanonical, let colon = peer.value.lastIndex(of: ":"), let port = Int(peer.value[peer.value.index(after: colon)...])
        else { return nil }
        let host = String(peer.value[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return try? SocketAddress(ipAddress: host, port: port)
    }
}

/// "HOST:PORT" text of a socket address, the form used in configs, logs and the REPL.
public func describe(_ address: SocketAddress) -> String {
    if let ip = address.ipAddress, let port = address.port {
        return ip.contains(":") ? "[\(ip)]:\(port)" : "\(ip):\(port)"
    }
    return "\(address)"
}

public struct TransportError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ d: String) { description = d }
}

final class InboundCounters: Sendable {
    let dropped = Mutex<Int>(0)
}

private final class InboundHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    let continuation: AsyncStream<Datagram>.Continuation
    let counters: InboundCounters

    init(continuation: AsyncStream<Datagram>.Continuation, counters: InboundCounters) {
        self.continuation = continuation; self.counters = counters
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        var buffer = envelope.data
        guard buffer.readableBytes <= UDPTransport.maxDatagram, let bytes = buffer.readBytes(length: buffer.readableBytes) else { return }
        if case .dropped = continuation.yield(Datagram(bytes: bytes, from: PeerAddress(describe(envelope.remoteAddress)))) {
            counters.dropped.withLock { $0 += 1 }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        // A datagram error (e.g. ICMP port unreachable surfacing as ECONNREFUSED) must not
        // close the socket: the node keeps serving.
    }
}
