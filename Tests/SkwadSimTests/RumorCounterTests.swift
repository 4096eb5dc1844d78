import SkwadTestTraits
import Foundation
import Testing
import SkwadTestKit
@testable import SkwadSim

/// The counter variant of rumor mongering with feedback (Demers et al. §1.4, Table 1): a
/// site loses interest after k unnecessary contacts with no necessary one between them (a
/// necessary contact resets the counter). That remembers more than the memoryless coin
/// (lose interest with probability 1/k at each unnecessary contact), so it leaves fewer
/// sites uninformed: Table 1 gives a residue of 0.037 at k = 2 (N = 1000), while the coin's
/// mean-field residue is s = e^{-(k+1)(1-s)} ≈ 0.060. Measured here over seeds 1-6: counter
/// 0.045, coin 0.063; with the reset taken out the counter measured 0.058 (≈ the coin), which
/// fails both the ratio and the Table 1 band below.
@Suite(.heavy) struct RumorCounterTests {
    @Test func feedbackCounterResetsOnANecessaryContactAndLeavesLessResidueThanTheCoin() throws {
        let base = try scenarioFile("push.toml")
        var counter: [Double] = [], coin: [Double] = []
        for seed in UInt64(1)...6 {
            let s = try Scenario.load(
                tomlText: base,
                overrides: [
                    "strategy.strategies=[\"rumor-feedback-counter\", \"rumor-feedback-coin\"]", "strategy.rumor_k=2"
                ])
            let runs = runSimulation(scenario: s, seed: seed).runs
            counter.append(runs[0].residue); coin.append(runs[1].residue)
        }
        let c = counter.reduce(0, +) / Double(counter.count), k = coin.reduce(0, +) / Double(coin.count)
        #expect(c < 0.75 * k, "counter \(c) \(counter) vs coin \(k) \(coin)")
        #expect(c > 0.02 && c < 0.055, "counter residue \(c) vs Table 1's 0.037")
        #expect(k > 0.045 && k < 0.08, "coin residue \(k) vs mean field 0.060")
    }
}
