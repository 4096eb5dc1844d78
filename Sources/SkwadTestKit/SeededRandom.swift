import SkwadGossip

/// The seeded generator tests use: the same SplitMix64 the gossip engine is injected with.
public typealias SplitMix64 = SplitMix

/// A clock advanced by hand, in milliseconds since the Unix epoch.
public struct ManualClock: Sendable {
    public var nowMs: UInt64
    public init(nowMs: UInt64 = 1_790_000_000_000) { self.nowMs = nowMs }
    public mutating func advance(ms: UInt64) { nowMs += ms }
}
