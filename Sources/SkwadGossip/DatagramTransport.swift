/// The seam between a node and the network its datagrams cross: what carries out the engine's
/// `GossipDirective.send` and brings datagrams back to `receive`. Two implementations: the
/// node's SwiftNIO UDP socket (SkwadNode `UDPTransport`) and the in-memory network of nodes
/// in one process (SkwadLab `MemoryDatagramNetwork`). A declaration only: SkwadGossip does no
/// I/O.
public protocol DatagramTransport: AnyObject, Sendable {
    /// The address peers reach this transport at (canonical, PROTOCOL §8).
    var localAddress: PeerAddress { get }
    /// Datagrams received, in arrival order, from a bounded queue; the stream ends when the
    /// transport closes (asked to, or under the node).
    var datagrams: AsyncStream<Datagram> { get }
    /// Datagrams dropped because the inbound queue was full.
    var inboundFull: Int { get }
    /// Datagrams not sent, by reason (a send error for one destination, an address of no
    /// unicast host), sorted by reason. A send error never closes the transport unless it
    /// means the socket itself is gone.
    var sendFailures: [(reason: String, count: Int)] { get }
    /// Sends one datagram; drops it when it is too large, the address names no reachable
    /// peer or the transport is closed (as UDP would).
    func send(_ bytes: [UInt8], to: PeerAddress)
    func close() async
}

extension DatagramTransport {
    /// A transport whose sends cannot fail one by one (the in-memory network) counts none.
    public var sendFailures: [(reason: String, count: Int)] { [] }
}

/// One datagram received, with the address it came from.
public struct Datagram: Sendable {
    public let bytes: [UInt8]
    public let from: PeerAddress

    public init(bytes: [UInt8], from: PeerAddress) { self.bytes = bytes; self.from = from }

    /// The largest datagram a transport sends or reads (PROTOCOL §8; `Frame.maxDatagram`).
    public static let maxSize = Frame.maxDatagram
}
