import SkwadCrypto
import SkwadModel

/// Range-based set reconciliation (A. Meyer, "Range-Based Set Reconciliation", 2023; the
/// negentropy protocol) over one pack's ops sorted by (hlc, id). Pure and stateless per
/// message: each side answers the ranges it receives, so the exchange needs no session
/// state and survives loss (the next round repeats it). Bytes exchanged grow with the
/// size of the difference (times log of the set), not with the set.
public enum Reconciliation {
    /// A range boundary: the smallest key with this hlc and id prefix (zero padded).
    public struct Bound: Hashable, Sendable {
        public var hlc: UInt64
        public var prefix: [UInt8]
        public init(hlc: UInt64, prefix: [UInt8]) { self.hlc = hlc; self.prefix = prefix }
        public static let zero = Bound(hlc: 0, prefix: [])
        public static let infinity = Bound(hlc: .max, prefix: [])

        /// Is the item (hlc, id) below this bound?
        func above(_ hlc: UInt64, _ id: [UInt8]) -> Bool {
            if hlc != self.hlc { return hlc < self.hlc }
            for i in 0..<prefix.count {
                let b = i < id.count ? id[i] : 0
                if b != prefix[i] { return b < prefix[i] }
            }
            return false
        }
    }

    public enum Mode: Hashable, Sendable {
        case fingerprint([UInt8])
        case ids([OpID])
        case skip
    }

    /// One range: from the previous range's upper bound (or the message's lower bound) up to `upper`.
    public struct RangeMessage: Hashable, Sendable {
        public var upper: Bound
        public var mode: Mode
    }

    /// What answering a message produced.
    public struct Answer: Sendable {
        public var ranges: [RangeMessage] = []
        /// Ops the other side lacks: send them.
        public var have: [OpID] = []
        /// Ops this side lacks: ask for them.
        public var need: [OpID] = []
        /// True when every range is settled: no need to reply.
        public var done: Bool { ranges.allSatisfy { $0.mode == .skip } }
    }

    public static let branching = 16
    public static let idListThreshold = 16

    public typealias Item = (hlc: HLC, id: OpID)

    /// Fingerprint of a run of items: BLAKE2b-128(sum of ids as 256-bit little-endian
    /// integers mod 2^256 || count as 8 bytes little-endian).
    public static func fingerprint(_ items: ArraySlice<Item>) -> [UInt8] {
        var limbs = [UInt64](repeating: 0, count: 4)
        for item in items {
            var carry: UInt64 = 0
            item.id.bytes.withUnsafeBytes { raw in
                for l in 0..<4 {
                    let v = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: l * 8, as: UInt64.self))
                    let (s1, o1) = limbs[l].addingReportingOverflow(v)
                    let (s2, o2) = s1.addingReportingOverflow(carry)
                    limbs[l] = s2
                    carry = (o1 ? 1 : 0) + (o2 ? 1 : 0)
                }
            }
        }
        var bytes: [UInt8] = []
        for l in limbs { withUnsafeBytes(of: l.littleEndian) { bytes += $0 } }
        withUnsafeBytes(of: UInt64(items.count).littleEndian) { bytes += $0 }
        return Blake2b.hash(bytes, outputCount: 16)
    }

    /// Index of the first item not below `bound`.
    static func lowerIndex(_ items: [Item], _ bound: Bound) -> Int {
        var lo = 0, hi = items.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if bound.above(items[mid].hlc.raw, items[mid].id.bytes) { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// The shortest bound that separates items[i-1] from items[i].
    static func bound(between items: [Item], at i: Int) -> Bound {
        let cur = items[i]
        guard i > 0, items[i - 1].hlc == cur.hlc else { return Bound(hlc: cur.hlc.raw, prefix: []) }
        let prev = items[i - 1].id.bytes, b = cur.id.bytes
        var n = 0
        while n < 32 && prev[n] == b[n] { n += 1 }
        return Bound(hlc: cur.hlc.raw, prefix: Array(b[0...min(n, 31)]))
    }

    static func describe(_ items: [Item], _ lo: Int, _ hi: Int) -> Mode {
        hi - lo <= idListThreshold ? .ids(items[lo..<hi].map(\.id)) : .fingerprint(fingerprint(items[lo..<hi]))
    }

    /// Splits [lo, hi) into `branching` ranges by count, ending at `upper`.
    static func split(_ items: [Item], _ lo: Int, _ hi: Int, upper: Bound) -> [RangeMessage] {
        let n = hi - lo
        guard n > idListThreshold else { return [RangeMessage(upper: upper, mode: describe(items, lo, hi))] }
        var out: [RangeMessage] = []
        var start = lo
        for k in 1...branching {
            let end = k == branching ? hi : lo + n * k / branching
            guard end > start else { continue }
            let up = end == hi ? upper : bound(between: items, at: end)
            out.append(RangeMessage(upper: up, mode: describe(items, start, end)))
            start = end
        }
        return out
    }

    /// The opening message: the whole set's fingerprint, as one range. Most rounds find the
    /// sets equal, and then this is all that travels (an id list of up to 16 ids, as before,
    /// cost up to 512 bytes a round); a difference costs one more round trip.
    public static func initiate(_ items: [Item]) -> [RangeMessage] { initiate(fingerprint: fingerprint(items[...])) }

    /// The opening message of a set whose fingerprint is known.
    public static func initiate(fingerprint: [UInt8]) -> [RangeMessage] {
        [RangeMessage(upper: .infinity, mode: .fingerprint(fingerprint))]
    }

    /// Answers the ranges of one message starting at `lower`.
    public static func answer(_ items: [Item], lower: Bound, ranges: [RangeMessage]) -> Answer {
        var out = Answer()
        var lo = lowerIndex(items, lower)
        for r in ranges {
            let hi = max(lo, lowerIndex(items, r.upper))
            switch r.mode {
            case .skip:
                out.ranges.append(RangeMessage(upper: r.upper, mode: .skip))
            case .fingerprint(let fp):
                if fingerprint(items[lo..<hi]) == fp {
                    out.ranges.append(RangeMessage(upper: r.upper, mode: .skip))
                } else {
                    out.ranges += split(items, lo, hi, upper: r.upper)
                }
            case .ids(let theirs):
                let mine = items[lo..<hi].map(\.id)
                let theirSet = Set(theirs), mySet = Set(mine)
                out.have += mine.filter { !theirSet.contains($0) }
                out.need += theirs.filter { !mySet.contains($0) }
                out.ranges.append(RangeMessage(upper: r.upper, mode: .skip))
            }
            lo = hi
        }
        // Merge runs of skips so replies stay small.
        var merged: [RangeMessage] = []
        for r in out.ranges {
            if r.mode == .skip, let last = merged.last, last.mode == .skip {
                merged[merged.count - 1].upper = r.upper
            } else {
                merged.append(r)
            }
        }
        out.ranges = merged
        return out
    }
}
