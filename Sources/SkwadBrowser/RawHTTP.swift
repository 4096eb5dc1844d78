import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP connection to 127.0.0.1 that sends exactly the bytes it is given (any `Host`, any
/// body) and reads and writes with deadlines: how the tests speak HTTP and WebSocket to the
/// servers under test without a client library that would fix the headers for them, and how
/// the WebDriver client speaks to chromedriver. Blocking calls run on a thread of their own,
/// never on Swift's cooperative pool.
public final class RawConnection: @unchecked Sendable {
    /// The socket (for a test that reads or closes it itself).
    public let fd: Int32
    private var buffer = [UInt8]()

    /// Connects to 127.0.0.1:`port`. Reads wake every 200 ms to check their deadline; a send
    /// blocked for 5 s (a peer that stopped reading) gives up.
    public init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawError("socket: \(errno)") }
        var rtv = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &rtv, socklen_t(MemoryLayout<timeval>.size))
        var stv = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &stv, socklen_t(MemoryLayout<timeval>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else {
            close(fd)
            throw RawError("connect to 127.0.0.1:\(port): \(errno)")
        }
    }

    deinit { close(fd) }

    /// Sends every byte, or as many as the peer takes before it closes (a server may answer
    /// 413 and close before reading an oversized body) or within `seconds`. Returns whether
    /// all were sent.
    @discardableResult
    public func write(_ bytes: [UInt8], seconds: Double = 10) async -> Bool {
        await offThread { [fd] in
            let deadline = Date().addingTimeInterval(seconds)
            var sent = 0
            while sent < bytes.count && Date() < deadline {
                let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { continue }
                if n <= 0 { return false }
                sent += n
            }
            return sent == bytes.count
        }
    }

    /// Reads until `complete` says the bytes so far are enough (returning how many to take),
    /// the peer closes, or `seconds` pass. Returns nil on a timeout, or on a close before then
    /// (with `untilClose`, a close returns what was read).
    public func read(
        seconds: Double = 10, untilClose: Bool = false, until complete: @escaping @Sendable ([UInt8]) -> Int?
    ) async -> [UInt8]? {
        await offThread { [self] in
            let deadline = Date().addingTimeInterval(seconds)
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                if let n = complete(buffer) {
                    let out = Array(buffer.prefix(n))
                    buffer.removeFirst(n)
                    return out
                }
                if Date() >= deadline { return nil }
                let got = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if got > 0 { buffer += chunk.prefix(got) }
                if got == 0 || (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                    guard untilClose else { return nil }
                    defer { buffer.removeAll() }
                    return buffer
                }
            }
        }
    }

    /// An HTTP response: status line and headers, then `Content-Length` bytes of body (with no
    /// `Content-Length`, the body runs to the close; a 1xx, 204 or 304 has none).
    public func readResponse(seconds: Double = 10) async -> RawResponse? {
        guard
            let bytes = await read(
                seconds: seconds, untilClose: true,
                until: { b in
                    guard let end = RawResponse.headerEnd(b) else { return nil }
                    let head = RawResponse.parseHead(Array(b[..<end]))
                    let bodiless = head.status / 100 == 1 || head.status == 204 || head.status == 304
                    guard let length = bodiless ? 0 : head.headers["content-length"].flatMap(Int.init) else { return nil }
                    return b.count >= end + 4 + length ? end + 4 + length : nil
                }),
            let end = RawResponse.headerEnd(bytes)
        else { return nil }
        let head = RawResponse.parseHead(Array(bytes[..<end]))
        return RawResponse(status: head.status, headers: head.headers, body: Data(bytes[(end + 4)...]))
    }

    /// One WebSocket frame from the server (unmasked): its opcode and payload.
    public func readFrame(seconds: Double) async -> (opcode: UInt8, payload: [UInt8])? {
        guard
            let bytes = await read(
                seconds: seconds,
                until: { b in
                    guard let (header, length) = Self.frameSize(b) else { return nil }
                    return b.count >= header + length ? header + length : nil
                })
        else { return nil }
        let (header, _) = Self.frameSize(bytes)!
        return (bytes[0] & 0x0F, Array(bytes[header...]))
    }

    /// Reads WebSocket frames on the calling thread (it blocks: run it on a thread of its
    /// own) and hands each to `each` as soon as it is complete, until `stop` says so (asked at
    /// least every 200 ms), the peer closes, or `seconds` pass.
    public func readFramesBlocking(seconds: Double, stop: () -> Bool, _ each: (_ opcode: UInt8, _ payload: [UInt8]) -> Void) {
        let deadline = Date().addingTimeInterval(seconds)
        var chunk = [UInt8](repeating: 0, count: 65536)
        while !stop(), Date() < deadline {
            while let (header, length) = Self.frameSize(buffer), buffer.count >= header + length {
                each(buffer[0] & 0x0F, Array(buffer[header..<(header + length)]))
                buffer.removeFirst(header + length)
            }
            let got = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if got > 0 { buffer += chunk.prefix(got) }
            if got == 0 || (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) { return }
        }
    }

    /// Sends one text frame, masked as a client must.
    public func writeText(_ text: String) async {
        let payload = Array(text.utf8)
        var frame: [UInt8] = [0x81]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else if payload.count < 65536 {
            frame += [0x80 | 126, UInt8(payload.count >> 8 & 0xFF), UInt8(payload.count & 0xFF)]
        } else {
            frame.append(0x80 | 127)
            frame += (0..<8).reversed().map { UInt8(payload.count >> ($0 * 8) & 0xFF) }
        }
        let mask: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        await write(frame)
    }

    static func frameSize(_ b: [UInt8]) -> (header: Int, length: Int)? {
        guard b.count >= 2 else { return nil }
        let short = Int(b[1] & 0x7F)
        switch short {
        case 126:
            guard b.count >= 4 else { return nil }
            return (4, Int(b[2]) << 8 | Int(b[3]))
        case 127:
            guard b.count >= 10 else { return nil }
            return (10, b[2..<10].reduce(0) { $0 << 8 | Int($1) })
        default: return (2, short)
        }
    }

    private func offThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { cont in Thread.detachNewThread { cont.resume(returning: work()) } }
    }
}

