/// Gossip `Message`s (proto/skwad_gossip.proto, PROTOCOL §9–11) written and read byte by
/// byte from the .proto field numbers, not with the engine's generated types: what a
/// hostile client that never saw the engine's code would send. The bytes go into a DATA
/// frame with `HostilePeer.seal`. Only what attacks need is here.
public enum WireForge {
    // MARK: writing

    static func varint(_ v: UInt64) -> [UInt8] {
        var v = v, out: [UInt8] = []
        while v >= 0x80 { out.append(UInt8(truncatingIfNeeded: v) | 0x80); v >>= 7 }
        out.append(UInt8(v))
        return out
    }
    static func field(_ n: UInt64, varint v: UInt64) -> [UInt8] { varint(n << 3) + varint(v) }
    static func field(_ n: UInt64, bytes b: [UInt8]) -> [UInt8] { varint(n << 3 | 2) + varint(UInt64(b.count)) + b }
    static func field(_ n: UInt64, string s: String) -> [UInt8] { field(n, bytes: Array(s.utf8)) }
    /// A `Message` whose `body` oneof holds field `n` with these bytes.
    static func message(_ n: UInt64, _ body: [UInt8]) -> [UInt8] { field(n, bytes: body) }

    /// `NodeInfo{cell, subscriptions}`.
    public static func nodeInfo(cell: String, subscriptions: [[UInt8]] = []) -> [UInt8] {
        field(1, string: cell) + subscriptions.flatMap { field(2, bytes: $0) }
    }
    static func peer(_ address: String, cell: String) -> [UInt8] { field(1, string: address) + field(2, string: cell) }

    public static func join(cell: String) -> [UInt8] { message(1, field(1, bytes: nodeInfo(cell: cell))) }
    public static func forwardJoin(joiner: String, cell: String, ttl: UInt32) -> [UInt8] {
        message(2, field(1, bytes: peer(joiner, cell: cell)) + field(2, varint: UInt64(ttl)))
    }
    public static func neighbor(highPriority: Bool, cell: String, origin: String = "", ttl: UInt32 = 0) -> [UInt8] {
        message(
            3,
            field(1, varint: highPriority ? 1 : 0) + field(2, bytes: nodeInfo(cell: cell)) + field(3, string: origin)
                + field(4, varint: UInt64(ttl)))
    }
    public static func shuffle(origin: String, cell: String, ttl: UInt32, peers: [(String, String)]) -> [UInt8] {
        message(
            6,
            field(1, bytes: peer(origin, cell: cell)) + field(2, varint: UInt64(ttl))
                + peers.flatMap { field(3, bytes: peer($0.0, cell: $0.1)) })
    }
    public static func ping(seq: UInt64, cell: String) -> [UInt8] {
        message(8, field(1, varint: seq) + field(2, bytes: nodeInfo(cell: cell)))
    }
    public static func ack(seq: UInt64, cell: String) -> [UInt8] {
        message(9, field(1, varint: seq) + field(2, bytes: nodeInfo(cell: cell)))
    }
    public static func introduce(peer: String, padding: Int) -> [UInt8] {
        message(30, field(1, string: peer) + field(2, bytes: [UInt8](repeating: 0, count: padding)))
    }
    public static func ops(_ envelopes: [[UInt8]]) -> [UInt8] { message(12, envelopes.flatMap { field(1, bytes: $0) }) }
    public static func ihave(_ ids: [[UInt8]]) -> [UInt8] { message(13, ids.flatMap { field(1, bytes: $0) }) }
    public static func interest(cell: String) -> [UInt8] { message(17, nodeInfo(cell: cell)) }
    public static func stem(_ envelope: [UInt8]) -> [UInt8] { message(20, field(1, bytes: envelope)) }
    /// `BlockWant{root, indexes, wait}` (packed or not, any count: what the wire may carry).
    public static func blockWant(root: [UInt8], indexes: [UInt64], wait: Bool = false) -> [UInt8] {
        message(21, field(1, bytes: root) + indexes.flatMap { field(2, varint: $0) } + (wait ? field(3, varint: 1) : []))
    }
    /// `Block{root, index, data}`.
    public static func block(root: [UInt8], index: UInt64, data: [UInt8]) -> [UInt8] {
        message(22, field(1, bytes: root) + field(2, varint: index) + field(3, bytes: data))
    }
    /// `Bundle{repeated bytes messages}` (PROTOCOL §8 "Bundles"): any messages, any number of
    /// them, bundles too.
    public static func bundle(_ messages: [[UInt8]]) -> [UInt8] { message(41, messages.flatMap { field(1, bytes: $0) }) }

    // MARK: reading

    /// Field numbers of `Message.body` this file reads.
    public enum Body: UInt64 { case ping = 8, ops = 12, ihave = 13, want = 14, stem = 20, bundle = 41 }

    /// One field: its number and either a varint or length-delimited bytes.
    public struct Field: Sendable {
        public let number: UInt64
        public let varint: UInt64?
        public let bytes: [UInt8]?
    }

    /// The top-level fields of a protobuf message; nil if it does not parse (fixed-width
    /// fields are skipped, groups refused). Never traps on any input.
    public static func fields(_ b: [UInt8]) -> [Field]? {
        var i = 0, out: [Field] = []
        func readVarint() -> UInt64? {
            var v: UInt64 = 0, shift: UInt64 = 0
            while i < b.count, shift < 64 {
                let x = b[i]; i += 1
                v |= UInt64(x & 0x7F) << shift
                if x < 0x80 { return v }
                shift += 7
            }
            return nil
        }
        while i < b.count {
            guard let key = readVarint() else { return nil }
            let n = key >> 3
            switch key & 7 {
            case 0: guard let v = readVarint() else { return nil }; out.append(Field(number: n, varint: v, bytes: nil))
            case 1: guard b.count - i >= 8 else { return nil }; i += 8
            case 2:
                guard let len = readVarint(), len <= UInt64(b.count - i) else { return nil }
                out.append(Field(number: n, varint: nil, bytes: Array(b[i..<i + Int(len)]))); i += Int(len)
            case 5: guard b.count - i >= 4 else { return nil }; i += 4
            default: return nil
            }
        }
        return out
    }

    /// The body of a `Message`: its field number and bytes.
    public static func body(_ message: [UInt8]) -> (number: UInt64, bytes: [UInt8])? {
        guard let f = fields(message)?.last, let b = f.bytes else { return nil }
        return (f.number, b)
    }

    /// The messages a plaintext carries: a bundle's, in order, or the plaintext itself.
    public static func messages(_ plaintext: [UInt8]) -> [[UInt8]] {
        guard let (n, b) = body(plaintext), n == Body.bundle.rawValue else { return [plaintext] }
        return fields(b)?.compactMap { $0.number == 1 ? $0.bytes : nil } ?? []
    }

    /// The seq of a `Ping` body.
    public static func pingSeq(_ body: [UInt8]) -> UInt64? { fields(body)?.first { $0.number == 1 }?.varint }
    /// The envelopes of an `Ops` body, or the one of a `Stem` body.
    public static func envelopes(_ body: [UInt8]) -> [[UInt8]] { fields(body)?.compactMap { $0.number == 1 ? $0.bytes : nil } ?? [] }
}
