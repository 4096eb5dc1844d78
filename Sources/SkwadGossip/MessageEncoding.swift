/// The protobuf bytes of the most frequent messages, written by hand: exactly what
/// SwiftProtobuf writes for them (fields in number order, proto3 defaults left out, every
/// element of a repeated `bytes` field written, even an empty one), without building the
/// generated message and its `Data` copies. IHAVE, ops and Want are most of the
/// messages a node sends. MessageWireTests checks the bytes against SwiftProtobuf's.
extension Message {
    /// nil: encode through `wire` (MessageWire.swift).
    var handEncoded: [UInt8]? {
        switch self {
        case .ops(let envelopes, let repair): Self.encode(field: 12, envelopes, flag: repair)
        case .ihave(let ids): Self.encode(field: 13, ids, flag: false)
        case .want(let ids, let graft): Self.encode(field: 14, ids, flag: graft)
        case .prune: [15 << 3 | 2, 0]
        default: nil
        }
    }

    /// `Message{field: {repeated bytes items = 1; bool flag = 2}}` (a field number below 16:
    /// one tag byte).
    private static func encode(field: UInt8, _ items: [[UInt8]], flag: Bool) -> [UInt8] {
        var inner = flag ? 2 : 0
        for b in items { inner += 1 + varintCount(b.count) + b.count }
        var out: [UInt8] = []
        out.reserveCapacity(1 + varintCount(inner) + inner)
        out.append(field << 3 | 2)
        appendVarint(inner, to: &out)
        for b in items {
            out.append(1 << 3 | 2)
            appendVarint(b.count, to: &out)
            out.append(contentsOf: b)
        }
        if flag { out.append(2 << 3 | 0); out.append(1) }
        return out
    }

    static func varintCount(_ n: Int) -> Int {
        var n = UInt(n), c = 1
        while n >= 0x80 { n >>= 7; c += 1 }
        return c
    }

    static func appendVarint(_ n: Int, to out: inout [UInt8]) {
        var n = UInt(n)
        while n >= 0x80 { out.append(UInt8(truncatingIfNeeded: n) | 0x80); n >>= 7 }
        out.append(UInt8(n))
    }
}