public struct RawResponse: Sendable {
    public let status: Int
    /// Lowercased names.
    public let headers: [String: String]
    public let body: Data
    public var text: String { String(decoding: body, as: UTF8.self) }
    public var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] }

    static func headerEnd(_ b: [UInt8]) -> Int? {
        guard b.count >= 4 else { return nil }
        for i in 0...(b.count - 4) where b[i] == 13 && b[i + 1] == 10 && b[i + 2] == 13 && b[i + 3] == 10 { return i }
        return nil
    }

    static func parseHead(_ b: [UInt8]) -> (status: Int, headers: [String: String]) {
        let lines = String(decoding: b, as: UTF8.self).components(separatedBy: "\r\n")
        let status = lines.first.flatMap { $0.split(separator: " ").dropFirst().first.flatMap { Int($0) } } ?? 0
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return (status, headers)
    }
}

public struct RawError: Error, CustomStringConvertible {
    public let description: String
    public init(_ d: String) { description = d }
}

/// Requests to a server on 127.0.0.1:`port`, one connection each (`Connection: close`).
public struct RawClient: Sendable {
    public let port: Int
    /// The web page's token, for the requests that send it (none: "").
    public let token: String

    public init(port: Int, token: String = "") {
        self.port = port
        self.token = token
    }

    public var host: String { "127.0.0.1:\(port)" }

    /// `METHOD PATH` with `headers` and `body` (a `Content-Type` of JSON and a length when
    /// there is a body or the method is POST); `host` replaces the `Host` header's value.
    public func request(
        _ method: String, _ path: String, headers: [String] = [], body: [UInt8] = [], host hostHeader: String? = nil,
        seconds: Double = 10
    ) async throws -> RawResponse {
        let c = try RawConnection(port: port)
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(hostHeader ?? host)\r\nConnection: close\r\n"
        for h in headers { head += h + "\r\n" }
        if method == "POST" || !body.isEmpty { head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n" }
        head += "\r\n"
        await c.write(Array(head.utf8) + body, seconds: seconds)
        guard let r = await c.readResponse(seconds: seconds) else { throw RawError("no response to \(method) \(path)") }
        return r
    }

    /// Opens `path` as a WebSocket with `headers`; returns the connection once upgraded (101),
    /// or the refusal.
    public func webSocket(_ path: String, headers: [String]) async throws -> (RawConnection?, RawResponse) {
        let c = try RawConnection(port: port)
        var head = "GET \(path) HTTP/1.1\r\nHost: \(host)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        head += "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        for h in headers { head += h + "\r\n" }
        head += "\r\n"
        await c.write(Array(head.utf8))
        guard let r = await c.readResponse() else { throw RawError("no answer to the upgrade") }
        return (r.status == 101 ? c : nil, r)
    }
}
