import Foundation
import Testing
import SkwadCrypto
import SkwadModel
import SkwadReplica
@testable import SkwadNode
import SkwadTestKit

@Suite struct PackClocksTests {
    @Test func observeIsBoundedAndPerPack() {
        var c = PackClocks()
        let p1 = OpID.of(body: [1]), p2 = OpID.of(body: [2])
        c.observe(HLC(physicalMs: 10_000_000, counter: 3), in: p1, physicalMs: 1_000)
        #expect(c.last(p1) == HLC(physicalMs: 1_000 + PackClocks.defaultMaxLeadMs, counter: 0))
        #expect(c.tick(p2, physicalMs: 1_000) == HLC(physicalMs: 1_000, counter: 0))
        #expect(c.tick(p1, physicalMs: 1_000) == HLC(physicalMs: 2_000, counter: 1))
    }
}
