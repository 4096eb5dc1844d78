import Foundation
import Testing
@testable import SkwadSim

@Suite struct ReportTests {
    @Test func jsonCsvAndSvgCarryTheRun() throws {
        let s = try scenario(smallCampus, ["strategy.strategies=[\"push\", \"push-pull\"]", "duration_ms=20000"])
        let result = simulate(scenario: s, seed: 1)
        let decoded = try JSONSerialization.jsonObject(with: result.report.json()) as? [String: Any]
        let runs = try #require(decoded?["runs"] as? [[String: Any]])
        #expect(runs.count == 2)
        #expect(runs[0]["geofence_leaks"] as? Int == 0)
        #expect(runs[0]["delivery_latency_ms"] != nil && runs[0]["relative_message_redundancy"] != nil)

        let csv = result.csv().split(separator: "\n")
        #expect(csv.first == "strategy,time_ms,ops_created,coverage,ops_fully_covered,messages,bytes,online_nodes")
        #expect(csv.count == 1 + result.outcomes.reduce(0) { $0 + $1.samples.count })
        #expect(csv.dropFirst().allSatisfy { $0.split(separator: ",").count == 8 })

        let svg = result.svg()
        #expect(svg.hasPrefix("<?xml") && svg.hasSuffix("</svg>\n"))
        #expect(svg.contains("virtual time (s)") && svg.contains("coverage of eligible nodes (%)"))
        #expect(svg.contains(">push<") && svg.contains(">push-pull<"))
        #expect(svg.components(separatedBy: "<polyline").count == 3)
    }

    @Test func distributionsAndSteps() {
        let d = Distribution.of((1...100).map(Double.init))
        #expect(d.count == 100 && d.mean == 50.5 && d.max == 100 && d.p50 == 51 && d.p99 == 99)
        #expect(Distribution.of([]).count == 0)
        #expect(niceStep(7.3) == 10 && niceStep(0.3) == 0.5 && niceStep(1.5) == 2)
    }

    @Test func progressIsReported() throws {
        let s = try scenario(smallCampus, ["duration_ms=5000"])
        var seen: [SimProgress] = []
        _ = runSimulation(scenario: s, seed: 1) { seen.append($0) }
        #expect(seen.count == 6)
        #expect(seen.last?.fraction == 1)
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.nowMs < $1.nowMs })
    }
}
