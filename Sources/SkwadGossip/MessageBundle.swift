import SkwadModel
import SkwadReplica

/// Several messages to one peer in one DATA frame (PROTOCOL §8 "Bundles"): what one engine
/// call sends to a peer is held by the session layer until the call ends and then packed,
/// in order, as many to a frame as fit a datagram (SecureChannels `sealHeld`). On the wire,
/// `Message{bundle = 41: Bundle{repeated bytes messages = 1}}`, each element one whole encoded
/// message; written here by hand, exactly as SwiftProtobuf writes it (MessageWireTests).
enum MessageBundle {
    /// Messages in one bundle, at most; a bundle of more is dropped whole.
    static let maxMessages = 16
    /// The tag of `Message.bundle` (field 41, length-delimited) as a varint.
    static let tag: [UInt8] = [0xCA, 0x02]

    /// Bytes one message of `count` bytes takes inside a bundle.
    static func entrySize(_ count: Int) -> Int { 1 + Message.varintCount(count) + count }

    /// Bytes of a bundle whose entries take `content` bytes.
    static func size(content: Int) -> Int { tag.count + Message.varintCount(content) + content }

    /// The bundle of `messages` (encoded), whose entries take `content` bytes.
    static func encode(_ messages: [[UInt8]], content: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(size(content: content))
        out += tag
        Message.appendVarint(content, to: &out)
        for m in messages {
            out.append(1 << 3 | 2)
            Message.appendVarint(m.count, to: &out)
            out += m
        }
        return out
    }
}

extension GossipEngine {
    /// The end of every public call: what it sent on established sessions is sealed, bundled
    /// per peer. A frame for a relayed peer becomes a `Relay` message to its relay, itself
    /// held: sealed in the next turn.
    mutating func finish(nowMs: UInt64, into out: inout [GossipDirective]) {
        while channels.hasHeld { perform(channels.sealHeld(stats: &stats), nowMs: nowMs, into: &out) }
    }

    /// A bundle from `from`: 2 to `maxMessages` messages, none a bundle (either drops the whole
    /// datagram before any message is handled), each then handled in order as if it came
    /// alone. Each after the first takes a datagram from the sender's budget (its bytes came
    /// with the datagram): past it, the rest are dropped. A message that does not decode is
    /// dropped alone. What the handlers answer goes through the session layer like any reply,
    /// within an unproven address's 3× budget.
    mutating func receiveBundle(
        _ bundle: Skwad_Gossip_V1_Bundle, from: PeerAddress, nowMs: UInt64, replica: inout Replica,
        into out: inout [GossipDirective]
    ) {
        let count = bundle.messages.count
        guard count <= MessageBundle.maxMessages else { stats.drop(.bundleOverCap); return }
        guard count >= 2 else { stats.drop(.malformedMessage); return }
        var inner: [WireMessage?] = []
        inner.reserveCapacity(count)
        for bytes in bundle.messages {
            let wire = try? WireMessage(serializedBytes: bytes)
            if case .bundle? = wire?.body { stats.drop(.nestedBundle); return }
            inner.append(wire)
        }
        for (i, wire) in inner.enumerated() {
            if i > 0, !channels.takeBundled(from: from, nowMs: nowMs, stats: &stats) {
                for _ in i..<count { stats.drop(.rateLimited) }
                return
            }
            guard let wire else { stats.drop(.malformedMessage); continue }
            handle(wire, from: from, nowMs: nowMs, replica: &replica, into: &out)
        }
    }
}
