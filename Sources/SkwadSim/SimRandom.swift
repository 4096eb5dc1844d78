import Foundation
import SkwadGossip

/// The simulator's draws over the engine's SplitMix64 (`SplitMix`, SkwadGossip): one seeded
/// generator in the project. Every draw helper is our own, so results do not change with
/// the standard library's sampling algorithms.
public struct SimRandom: Sendable {
    private var base: SplitMix

    public init(seed: UInt64) { base = SplitMix(seed: seed) }

    public mutating func next() -> UInt64 { base.next() }

    /// An independent stream for a named part of the run (placement, workload, node 17...).
    public static func stream(_ seed: UInt64, _ purpose: UInt64, _ index: UInt64 = 0) -> SimRandom {
        var mixer = SimRandom(seed: seed ^ (purpose &* 0xD1B5_4A32_D192_ED03) ^ (index &* 0x8CB9_2BA7_2F3D_8DD7))
        _ = mixer.next()
        return SimRandom(seed: mixer.next())
    }

    /// Uniform in 0..<n (n > 0), unbiased (Lemire 2019, multiply-shift with rejection).
    public mutating func below(_ n: Int) -> Int {
        precondition(n > 0)
        let bound = UInt64(n)
        var m = next().multipliedFullWidth(by: bound)
        if m.low < bound {
            let threshold = (0 &- bound) % bound
            while m.low < threshold { m = next().multipliedFullWidth(by: bound) }
        }
        return Int(m.high)
    }

    /// Uniform in [0, 1).
    public mutating func unit() -> Double { Double(next() >> 11) * 0x1p-53 }

    /// Uniform in [a, b).
    public mutating func uniform(_ a: Double, _ b: Double) -> Double { a + (b - a) * unit() }

    /// True with probability p.
    public mutating func chance(_ p: Double) -> Bool { p > 0 && unit() < p }

    /// Exponentially distributed with the given mean (inter-arrival time of a Poisson process).
    public mutating func exponential(mean: Double) -> Double { -mean * log(1 - unit()) }

    public mutating func bytes(_ n: Int) -> [UInt8] { base.bytes(n) }
}
