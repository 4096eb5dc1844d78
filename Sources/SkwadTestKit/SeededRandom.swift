/// SplitMix64 (Steele, Lea, Flood 2014): a small, fast, seedable generator for tests and
/// simulations. Never used where secrecy matters.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    public mutating func bytes(_ n: Int) -> [UInt8] {
        (0..<n).map { _ in UInt8.random(in: 0...255, using: &self) }
    }
}

/// A clock advanced by hand, in milliseconds since the Unix epoch.
public struct ManualClock: Sendable {
    public var nowMs: UInt64
    public init(nowMs: UInt64 = 1_790_000_000_000) { self.nowMs = nowMs }
    public mutating func advance(ms: UInt64) { nowMs += ms }
}
