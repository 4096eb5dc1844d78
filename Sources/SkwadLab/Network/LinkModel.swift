import SkwadGossip

/// What becomes of one datagram on an in-memory link.
public enum LinkFate: Sendable, Equatable {
    /// Delivered at this virtual time (ms).
    case arrives(UInt64)
    case lost
    case partitioned
}

/// A pluggable model of the links of an in-memory network: when a datagram from node
/// `from` to node `to` arrives, or why not. Seeded models make runs reproducible. The
/// simulator's `NetworkModel` (latency by distance, jitter, loss, uplink cap, partitions)
/// is one; `UniformLatency` is the engine tests' one.
public protocol LinkModel {
    mutating func transmit(from: Int, to: Int, bytes: Int, nowMs: UInt64) -> LinkFate
}

/// Every link alike: a latency drawn uniformly from `latencyMs`, independent loss with
/// probability `loss`, all from one seeded generator.
public struct UniformLatency: LinkModel, Sendable {
    public var latencyMs: ClosedRange<UInt64>
    public var loss: Double
    public var rng: SplitMix

    public init(latencyMs: ClosedRange<UInt64> = 1...5, loss: Double = 0, seed: UInt64 = 7) {
        self.latencyMs = latencyMs; self.loss = loss; rng = SplitMix(seed: seed)
    }

    public mutating func transmit(from: Int, to: Int, bytes: Int, nowMs: UInt64) -> LinkFate {
        if loss > 0 && Double.random(in: 0..<1, using: &rng) < loss { return .lost }
        return .arrives(nowMs + UInt64.random(in: latencyMs, using: &rng))
    }
}
