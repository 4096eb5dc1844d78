import SkwadCrypto
import SkwadGossip
import SkwadReplica

/// A peer that speaks the real wire protocol (PROTOCOL §8), written from the spec and not
/// from the engine's code, and that will send anything: well-formed handshakes and DATA
/// frames carrying any `Message` bytes, raw frames with chosen counters, HELLOs sprayed
/// from many addresses. It drives a real `GossipEngine` in pure tests and fuzzers.
public struct HostilePeer: Sendable {
    public let address: PeerAddress
    public private(set) var kx: KxKeyPair
    public private(set) var tx: [UInt8] = []
    public private(set) var rx: [UInt8] = []
    /// The counter of the last DATA frame sealed.
    public var counter: UInt64 = 0
    public private(set) var cookie: [UInt8]?

    public static let helloSize = 200, welcomeSize = 52, cookieSize = 36, dataHeader = 12

    public init(address: PeerAddress, seed: UInt64) {
        self.address = address
        var r = SplitMix(seed: seed)
        kx = try! KxKeyPair(seed: r.bytes(32))
    }

    public var hasSession: Bool { !tx.isEmpty }

    /// The session binding (PROTOCOL §9 "Contact codes"): BLAKE2b-256 of
    /// "skwad/session-binding/v1" and the two direction keys in byte order.
    public var binding: [UInt8] {
        let (low, high) = rx.lexicographicallyPrecedes(tx) ? (rx, tx) : (tx, rx)
        return Blake2b.hash256(Array("skwad/session-binding/v1".utf8) + low + high)
    }

    public static func header(_ type: UInt8) -> [UInt8] { [0x53, 0x4B, 1, type] }

    /// A HELLO for our key (or `key`), echoing `cookie` when given.
    public func hello(cookie: [UInt8]? = nil, key: [UInt8]? = nil) -> [UInt8] {
        var f = Self.header(1) + (key ?? kx.publicKey) + (cookie ?? self.cookie ?? [UInt8](repeating: 0, count: 16))
        f += [UInt8](repeating: 0, count: Self.helloSize - f.count)
        return f
    }

    /// Takes the engine's answer to our HELLO: a WELCOME (keys derived, true) or a COOKIE
    /// (remembered for the next HELLO, false).
    public mutating func accept(_ frame: [UInt8]) -> Bool {
        let echo = Blake2b.hash(kx.publicKey, outputCount: 16)
        if frame.count == Self.welcomeSize, frame.starts(with: Self.header(2)), Array(frame[36..<52]) == echo,
            let keys = try? kx.clientSessionKeys(serverPublicKey: Array(frame[4..<36]))
        {
            tx = keys.tx; rx = keys.rx; counter = 0
            return true
        }
        if frame.count == Self.cookieSize, frame.starts(with: Self.header(4)), Array(frame[20..<36]) == echo {
            cookie = Array(frame[4..<20])
        }
        return false
    }

    /// A DATA frame sealing `plaintext` (a serialized `Message`, or anything) under our
    /// session, with the next counter or the one given.
    public mutating func seal(_ plaintext: [UInt8], counter chosen: UInt64? = nil) -> [UInt8] {
        let c = chosen ?? (counter &+ 1)
        if chosen == nil { counter = c }
        let header = Self.header(3) + Self.bigEndian(c)
        let nonce = [UInt8](repeating: 0, count: 16) + Self.bigEndian(c)
        return header + ((try? AEAD.seal(plaintext, additionalData: header, nonce: nonce, key: tx)) ?? [])
    }

    /// Decrypts a DATA frame the engine sent us.
    public func open(_ frame: [UInt8]) -> [UInt8]? {
        guard frame.count > Self.dataHeader + AEAD.tagCount, frame.starts(with: Self.header(3)) else { return nil }
        let nonce = [UInt8](repeating: 0, count: 16) + Array(frame[4..<12])
        return try? AEAD.open(Array(frame[12...]), additionalData: Array(frame[0..<12]), nonce: nonce, key: rx)
    }

    /// The messages a DATA frame the engine sent us carries: a bundle's one by one (PROTOCOL
    /// §8 "Bundles"), or its one message; none when it does not open.
    public func messages(in frame: [UInt8]) -> [[UInt8]] { open(frame).map(WireForge.messages) ?? [] }

    /// A DATA frame with a chosen counter and bytes that are not a valid ciphertext.
    public static func forgedData(counter: UInt64, payload: [UInt8] = [UInt8](repeating: 0xAA, count: 40)) -> [UInt8] {
        header(3) + bigEndian(counter) + payload
    }

    static func bigEndian(_ c: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: c >> (56 - 8 * $0)) } }

    /// Datagrams the engine sent to `to`.
    public static func sent(_ ds: [GossipDirective], to: PeerAddress) -> [[UInt8]] {
        ds.compactMap { if case .send(let b, let a) = $0, a == to { b } else { nil } }
    }

    /// Runs a handshake with `engine` (answering one COOKIE if asked). True when keys are set.
    @discardableResult
    public mutating func handshake(with engine: inout GossipEngine, nowMs: UInt64, replica: inout Replica) -> Bool {
        for _ in 0..<2 {
            let answers = Self.sent(engine.receive(datagram: hello(), from: address, nowMs: nowMs, replica: &replica), to: address)
            for a in answers where accept(a) { return true }
            guard cookie != nil else { return false }
        }
        return false
    }

    /// Delivers one sealed message; returns what the engine answered.
    public mutating func send(
        _ plaintext: [UInt8], to engine: inout GossipEngine, nowMs: UInt64, replica: inout Replica
    ) -> [GossipDirective] {
        engine.receive(datagram: seal(plaintext), from: address, nowMs: nowMs, replica: &replica)
    }

    /// HELLOs with fresh keys from `count` addresses made by `address(i)`; returns every
    /// directive the engine answered.
    public static func sprayHellos(
        count: Int, address: (Int) -> PeerAddress, into engine: inout GossipEngine, nowMs: UInt64,
        replica: inout Replica, seed: UInt64 = 1
    ) -> [GossipDirective] {
        var r = SplitMix(seed: seed)
        var out: [GossipDirective] = []
        for i in 0..<count {
            var f = header(1) + r.bytes(32)
            f += [UInt8](repeating: 0, count: helloSize - f.count)
            out += engine.receive(datagram: f, from: address(i), nowMs: nowMs, replica: &replica)
        }
        return out
    }
}
