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

/// One hybrid clock per pack (PROTOCOL.md §3, clock hygiene): an op admitted from elsewhere
/// moves only the clock of its own pack, and never more than `maxLeadMs` ahead of wall
/// time, so a timestamp a node writes says nothing about ops it received in other packs
/// and little about the clocks of its neighbours. Pure: wall time is always passed in.
public struct PackClocks: Sendable {
    /// How far ahead of wall time an observed timestamp may carry a pack's clock.
    public static let defaultMaxLeadMs: UInt64 = 1_000
    public let maxLeadMs: UInt64
    private var clocks: [PackID: HybridClock] = [:]

    public init(maxLeadMs: UInt64 = PackClocks.defaultMaxLeadMs) { self.maxLeadMs = maxLeadMs }

    /// Timestamp for a local op in `pack` at wall time `physicalMs`.
    public mutating func tick(_ pack: PackID, physicalMs: UInt64) -> HLC {
        clocks[pack, default: HybridClock()].tick(physicalMs: physicalMs)
    }

    /// Merges a timestamp seen in `pack` (an admitted op, local or remote), bounded to
    /// `physicalMs + maxLeadMs`.
    public mutating func observe(_ hlc: HLC, in pack: PackID, physicalMs: UInt64) {
        let cap = HLC(physicalMs: physicalMs &+ maxLeadMs, counter: 0)
        clocks[pack, default: HybridClock()].observe(min(hlc, cap), physicalMs: physicalMs)
    }

    /// The last timestamp of `pack`'s clock (zero when it never ticked nor observed).
    public func last(_ pack: PackID) -> HLC { clocks[pack]?.last ?? .zero }

    /// Forgets a pack (purged).
    public mutating func remove(_ pack: PackID) { clocks[pack] = nil }
}
