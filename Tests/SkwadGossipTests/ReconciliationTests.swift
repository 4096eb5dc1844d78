import Testing
import SkwadModel
@testable import SkwadGossip
import SkwadTestKit

@Suite struct ReconciliationTests {
    typealias Item = Reconciliation.Item

    static func items(_ n: Int, rng: inout SplitMix64, sameHLCEvery: Int = 7) -> [Item] {
        var out: [Item] = []
        var ms: UInt64 = 1_000
        for i in 0..<n {
            if i % sameHLCEvery != 0 { ms += 1 }
            out.append((HLC(physicalMs: ms, counter: 0), try! OpID(bytes: rng.bytes(32))))
        }
        return out.sorted { ($0.hlc, $0.id) < ($1.hlc, $1.id) }
    }

    /// Runs the exchange to completion; returns what each side learned it must send and
    /// fetch, the rounds, and a rough count of bytes on the wire.
    static func run(_ a: [Item], _ b: [Item]) -> (aSends: Set<OpID>, bSends: Set<OpID>, rounds: Int, bytes: Int) {
        var msg = Reconciliation.initiate(a)
        var turnB = true
        var aSends = Set<OpID>(), bSends = Set<OpID>()
        var rounds = 0, bytes = 0
        func size(_ rs: [Reconciliation.RangeMessage]) -> Int {
            rs.reduce(0) { n, r in
                switch r.mode {
                case .skip: n + 12
                case .fingerprint: n + 12 + 16
                case .ids(let ids): n + 12 + 32 * ids.count
                }
            }
        }
        bytes += size(msg)
        while rounds < 50 {
            rounds += 1
            let ans = Reconciliation.answer(turnB ? b : a, lower: .zero, ranges: msg)
            if turnB {
                bSends.formUnion(ans.have); aSends.formUnion(ans.need)
            } else {
                aSends.formUnion(ans.have); bSends.formUnion(ans.need)
            }
            if ans.done { break }
            msg = ans.ranges
            bytes += size(msg)
            turnB.toggle()
        }
        return (aSends, bSends, rounds, bytes)
    }

    @Test(arguments: [(0, 0, 0), (50, 3, 0), (500, 0, 20), (2000, 17, 17), (3000, 1, 0), (10, 200, 300)])
    func findsExactlyTheDifference(shared: Int, onlyA: Int, onlyB: Int) {
        var rng = SplitMix64(seed: UInt64(shared * 31 + onlyA * 7 + onlyB))
        let common = Self.items(shared, rng: &rng), extraA = Self.items(onlyA, rng: &rng), extraB = Self.items(onlyB, rng: &rng)
        let a = (common + extraA).sorted { ($0.hlc, $0.id) < ($1.hlc, $1.id) }
        let b = (common + extraB).sorted { ($0.hlc, $0.id) < ($1.hlc, $1.id) }
        let r = Self.run(a, b)
        #expect(r.aSends == Set(extraA.map(\.id)))
        #expect(r.bSends == Set(extraB.map(\.id)))
        #expect(r.rounds < 12)
    }

    /// Most rounds find the sets equal: then one fingerprint and one skip travel, whatever
    /// the set's size (a small set was opened with its whole id list before, §11).
    @Test(arguments: [1, 10, 16, 17, 500])
    func equalSetsCostOneFingerprint(n: Int) {
        var rng = SplitMix64(seed: UInt64(n))
        let a = Self.items(n, rng: &rng)
        let r = Self.run(a, a)
        #expect(r.rounds == 1)
        #expect(r.bytes == 12 + 16)
        #expect(r.aSends.isEmpty && r.bSends.isEmpty)
    }

    @Test func bytesFollowTheDifferenceNotTheSet() {
        var rng = SplitMix64(seed: 99)
        func cost(_ n: Int, diff: Int) -> Int {
            let common = Self.items(n, rng: &rng), extra = Self.items(diff, rng: &rng)
            return Self.run(common, (common + extra).sorted { ($0.hlc, $0.id) < ($1.hlc, $1.id) }).bytes
        }
        let small = cost(1_000, diff: 5), big = cost(20_000, diff: 5), wide = cost(1_000, diff: 200)
        // 20x the set costs far less than 20x the bytes; 40x the difference costs clearly more
        // (each missing id crosses the wire at least once).
        #expect(big < small * 4)
        #expect(wide > small * 2 && wide >= 200 * 32)
        // Identical sets of 20,000 settle in one round trip of one fingerprint.
        let same = Self.items(20_000, rng: &rng)
        #expect(Self.run(same, same).bytes < 100)
        // Sending the whole id list would cost 32 bytes per item.
        #expect(big < 20_000 * 32 / 20)
    }

    @Test func boundsSeparateItemsWithTheSameHLC() throws {
        let h = HLC(physicalMs: 5, counter: 0)
        let x = try OpID(bytes: [0x12, 0x34] + [UInt8](repeating: 0, count: 30)),
            y = try OpID(bytes: [0x12, 0x35] + [UInt8](repeating: 0, count: 30))
        let items: [Item] = [(h, x), (h, y)]
        let b = Reconciliation.bound(between: items, at: 1)
        #expect(b.prefix == [0x12, 0x35])
        #expect(Reconciliation.lowerIndex(items, b) == 1)
        #expect(Reconciliation.lowerIndex(items, .zero) == 0 && Reconciliation.lowerIndex(items, .infinity) == 2)
    }
}
