import SkwadGossip

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Sprays a UDP port on loopback from many source addresses and ports with HELLOs (fresh
/// keys, no cookie) and junk (random bytes, forged DATA frames), from the calling thread.
/// File descriptors stay bounded: at most `openSockets` at once; each socket sends
/// `perSource` datagrams from its OS-picked port, then closes and a new one opens, bound to
/// the next of `addresses` source addresses 127.0.x.y (Linux routes all of 127/8 to lo).
/// The rate is capped at `ratePerSecond`; the run lasts `seconds`.
public struct UDPSprayer: Sendable {
    public var port: UInt16
    public var seconds: Double
    public var ratePerSecond: Double = 20_000
    public var perSource = 4
    public var openSockets = 64
    public var addresses = 256
    public var seed: UInt64 = 7

    public struct Result: Sendable {
        public var datagrams = 0, hellos = 0, junk = 0, sources = 0, sendErrors = 0, bindErrors = 0
        public var distinctSourcePorts = 0
        /// CPU time of the spraying thread, seconds.
        public var cpuSeconds = 0.0
        public var wallSeconds = 0.0
    }

    public init(port: UInt16, seconds: Double) { self.port = port; self.seconds = seconds }

    static func now() -> Double {
        var t = timespec(); clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
    static func threadCPU() -> Double {
        var t = timespec(); clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    static func inet(_ a: UInt8, _ b: UInt8, _ c: UInt8, port: UInt16) -> sockaddr_in {
        var s = sockaddr_in()
        s.sin_family = sa_family_t(AF_INET)
        s.sin_port = port.bigEndian
        s.sin_addr.s_addr = (UInt32(127) << 24 | UInt32(a) << 16 | UInt32(b) << 8 | UInt32(c)).bigEndian
        return s
    }

    /// Runs the spray (blocking). `stop` is polled between datagrams.
    public func run(stop: () -> Bool = { false }) -> Result {
        var r = Result()
        var rng = SplitMix(seed: seed)
        var ports = Set<UInt32>()
        let start = Self.now(), cpu0 = Self.threadCPU()
        var target = Self.inet(0, 0, 1, port: port)
        var ring: [(fd: Int32, left: Int)] = []
        var nextAddress = 0
        func open() -> (Int32, Int)? {
            let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
            guard fd >= 0 else { r.bindErrors += 1; return nil }
            let k = nextAddress % max(1, addresses)
            nextAddress += 1
            var src = Self.inet(0, UInt8(k / 254), UInt8(1 + k % 254), port: 0)
            let ok = withUnsafePointer(to: &src) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard ok == 0 else { r.bindErrors += 1; close(fd); return nil }
            var bound = sockaddr_in(); var len = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &bound) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
            ports.insert(UInt32(bound.sin_addr.s_addr.bigEndian & 0xFFFF) << 16 | UInt32(UInt16(bigEndian: bound.sin_port)))
            r.sources += 1
            return (fd, perSource)
        }
        var slot = 0
        while true {
            let elapsed = Self.now() - start
            if elapsed >= seconds || stop() { break }
            // Rate cap: never ahead of ratePerSecond × elapsed.
            if Double(r.datagrams) >= ratePerSecond * elapsed {
                var ts = timespec(tv_sec: 0, tv_nsec: 200_000); nanosleep(&ts, nil)
                continue
            }
            if ring.count < openSockets { if let s = open() { ring.append((s.0, s.1)) }; continue }
            slot = (slot + 1) % ring.count
            if ring[slot].left == 0 {
                close(ring[slot].fd)
                guard let s = open() else { ring.remove(at: slot); continue }
                ring[slot] = (s.0, s.1)
            }
            var d: [UInt8]
            if rng.next() % 2 == 0 {
                d = HostilePeer.header(1) + rng.bytes(32) + [UInt8](repeating: 0, count: HostilePeer.helloSize - 36)
                r.hellos += 1
            } else if rng.next() % 2 == 0 {
                d = HostilePeer.forgedData(counter: rng.next(), payload: rng.bytes(40 + Int(rng.next() % 400)))
                r.junk += 1
            } else {
                d = rng.bytes(1 + Int(rng.next() % 600))
                r.junk += 1
            }
            let sent = d.withUnsafeBytes { buf in
                withUnsafePointer(to: &target) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        sendto(ring[slot].fd, buf.baseAddress, buf.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
            }
            if sent < 0 { r.sendErrors += 1 }
            r.datagrams += 1
            ring[slot].left -= 1
        }
        for s in ring { close(s.fd) }
        r.distinctSourcePorts = ports.count
        r.cpuSeconds = Self.threadCPU() - cpu0
        r.wallSeconds = Self.now() - start
        return r
    }
}
