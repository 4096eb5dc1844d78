import SkwadGossip
import SkwadModel

/// Node addresses of in-memory networks (engine tests and the simulator): "n<index>".
public enum MemoryAddress {
    public static func of(_ i: Int) -> PeerAddress { PeerAddress("n\(i)") }
    /// The node index an address names; nil for any other string.
    public static func index(_ a: PeerAddress) -> Int? {
        guard a.value.first == "n", let i = Int(a.value.dropFirst()), i >= 0 else { return nil }
        return i
    }
}

/// Carries out a `GossipEngine`'s directives for a driver without sockets: the one piece of
/// logic shared by `InMemoryNetwork` (engine tests) and the simulator's engine adapter.
/// Sends go to a node index (addresses that name none are dropped, as an unreachable
/// address would be), `scheduleTick` goes through the node's `TickTimer`, admitted ops and
/// peer changes are handed on.
public struct DirectiveCarrier: Sendable {
    public var timer = TickTimer()

    public init() {}

    /// What the directives asked for, through the closures, in directive order.
    /// - `send(bytes, toIndex)`: one datagram to a node of the network;
    /// - `timer(generation, afterMs)`: a new live tick timer (older ones are stale);
    /// - `admitted(op)`: the engine admitted `op` into the replica;
    /// - `peer(address, up)`: a link came up or went down.
    public mutating func carry(
        _ directives: [GossipDirective], nowMs: UInt64,
        send: (_ bytes: [UInt8], _ to: Int) -> Void,
        timer schedule: (_ generation: UInt32, _ afterMs: UInt64) -> Void = { _, _ in },
        admitted: (SignedOp) -> Void = { _ in },
        peer: (PeerAddress, _ up: Bool) -> Void = { _, _ in },
        picture: (GossipDirective) -> Void = { _ in }
    ) {
        for d in directives {
            switch d {
            case .send(let bytes, let to):
                guard let j = MemoryAddress.index(to) else { continue }
                send(bytes, j)
            case .scheduleTick(let after):
                // Saturating: a wire-independent engine value, but never a trap.
                let (due, overflow) = nowMs.addingReportingOverflow(after)
                if let g = timer.request(dueMs: overflow ? .max : due) { schedule(g, after) }
            case .admitted(let op):
                admitted(op)
            case .peerUp(let p):
                peer(p, true)
            case .peerDown(let p):
                peer(p, false)
            case .blocksWanted, .blockReceived, .pictureComplete:
                picture(d)
            }
        }
    }
}
