import NIOCore
import NIOPosix
import Foundation
import Synchronization
import SkwadGossip

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The node's UDP socket, its `DatagramTransport`. Received datagrams are read by SwiftNIO
/// (`DatagramBootstrap`) into a bounded queue (`datagrams`, at most `inboundCapacity`
/// waiting); when it is full a new datagram is dropped and counted (`inboundFull`), so a flood
/// costs memory for at most that many datagrams and the node reads them with one task, not one
/// task each. It knows nothing about the protocol; the gossip engine decides what to send.
/// Datagrams larger than `maxDatagram` are neither sent nor read. The socket is bound without
/// SO_REUSEADDR: a second process cannot take (or share) a node's port.
///
/// Sends do not go through SwiftNIO: it closes a datagram channel on any send error but
/// EMSGSIZE and EHOSTUNREACH, and every other error of `sendto` on an unconnected UDP socket
/// (EACCES for a broadcast address, EINVAL, EAFNOSUPPORT, ENETUNREACH, EPERM from a firewall)
/// is about the one destination, which a peer may choose. The transport sends with `sendto`
/// on its own descriptor of the same socket (a `dup` kept beside SwiftNIO's): a failed send
/// is counted by its reason (`sendFailures`) and dropped, the socket stays bound. Only EBADF
/// and ENOTSOCK, which mean the socket is gone, close the transport (the node then binds
/// again). A full send buffer (EAGAIN) drops the datagram, as a congested link would.
public final class UDPTransport: DatagramTransport {
    public static let maxDatagram = Datagram.maxSize
    public static let defaultInboundCapacity = 1024
    /// Destinations kept parsed (`send`), and sources kept formatted (the reader), each at most.
    static let resolvedCapacity = 1024
    static let namesCapacity = 1024

    private let channel: Channel
    private let sender: Sender
    /// The bound socket address; `localAddress` is its text.
    public let socketAddress: SocketAddress
    public let localAddress: PeerAddress
    /// Datagrams received, in order, until the socket closes.
    public let datagrams: AsyncStream<Datagram>
    private let counters: InboundCounters

    private init(channel: Channel, sender: Sender, datagrams: AsyncStream<Datagram>, counters: InboundCounters) throws {
        self.channel = channel
        self.sender = sender
        self.datagrams = datagrams
        self.counters = counters
        guard let addr = channel.localAddress else { throw TransportError("socket has no local address") }
        socketAddress = addr
        localAddress = PeerAddress(describe(addr))
    }

    /// Datagrams dropped because the inbound queue was full.
    public var inboundFull: Int { counters.dropped.withLock { $0 } }

    /// Datagrams not sent, by reason (`SendFailure`), sorted by reason.
    public var sendFailures: [(reason: String, count: Int)] { sender.failures }

