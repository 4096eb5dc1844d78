import Testing
@testable import SkwadSim

@Suite struct ScenarioTests {
    @Test func parsesEveryTable() throws {
        let s = try scenario(
            smallCampus + """

                [network]
                loss = 0.3
                bandwidth_bytes_per_s = 125000

                [[partition]]
                start_ms = 5000
                heal_ms = 15000
                by = "campus"

                [churn]
                fraction = 0.25
                keep_data = 0
                """)
        #expect(s.name == "small-campus")
        #expect(s.nodes.count == 160 && s.nodes.placement == .campuses)
        #expect(s.campuses.map(\.name) == ["west", "east"])
        #expect(s.packs.radiusMinMeters == 300 && s.packs.radiusMaxMeters == 900 && s.packs.lockedFraction == 0.5)
        #expect(s.network.loss == 0.3 && s.network.bandwidthBytesPerSecond == 125_000)
        #expect(s.partitions == [Scenario.Partition(startMs: 5000, healMs: 15000, by: .campus, groups: 2)])
        #expect(s.churn?.fraction == 0.25 && s.churn?.keepData == 0)
        #expect(s.strategy.strategies == [.pushPull])
    }

    @Test func unknownKeysAreNamed() {
        #expect(throws: ScenarioError.self) { try scenario("lossy = 1") }
        do { _ = try scenario("[network]\nlos = 0.3"); Issue.record("accepted an unknown key") } catch {
            #expect("\(error)".contains("'network.los'"))
        }
        do { _ = try scenario(smallCampus + "\n[[partition]]\nstart_ms = 1\nhael_ms = 2"); Issue.record("accepted an unknown key") } catch {
            #expect("\(error)".contains("'partition.0.hael_ms'"))
        }
    }

    @Test func badValuesAreNamed() {
        for (text, key) in [
            ("[network]\nloss = 1.5", "network.loss"), ("[network]\nloss = \"high\"", "network.loss"),
            ("[strategy]\nstrategies = [\"gossip-magic\"]", "strategy.strategies"),
            ("[nodes]\nplacement = \"campuses\"", "nodes.placement"), ("duration_ms = -5", "duration_ms"),
            ("[packs]\nradius_m = [900, 300]", "packs.radius_m")
        ] {
            do { _ = try scenario(text); Issue.record("accepted \(text)") } catch { #expect("\(error)".contains("'\(key)'"), "\(error)") }
        }
        #expect(throws: ScenarioError.self) { try scenario("name = [") }
    }

    @Test func overridesApply() throws {
        let s = try scenario(
            smallCampus + "\n[[partition]]\nstart_ms = 1000\nheal_ms = 2000",
            [
                "network.loss=0.3", "nodes.count=42", "strategy.strategies=[\"push\", \"rumor-blind-coin\"]",
                "strategy.phase=random", "partition.0.heal_ms=9000", "name=\"renamed\"", "churn.fraction=0.1"
            ])
        #expect(s.network.loss == 0.3)
        #expect(s.nodes.count == 42)
        #expect(s.strategy.strategies == [.push, .rumor(feedback: false, coin: true)])
        #expect(s.strategy.phase == .random)
        #expect(s.partitions[0].healMs == 9000)
        #expect(s.name == "renamed")
        #expect(s.churn?.fraction == 0.1)
        do { _ = try scenario(smallCampus, ["network.lossy=0.3"]); Issue.record("accepted an unknown override") } catch {
            #expect("\(error)".contains("'network.lossy'"))
        }
        #expect(throws: ScenarioError.self) { try scenario(smallCampus, ["no-equals-sign"]) }
        #expect(throws: ScenarioError.self) { try scenario(smallCampus, ["partition.3.heal_ms=1"]) }
    }

    @Test func strategyNamesRoundTrip() {
        for k in StrategyKind.all { #expect(StrategyKind(name: k.description) == k) }
        #expect(StrategyKind(name: "rumor-feedback-counter") == .rumor(feedback: true, coin: false))
        #expect(StrategyKind(name: "nope") == nil)
    }
}
