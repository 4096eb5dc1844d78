import NIOCore
import NIOPosix
import Foundation

/// The node's UDP socket (SwiftNIO `DatagramBootstrap`): hands every received datagram to a
/// callback and sends datagrams. It knows nothing about the protocol; the gossip engine
/// decides what to send. Datagrams larger than `maxDatagram` are neither sent nor read.
public final class UDPTransport: Sendable {
    public static let maxDatagram = 1200

    public typealias Receive = @Sendable (_ bytes: [UInt8], _ from: SocketAddress) -> Void

    private let channel: Channel
    public let localAddress: SocketAddress

    private init(channel: Channel) throws {
        self.channel = channel
        guard let addr = channel.localAddress else { throw TransportError("socket has no local address") }
        self.localAddress = addr
    }

    /// Binds `host:port` (port 0 picks a free one) on `group` and starts reading.
    public static func bind(host: String, port: Int, group: EventLoopGroup, onDatagram: @escaping Receive) async throws -> UDPTransport {
        let bootstrap = DatagramBootstrap(group: group)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 2048))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(InboundHandler(onDatagram: onDatagram))
                }
            }
        do {
            let channel = try await bootstrap.bind(host: host, port: port).get()
            return try UDPTransport(channel: channel)
        } catch let e as TransportError {
            throw e
        } catch {
            throw TransportError("cannot listen on \(host):\(port): \(error)")
        }
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

    /// Parses "HOST:PORT" (IPv4 or a name) into a socket address.
    public static func resolve(_ hostPort: String) throws -> SocketAddress {
        guard let colon = hostPort.lastIndex(of: ":"), let port = Int(hostPort[hostPort.index(after: colon)...]),
              (0...65535).contains(port) else {
            throw TransportError("expected HOST:PORT such as 127.0.0.1:7400, got '\(hostPort)'")
        }
        let host = String(hostPort[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        do { return try SocketAddress.makeAddressResolvingHost(host, port: port) } catch {
            throw TransportError("cannot resolve '\(host)': \(error)")
        }
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

private final class InboundHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    let onDatagram: UDPTransport.Receive

    init(onDatagram: @escaping UDPTransport.Receive) { self.onDatagram = onDatagram }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        var buffer = envelope.data
        guard buffer.readableBytes <= UDPTransport.maxDatagram, let bytes = buffer.readBytes(length: buffer.readableBytes) else { return }
        onDatagram(bytes, envelope.remoteAddress)
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        // A datagram error (e.g. ICMP port unreachable surfacing as ECONNREFUSED) must not
        // close the socket: the node keeps serving.
    }
}
