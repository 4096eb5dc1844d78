/// Hybrid logical clock timestamp (Kulkarni et al., "Logical Physical Clocks", 2014):
/// 48 bits of physical milliseconds since the Unix epoch and a 16-bit counter, packed in
/// one UInt64 so that numeric order is causal-then-physical order.
public struct HLC: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let raw: UInt64

    public init(raw: UInt64) { self.raw = raw }
    public init(physicalMs: UInt64, counter: UInt16) {
        raw = (physicalMs & 0xFFFF_FFFF_FFFF) << 16 | UInt64(counter)
    }

    public var physicalMs: UInt64 { raw >> 16 }
    public var counter: UInt16 { UInt16(truncatingIfNeeded: raw) }

    public static let zero = HLC(raw: 0)
    public static func < (a: HLC, b: HLC) -> Bool { a.raw < b.raw }
    public var description: String { "\(physicalMs).\(counter)" }
}

/// The clock state of one node. Pure: physical time is always passed in.
public struct HybridClock: Sendable {
    public private(set) var last: HLC = .zero

    public init(last: HLC = .zero) { self.last = last }

    /// Timestamp for a local event at wall time `physicalMs`.
    public mutating func tick(physicalMs: UInt64) -> HLC {
        let lastMs = last.physicalMs
        if physicalMs > lastMs {
            last = HLC(physicalMs: physicalMs, counter: 0)
        } else if last.counter == UInt16.max {
            last = HLC(physicalMs: lastMs + 1, counter: 0)
        } else {
            last = HLC(physicalMs: lastMs, counter: last.counter + 1)
        }
        return last
    }

    /// Merge a timestamp received from elsewhere (only ones admitted, so never far ahead).
    public mutating func observe(_ remote: HLC, physicalMs: UInt64) {
        let candidate = max(last, remote)
        if HLC(physicalMs: physicalMs, counter: 0) > candidate {
            last = HLC(physicalMs: physicalMs, counter: 0)
        } else {
            last = candidate
        }
    }
}
