import Foundation
import NIOCore
import SkwadGossip

/// The node's transport seam: how it gets its `DatagramTransport`, and everything about
/// addresses below the engine. It binds a host and port (0: a free one), resolves the
/// "HOST:PORT" texts a user gives (`resolve`), says at which addresses a bound socket may be
/// reached (`advertised`), and runs the LAN beacon beside the socket, with its own timer and
/// rate limits (`startBeacon`). `udp` is the real socket; node and REPL tests about logic bind
/// an in-memory network (SkwadLab `MemoryDatagramNetwork`), which has no beacon.
public struct DatagramBinder: Sendable {
    public let bind: @Sendable (_ host: String, _ port: Int) async throws -> any DatagramTransport
    /// Starts the LAN beacon for a transport bound at an address (nil: this transport has none).
    let beacon:
        (@Sendable (_ port: Int, _ bound: PeerAddress, _ heard: @escaping @Sendable (PeerAddress) -> Void) async throws -> LanBeacon?)?

    public init(bind: @escaping @Sendable (_ host: String, _ port: Int) async throws -> any DatagramTransport) {
        self.bind = bind
        beacon = nil
    }

    init(
        bind: @escaping @Sendable (_ host: String, _ port: Int) async throws -> any DatagramTransport,
        beacon: @escaping @Sendable (Int, PeerAddress, @escaping @Sendable (PeerAddress) -> Void) async throws -> LanBeacon?
    ) {
        self.bind = bind
        self.beacon = beacon
    }

    /// SwiftNIO UDP sockets on `group`, and the LAN beacon beside them.
    public static func udp(group: EventLoopGroup) -> DatagramBinder {
        DatagramBinder(
            bind: { host, port in try await UDPTransport.bind(host: host, port: port, group: group) },
            beacon: { port, bound, heard in try await LanBeacon.start(port: port, beside: bound, group: group, heard: heard) })
    }

    /// "HOST:PORT" (a host name asked of DNS) as a canonical address (PROTOCOL §8). Only for
    /// what a user gives (the listen address, configured seeds, a code's addresses); never for
    /// addresses from the wire, which are canonical already.
    public static func resolve(_ text: String) throws -> PeerAddress { PeerAddress(describe(try UDPTransport.resolve(text))) }

    /// The host and port to bind for "HOST:PORT" (a host name resolved; port 0: a free one).
    public static func listenAddress(_ text: String) throws -> (host: String, port: Int) {
        let at = try UDPTransport.resolve(text)
        guard let host = at.ipAddress, let port = at.port else { throw NodeError("cannot listen on \(text)") }
        return (host, port)
    }

    /// Binds again the canonical address a transport that closed was bound at; nil when it is
    /// not one.
    func rebind(_ address: PeerAddress) async throws -> (any DatagramTransport)? {
        guard let at = UDPTransport.socketAddress(canonical: address), let host = at.ipAddress, let port = at.port else { return nil }
        return try await bind(host, port)
    }

    /// The addresses a transport bound at `bound` may be reached at: on `0.0.0.0`, each
    /// non-loopback IPv4 interface address with the port; otherwise `bound` itself.
    static func advertised(_ bound: String) -> [String] {
        guard bound.hasPrefix("0.0.0.0:") else { return [bound] }
        let port = bound.dropFirst("0.0.0.0:".count)
        var seen = Set<String>()
        return ((try? System.enumerateDevices()) ?? []).compactMap { d -> String? in
            guard case .v4 = d.address, let ip = d.address?.ipAddress, !ip.hasPrefix("127."), seen.insert(ip).inserted else { return nil }
            return "\(ip):\(port)"
        }.sorted()
    }
}
