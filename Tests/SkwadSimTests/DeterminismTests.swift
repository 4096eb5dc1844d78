import SkwadTestTraits
import Foundation
import Testing
@testable import SkwadSim

@Suite(.heavy) struct DeterminismTests {
    static let busy = [
        "network.loss=0.1", "network.bandwidth_bytes_per_s=200000", "churn.fraction=0.2", "churn.end_ms=25000",
        "strategy.strategies=[\"push-pull\", \"rumor-feedback-coin\", \"pull\"]", "strategy.phase=random"
    ]

    @Test func sameSeedSameBytes() throws {
        let s = try scenario(smallCampus + "\n[[partition]]\nstart_ms = 3000\nheal_ms = 12000\nby = \"random\"\n", Self.busy)
        let a = simulate(scenario: s, seed: 11), b = simulate(scenario: s, seed: 11)
        #expect(a.report.json() == b.report.json())
        #expect(a.csv() == b.csv())
        #expect(a.svg() == b.svg())
        #expect(a.report.runs.count == 3 && a.report.runs.allSatisfy { $0.events > 1000 })
        let c = simulate(scenario: s, seed: 12)
        #expect(c.report.json() != a.report.json())
    }

    @Test func theWorldIsSharedByStrategies() throws {
        let s = try scenario(smallCampus, ["strategy.strategies=[\"push\", \"push-pull\"]"])
        let r = runSimulation(scenario: s, seed: 2)
        #expect(r.runs[0].opsCreated == r.runs[1].opsCreated && r.runs[0].opsCreated == r.ops)
        // Every op is verified for real once; the second strategy and every other node hit the memo.
        #expect(r.signatureChecks <= r.ops && r.signatureChecks > 0)
        #expect(r.signatureChecksMemoized > 0)
    }
}

/// The simulator on two threads (ParallelWindow.swift) gives the report, time series and
/// final replicas of one thread, byte for byte: Skwad's engine and the baselines, under loss,
/// churn and a partition (events that end a window), and the signature counts too.
@Suite(.heavy) struct ParallelWindowTests {
    @Test func twoThreadsGiveTheBytesOfOne() throws {
        let text = smallCampus + "\n[[partition]]\nstart_ms = 3000\nheal_ms = 9000\nby = \"random\"\n"
        for strategies in ["[\"skwad\"]", "[\"push-pull\", \"rumor-feedback-coin\"]"] {
            let s = try scenario(
                text,
                [
                    "strategy.strategies=\(strategies)", "duration_ms=20000", "network.loss=0.05", "churn.fraction=0.2",
                    "churn.end_ms=15000"
                ])
            let one = simulate(scenario: s, seed: 21, threads: 1), two = simulate(scenario: s, seed: 21, threads: 2)
            #expect(one.report.json() == two.report.json(), "\(strategies)")
            #expect(one.csv() == two.csv())
            #expect(one.report.runs.allSatisfy { $0.events > 1_000 })
            for (a, b) in zip(one.outcomes, two.outcomes) {
                #expect(a.replicas.map(\.allOps.count) == b.replicas.map(\.allOps.count))
            }
        }
    }
}
