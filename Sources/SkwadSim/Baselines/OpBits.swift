/// A set of a pack's ops, by their index within the pack. The first 128 live inline, so a
/// message about a small pack needs no heap allocation.
public struct OpBits: Equatable, Sendable {
    private var w0: UInt64 = 0
    private var w1: UInt64 = 0
    private var more: [UInt64] = []

    public init() {}

    @inline(__always) private func word(_ i: Int) -> UInt64 {
        i == 0 ? w0 : i == 1 ? w1 : (i - 2 < more.count ? more[i - 2] : 0)
    }

    @inline(__always) private mutating func setWord(_ i: Int, _ v: UInt64) {
        if i == 0 {
            w0 = v
        } else if i == 1 {
            w1 = v
        } else {
            if i - 2 >= more.count {
                guard v != 0 else { return }
                more.append(contentsOf: repeatElement(0, count: i - 2 - more.count + 1))
            }
            more[i - 2] = v
        }
    }

    private var wordCount: Int { 2 + more.count }

    public func contains(_ i: Int32) -> Bool { word(Int(i) >> 6) & (1 << UInt64(i & 63)) != 0 }

    public mutating func insert(_ i: Int32) {
        let w = Int(i) >> 6
        setWord(w, word(w) | (1 << UInt64(i & 63)))
    }

    public mutating func remove(_ i: Int32) {
        let w = Int(i) >> 6
        setWord(w, word(w) & ~(1 << UInt64(i & 63)))
    }

    public var isEmpty: Bool { w0 == 0 && w1 == 0 && more.allSatisfy { $0 == 0 } }
    public var count: Int { w0.nonzeroBitCount + w1.nonzeroBitCount + more.reduce(0) { $0 + $1.nonzeroBitCount } }

    /// Members of `self` not in `other`.
    public func subtracting(_ other: OpBits) -> OpBits {
        var out = OpBits()
        out.w0 = w0 & ~other.w0
        out.w1 = w1 & ~other.w1
        if !more.isEmpty {
            out.more = more.indices.map { more[$0] & ~other.word($0 + 2) }
        }
        return out
    }

    public func intersection(_ other: OpBits) -> OpBits {
        var out = OpBits()
        out.w0 = w0 & other.w0
        out.w1 = w1 & other.w1
        if !more.isEmpty {
            out.more = more.indices.map { more[$0] & other.word($0 + 2) }
        }
        return out
    }

    public mutating func formUnion(_ other: OpBits) {
        w0 |= other.w0
        w1 |= other.w1
        for i in other.more.indices where other.more[i] != 0 { setWord(i + 2, word(i + 2) | other.more[i]) }
    }

    public static func == (a: OpBits, b: OpBits) -> Bool {
        (0..<max(a.wordCount, b.wordCount)).allSatisfy { a.word($0) == b.word($0) }
    }

    /// Calls `body` with every member, ascending.
    public func forEach(_ body: (Int32) -> Void) {
        for w in 0..<wordCount {
            var x = word(w)
            while x != 0 {
                let b = x.trailingZeroBitCount
                body(Int32(w * 64 + b))
                x &= x - 1
            }
        }
    }
}
