import SkwadGossip

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A `HostilePeer` on a real UDP socket (127.0.0.1, OS-picked port): it runs the handshake
/// with a node listening on loopback and then sends it any `Message` bytes sealed under the
/// session, e.g. `WireForge.ops` with envelopes a test made (well-formed, duplicate, stale
/// or garbage). Node tests use it to put chosen bytes on the node's production path. The
/// socket is non-blocking and every wait is bounded (polls with `Task.sleep`, never a
/// blocking call on the cooperative pool).
public final class UDPWirePeer: @unchecked Sendable {
    public private(set) var peer: HostilePeer
    public let port: UInt16
    let fd: Int32
    let target: sockaddr_in

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// A socket bound to 127.0.0.1:0, aimed at the node on `targetPort`.
    public init(targetPort: UInt16, seed: UInt64 = 1) throws {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var src = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &src) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { close(fd); throw Failure(description: "bind: errno \(errno)") }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL, 0) | O_NONBLOCK)
        var me = sockaddr_in(); var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &me) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        self.fd = fd
        port = UInt16(bigEndian: me.sin_port)
        target = Self.loopback(port: targetPort)
        peer = HostilePeer(address: PeerAddress("127.0.0.1:\(port)"), seed: seed)
    }

    deinit { close(fd) }

    static func loopback(port: UInt16) -> sockaddr_in {
        var s = sockaddr_in()
        s.sin_family = sa_family_t(AF_INET)
        s.sin_port = port.bigEndian
        s.sin_addr.s_addr = (UInt32(127) << 24 | 1).bigEndian
        return s
    }

    /// The port of a "host:port" address (what `Node.goOnline` returns).
    public static func port(of address: String) -> UInt16? {
        address.split(separator: ":").last.flatMap { UInt16($0) }
    }

    public func sendRaw(_ bytes: [UInt8]) {
        var t = target
        _ = bytes.withUnsafeBytes { buf in
            withUnsafePointer(to: &t) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, buf.baseAddress, buf.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
    }

    /// Every datagram waiting on the socket (non-blocking; at most 256).
    func drain() -> [[UInt8]] {
        var out: [[UInt8]] = []
        var buf = [UInt8](repeating: 0, count: 2048)
        for _ in 0..<256 {
            let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { break }
            out.append(Array(buf[0..<n]))
        }
        return out
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
        throw Failure(description: "no WELCOME from 127.0.0.1:\(UInt16(bigEndian: target.sin_port))")
    }

    /// Sends one `Message` (e.g. `WireForge.ops([...])`) sealed under the session.
    public func send(_ message: [UInt8]) {
        sendRaw(peer.seal(message))
    }
}
