import Testing
import SkwadModel
@testable import SkwadGossip
import SkwadTestKit

/// Two nodes that open a session to each other in the same instant: each holds its own as
/// current and the other's as pending. Each used to promote the other's on its first DATA
/// under it, so both swapped and neither could read the other until the silence timeout
/// dropped the pair (`IdleThenPostTests`). The session whose initiator key is lower now wins at
/// both ends (PROTOCOL §8).
@Suite struct CrossedHelloTests {
    @Test func helloesThatCrossSettleOnOneSessionWhateverTheLatencies() {
        var broken: [UInt64] = []
        for seed in UInt64(1)...40 {
            var h = Harness(count: 2, model: UniformLatency(latencyMs: 1...9, seed: seed))
            // Each joins through the other at once: both HELLOs leave together.
            h.start { i in [1 - i] }
            h.run(ms: 2_000)
            func failures() -> [Int] { h.nodes.map { ($0.engine.stats.drops["decryptFailed"] ?? 0) + $0.engine.stats.sessionsSilent } }
            let settled = failures()
            h.run(ms: 20_000)
            let linked = h.nodes[0].engine.isLink(Harness.address(1)) && h.nodes[1].engine.isLink(Harness.address(0))
            if failures() != settled || !linked { broken.append(seed) }
        }
        #expect(broken.isEmpty, "latency seeds whose pair could not read each other after 2 s: \(broken)")
    }
}