    /// Binds `host:port` (port 0 picks a free one) on `group` and starts reading.
    public static func bind(
        host: String, port: Int, group: EventLoopGroup,
        inboundCapacity: Int = defaultInboundCapacity
    ) async throws -> UDPTransport {
        let address: SocketAddress
        do { address = try SocketAddress.makeAddressResolvingHost(host, port: port) } catch {
            throw TransportError("cannot listen on \(host):\(port): \(error)")
        }
        let sender = try Sender(binding: address, text: "\(host):\(port)")
        let readFd = fcntl(sender.descriptor, F_DUPFD_CLOEXEC, 0)
        guard readFd >= 0 else {
            let e = errno
            sender.close()
            throw TransportError("cannot listen on \(host):\(port): \(String(cString: strerror(e)))")
        }
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
            // SwiftNIO owns (and closes) `readFd`; the transport owns the send descriptor.
            let channel = try await bootstrap.withBoundSocket(readFd).get()
            channel.closeFuture.whenComplete { _ in
                sender.close()
                continuation.finish()
            }
            return try UDPTransport(channel: channel, sender: sender, datagrams: stream, counters: counters)
        } catch {
            continuation.finish()
            sender.close()
            throw (error as? TransportError) ?? TransportError("cannot listen on \(host):\(port): \(error)")
        }
    }

    /// Sends one datagram to a canonical address of a unicast host (PROTOCOL §8: no DNS, no
    /// table of addresses to grow); drops it, counted (`notDialable`), for any other address.
    public func send(_ bytes: [UInt8], to peer: PeerAddress) {
        if let address = resolved.withLock({ $0[peer] }) { send(bytes, to: address); return }
        guard peer.isDialable, let address = Self.socketAddress(canonical: peer) else { sender.count(.notDialable); return }
        resolved.withLock { table in
            if table.count >= Self.resolvedCapacity { table.removeAll(keepingCapacity: true) }
            table[peer] = address
        }
        send(bytes, to: address)
    }

    /// Dialable addresses already parsed, so a send to a known peer parses no text; emptied
    /// when it reaches its capacity (only addresses that passed `isDialable` enter it).
    private let resolved = Mutex<[PeerAddress: SocketAddress]>([:])

    /// Sends one datagram; drops it if it is larger than `maxDatagram` (the engine never
    /// builds such a frame) or the socket is closed; counts and drops it when the send fails.
    public func send(_ bytes: [UInt8], to address: SocketAddress) {
        guard bytes.count <= Self.maxDatagram else { return }
        if sender.send(bytes, to: address) == .socketGone { channel.close(promise: nil) }
    }

    public func close() async {
        sender.close()
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

/// Why a datagram was not sent: the errors `sendto` reports for one destination, a full
/// send buffer, an address the transport refuses before any system call, and any other
/// errno (counted together, so the table has one row per case at most).
enum SendFailure: String, CaseIterable, Sendable {
    case notDialable, eacces = "EACCES", eperm = "EPERM", einval = "EINVAL", eafnosupport = "EAFNOSUPPORT"
    case eaddrnotavail = "EADDRNOTAVAIL", enetunreach = "ENETUNREACH", ehostunreach = "EHOSTUNREACH", emsgsize = "EMSGSIZE"
    case enobufs = "ENOBUFS", eagain = "EAGAIN", ebadf = "EBADF", enotsock = "ENOTSOCK", other

    init(errno e: CInt) {
        switch e {
        case EACCES: self = .eacces
        case EPERM: self = .eperm
        case EINVAL: self = .einval
        case EAFNOSUPPORT: self = .eafnosupport
        case EADDRNOTAVAIL: self = .eaddrnotavail
        case ENETUNREACH: self = .enetunreach
        case EHOSTUNREACH: self = .ehostunreach
        case EMSGSIZE: self = .emsgsize
        case ENOBUFS: self = .enobufs
        case EAGAIN, EWOULDBLOCK: self = .eagain
        case EBADF: self = .ebadf
        case ENOTSOCK: self = .enotsock
        default: self = .other
        }
    }

    /// The socket itself is gone: nothing will be sent on it again.
    var meansSocketGone: Bool { self == .ebadf || self == .enotsock }
}

/// The transport's own descriptor of its socket, for sends, and what they failed with. The
/// descriptor is used and closed only under the lock, so a send never reaches a descriptor
/// number the process has since reused.
/// The system calls under names no method shadows.
private func bindSocket(_ fd: CInt, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> CInt { bind(fd, address, length) }
private func closeDescriptor(_ fd: CInt) -> CInt { close(fd) }

final class Sender: Sendable {
    enum Outcome { case sent, dropped, socketGone }
    private struct State {
        var fd: CInt?
        var failures: [SendFailure: Int] = [:]
    }
    private let state: Mutex<State>
    /// The descriptor as bound (read once, before anything else holds it).
    let descriptor: CInt

    /// A UDP socket bound to `address` without SO_REUSEADDR, non-blocking, close-on-exec.
    init(binding address: SocketAddress, text: String) throws {
        #if canImport(Glibc)
            let type = Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        #else
            let type = SOCK_DGRAM
        #endif
        let fd = socket(address.protocol.rawValue, type, 0)
        guard fd >= 0 else { throw TransportError("cannot listen on \(text): \(String(cString: strerror(errno)))") }
        let bound = address.withSockAddr { sa, len in bindSocket(fd, sa, socklen_t(len)) }
        if bound != 0 {
            let e = errno
            _ = closeDescriptor(fd)
            if e == EADDRINUSE { throw TransportError("cannot listen on \(text): address already in use") }
            throw TransportError("cannot listen on \(text): \(String(cString: strerror(e)))")
        }
        descriptor = fd
        state = Mutex(State(fd: fd))
    }

    func send(_ bytes: [UInt8], to address: SocketAddress) -> Outcome {
        state.withLock { s in
            guard let fd = s.fd else { return .dropped }
            var result = 0, err: CInt = 0
            for _ in 0..<3 {  // a signal may interrupt the call: tried again, a bounded number of times
                result = bytes.withUnsafeBytes { b in
                    address.withSockAddr { sa, len in sendto(fd, b.baseAddress, b.count, Int32(MSG_DONTWAIT), sa, socklen_t(len)) }
                }
                err = result < 0 ? errno : 0
                if err != EINTR { break }
            }
            guard result < 0 else { return .sent }
            let failure = SendFailure(errno: err)
            s.failures[failure, default: 0] += 1
            return failure.meansSocketGone ? .socketGone : .dropped
        }
    }

    func count(_ failure: SendFailure) { state.withLock { $0.failures[failure, default: 0] += 1 } }

    var failures: [(reason: String, count: Int)] {
        state.withLock { s in s.failures.map { (reason: $0.key.rawValue, count: $0.value) }.sorted { $0.reason < $1.reason } }
    }

    func close() {
        state.withLock { s in
            if let fd = s.fd { _ = closeDescriptor(fd) }
            s.fd = nil
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
    /// The text of source addresses seen lately, so a datagram from a known peer formats
    /// none (used on the channel's event loop only); emptied at its capacity.
    private var names: [SocketAddress: PeerAddress] = [:]

    init(continuation: AsyncStream<Datagram>.Continuation, counters: InboundCounters) {
        self.continuation = continuation; self.counters = counters
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        var buffer = envelope.data
        guard buffer.readableBytes <= UDPTransport.maxDatagram, let bytes = buffer.readBytes(length: buffer.readableBytes) else { return }
        let from: PeerAddress
        if let known = names[envelope.remoteAddress] {
            from = known
        } else {
            from = PeerAddress(describe(envelope.remoteAddress))
            if names.count >= UDPTransport.namesCapacity { names.removeAll(keepingCapacity: true) }
            names[envelope.remoteAddress] = from
        }
        if case .dropped = continuation.yield(Datagram(bytes: bytes, from: from)) {
            counters.dropped.withLock { $0 += 1 }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        // A datagram error (e.g. ICMP port unreachable surfacing as ECONNREFUSED) must not
        // close the socket: the node keeps serving.
    }
}
