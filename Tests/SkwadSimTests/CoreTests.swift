import Testing
import SkwadTestKit
@testable import SkwadLab
@testable import SkwadSim

@Suite struct CoreTests {
    @Test func splitMixMatchesTheTestKit() {
        var a = SimRandom(seed: 42), b = SplitMix64(seed: 42)
        for _ in 0..<100 { #expect(a.next() == b.next()) }
    }

    @Test func boundedDrawsStayInRangeAndCoverIt() {
        var r = SimRandom(seed: 7)
        var seen = [Int](repeating: 0, count: 7)
        for _ in 0..<7_000 { seen[r.below(7)] += 1 }
        #expect(seen.allSatisfy { $0 > 850 && $0 < 1150 }, "\(seen)")
        for _ in 0..<1000 { let u = r.unit(); #expect(u >= 0 && u < 1) }
        let mean = (0..<20_000).map { _ in r.exponential(mean: 50) }.reduce(0, +) / 20_000
        #expect(abs(mean - 50) < 2, "\(mean)")
    }

    @Test func streamsAreIndependentAndStable() {
        var a = SimRandom.stream(1, 2, 3), b = SimRandom.stream(1, 2, 3), c = SimRandom.stream(1, 2, 4)
        let x = a.next()
        #expect(x == b.next())
        #expect(x != c.next())
    }

    @Test func queueOrdersByTimeThenScheduling() {
        var q = VirtualTimeQueue<SimEvent>()
        var r = SimRandom(seed: 3)
        var pushed: [(UInt64, Int32)] = []
        for i in 0..<2000 {
            let t = UInt64(r.below(50))
            q.push(time: t, kind: .sample, a: Int32(i))
            pushed.append((t, Int32(i)))
        }
        var popped: [(UInt64, Int32)] = []
        while let e = q.pop() { popped.append((e.time, e.payload.a)) }
        // Stable: equal times come out in the order they were pushed.
        let expected = pushed.enumerated().sorted { ($0.element.0, $0.offset) < ($1.element.0, $1.offset) }.map(\.element)
        #expect(popped.map(\.0) == expected.map(\.0))
        #expect(popped.map(\.1) == expected.map(\.1))
    }

    /// As a simulation uses it: each popped event schedules more from its time on, some at
    /// that same time, some beyond the ring's window. The order is (time, push order), as a
    /// plain sort of everything pushed gives it.
    @Test func queueKeepsOrderAcrossTheWindow() {
        var q = VirtualTimeQueue<SimEvent>()
        var r = SimRandom(seed: 5)
        var reference = TimeHeap<SimEvent>()  // the binary heap alone: (time, sequence) order
        var seq: UInt64 = 0
        func push(_ t: UInt64, _ i: Int32) {
            q.push(time: t, kind: .sample, a: i)
            reference.push(time: t, seq: seq, SimEvent(kind: .sample, node: 0, a: i, b: 0, c: 0))
            seq += 1
        }
        var n: Int32 = 0
        for _ in 0..<50 { push(UInt64(r.below(20_000)), n); n += 1 }
        var popped = 0
        while let e = q.pop() {
            let want = reference.pop()!
            #expect(e.time == want.time && e.payload.a == want.payload.a)
            popped += 1
            guard n < 20_000 else { continue }
            for _ in 0..<(1 + r.below(2)) {
                let delay: UInt64 = r.below(4) == 0 ? 0 : (r.below(5) == 0 ? UInt64(r.below(9_000)) : UInt64(r.below(30)))
                push(e.time + delay, n); n += 1
            }
        }
        #expect(reference.pop() == nil && popped == Int(n))
    }

    /// A burst in one millisecond does not keep its bucket's room once popped (a start's
    /// burst kept 50 MB in the 2,000-node metro): room for about what it last held stays.
    @Test func aBucketGivesUpTheRoomOfABurst() {
        var q = VirtualTimeQueue<SimEvent>()
        for i in 0..<10_000 { q.push(time: 5, kind: .sample, a: Int32(i)) }
        while q.pop() != nil {}
        for i in 0..<10 { q.push(time: 5 + VirtualTimeQueue<SimEvent>.window, kind: .sample, a: Int32(i)) }
        while q.pop() != nil {}
        #expect(q.ring[5].capacity <= 64, "\(q.ring[5].capacity) entries of room kept")
    }

    @Test func opBitsSetAlgebra() {
        var a = OpBits(), b = OpBits()
        for i: Int32 in [0, 5, 63, 64, 127, 128, 300] { a.insert(i) }
        for i: Int32 in [5, 64, 300, 301] { b.insert(i) }
        #expect(a.count == 7 && a.contains(300) && !a.contains(301))
        var members: [Int32] = []
        a.subtracting(b).forEach { members.append($0) }
        #expect(members == [0, 63, 127, 128])
        members = []
        a.intersection(b).forEach { members.append($0) }
        #expect(members == [5, 64, 300])
        var u = a
        u.formUnion(b)
        #expect(u.count == 8)
        u.remove(301); u.remove(300)
        #expect(u.count == 6 && !u.contains(300))
        #expect(OpBits().isEmpty && !a.isEmpty)
        var c = OpBits(); c.insert(500); c.remove(500)
        #expect(c == OpBits())
    }
}
