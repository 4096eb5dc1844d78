#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Canonical peer addresses (PROTOCOL §8): the only form accepted from the wire.
/// `A.B.C.D:PORT` (decimal octets and port without leading zeros, port 1...65535) or
/// `[IPv6]:PORT` with the address in RFC 5952 form (as `inet_ntop` writes it). No names:
/// nothing taken from a datagram is ever resolved through DNS. Parsing is pure (no I/O).
extension PeerAddress {
    /// The address if `text` is canonical, nil otherwise (a non-canonical spelling of a
    /// valid address is refused, not rewritten, so one peer has one key in every table).
    public static func canonical(_ text: String) -> PeerAddress? {
        guard text.utf8.count <= 64, let colon = text.lastIndex(of: ":") else { return nil }
        let host = text[..<colon], portText = text[text.index(after: colon)...]
        guard let port = canonicalNumber(portText, max: 65535), port > 0 else { return nil }
        if host.hasPrefix("[") && host.hasSuffix("]") && host.count > 2 {
            let inner = String(host.dropFirst().dropLast())
            guard inner.contains(":"), let back = ipv6RoundTrip(inner), back == inner else { return nil }
        } else {
            let parts = host.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 4, parts.allSatisfy({ canonicalNumber($0, max: 255) != nil }) else { return nil }
        }
        return PeerAddress(text)
    }

    /// The network group an address belongs to, for eviction diversity (PROTOCOL §9): the
    /// first three octets of an IPv4 address (a /24), the first 48 bits of an IPv6 address
    /// (a /48, read from its bytes: two addresses of one /48 may elide different zero
    /// groups), otherwise the whole address (the simulator's and tests' names). The port
    /// never counts: one host with many source ports is one group.
    var netgroup: String {
        let v = value
        guard let colon = v.lastIndex(of: ":") else { return v }
        let host = v[..<colon]
        if host.hasPrefix("[") && host.hasSuffix("]") {
            var addr = in6_addr()
            guard inet_pton(AF_INET6, String(host.dropFirst().dropLast()), &addr) == 1 else { return String(host) }
            return withUnsafeBytes(of: &addr) { b in "v6:" + b.prefix(6).map { String($0, radix: 16) }.joined(separator: ".") }
        }
        guard let lastDot = host.lastIndex(of: ".") else { return String(host) }
        return String(host[..<lastDot])
    }

    /// Whether this address is in canonical form.
    public var isCanonical: Bool { Self.canonical(value) == self }

    /// Whether a node may dial, introduce or keep this address (PROTOCOL §8): canonical and
    /// naming one unicast host (`isUnicastHost`). The filter a real node's engine applies to
    /// every address a peer names (`GossipEngine.addressFilter`).
    public var isDialable: Bool { isCanonical && isUnicastHost }

    /// Whether the host names one unicast host. Refused: IPv4 0.0.0.0/8 ("this network"),
    /// 224.0.0.0/4 (multicast), 240.0.0.0/4 (reserved, with the limited broadcast
    /// 255.255.255.255); IPv6 `::` and the rest of ::/96 but `::1` (unspecified, deprecated
    /// IPv4-compatible), ff00::/8 (multicast), fe80::/10 (link-local: a scope the wire cannot
    /// carry), and IPv4-mapped forms of the refused IPv4 ranges. Accepted: every other host,
    /// loopback (tests, one machine), private and shared ranges (LANs, carrier NATs) and
    /// IPv4 link-local included. A subnet's directed broadcast (192.168.1.255 on a /24) looks
    /// like a host from outside: the shell's send fails and is counted, nothing more
    /// (SkwadNode `UDPTransport`).
    public var isUnicastHost: Bool {
        guard let colon = value.lastIndex(of: ":") else { return false }
        let host = value[..<colon]
        if host.hasPrefix("[") && host.hasSuffix("]") {
            var addr = in6_addr()
            guard inet_pton(AF_INET6, String(host.dropFirst().dropLast()), &addr) == 1 else { return false }
            let b = withUnsafeBytes(of: &addr) { Array($0) }
            if b[0] == 0xff || (b[0] == 0xfe && b[1] & 0xc0 == 0x80) { return false }
            if b[0..<10].allSatisfy({ $0 == 0 }) && b[10] == 0xff && b[11] == 0xff { return Self.isUnicastV4(first: b[12]) }
            if b[0..<12].allSatisfy({ $0 == 0 }) { return b[12..<15].allSatisfy { $0 == 0 } && b[15] == 1 }
            return true
        }
        var addr = in_addr()
        guard inet_pton(AF_INET, String(host), &addr) == 1 else { return false }
        return withUnsafeBytes(of: &addr) { Self.isUnicastV4(first: $0[0]) }
    }

    /// An IPv4 host by its first octet: not 0.0.0.0/8, not 224.0.0.0/4 or above.
    private static func isUnicastV4(first: UInt8) -> Bool { first != 0 && first < 224 }

    private static func canonicalNumber(_ s: Substring, max: Int) -> Int? {
        guard !s.isEmpty, s.count <= 5, s.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        guard s == "0" || s.first != "0", let n = Int(s), n <= max else { return nil }
        return n
    }

    private static func ipv6RoundTrip(_ s: String) -> String? {
        var addr = in6_addr()
        guard inet_pton(AF_INET6, s, &addr) == 1 else { return nil }
        var buf = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        guard inet_ntop(AF_INET6, &addr, &buf, socklen_t(buf.count)) != nil else { return nil }
        return String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
