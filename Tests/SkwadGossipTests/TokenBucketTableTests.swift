import Testing
@testable import SkwadGossip

/// A table of token buckets (the per-pseudonym limits) forgets the buckets that have refilled
/// before its storage grows: it stays the size of the buckets in use, and what a kept bucket
/// allows does not change.
@Suite struct TokenBucketTableTests {
    /// A table at its storage's capacity, each bucket having given `taken` tokens at 0 ms.
    static func fullTable(taken: Int) -> [Int: TokenBucket] {
        var table: [Int: TokenBucket] = [:]
        table.reserveCapacity(12)
        var k = 0
        while table.count < table.capacity {
            table[k] = TokenBucket(rate: 2, burst: 120, nowMs: 0)
            for _ in 0..<taken { _ = table[k]!.take(1, nowMs: 0) }
            k += 1
        }
        return table
    }

    @Test func aFullTableForgetsOnlyRefilledBucketsBeforeGrowing() {
        var table = Self.fullTable(taken: 1)
        let full = table.count
        // One bucket drained at 900 ms: not refilled at 1,000 ms (the rest are, after 0.5 s).
        for _ in 0..<100 { _ = table[0]!.take(1, nowMs: 900) }
        let drained = table[0]!
        table.forgetRefilledBeforeGrowing(nowMs: 1_000)
        #expect(full > 1 && table.count == 1)
        #expect(table[0]!.tokens == drained.tokens && table[0]!.lastMs == drained.lastMs)
        // Below its capacity the table is left as it is.
        var small: [Int: TokenBucket] = [0: TokenBucket(rate: 2, burst: 120, nowMs: 0)]
        small.reserveCapacity(8)
        small.forgetRefilledBeforeGrowing(nowMs: 10_000)
        #expect(small.count == 1)
    }

    /// A pass that frees little leaves room to double: the next keys cost no pass each.
    @Test func aPassThatFreesLittleLeavesRoomToDouble() {
        var table = Self.fullTable(taken: 100)  // drained: none refills by 1 s
        let full = table.count
        table.forgetRefilledBeforeGrowing(nowMs: 1_000)
        #expect(table.count == full)
        #expect(table.capacity >= 2 * full)
    }
}
