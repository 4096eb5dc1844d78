import SkwadGossip
@testable import SkwadNode
import Testing

/// The settings tree (`NodeConfig.settings`) is the one statement of every config key: the
/// default file is generated from it and parsing reads through it.
@Suite struct SettingsTests {
    /// Every key line of the generated default file (commented out or not), as "table.key".
    static func keyLines(_ text: String) -> [String] {
        var table: String?
        var out: [String] = []
        for raw in text.split(separator: "\n") {
            let line = String(raw)
            if line.hasPrefix("[") { table = String(line.dropFirst().dropLast()); continue }
            let body = line.hasPrefix("# ") ? String(line.dropFirst(2)) : line
            guard let eq = body.range(of: " = "), body[..<eq.lowerBound].allSatisfy({ $0.isLetter || $0 == "_" }) else { continue }
            let key = String(body[..<eq.lowerBound])
            out.append(table.map { "\($0).\(key)" } ?? key)
        }
        return out
    }

    @Test func theDefaultFileHoldsEverySettingOnceAndNothingElse() throws {
        let names = NodeConfig.settings.map(\.name)
        #expect(Set(names).count == names.count)
        #expect(Self.keyLines(NodeConfig.defaultTOML) == names)
        for s in NodeConfig.settings { #expect(!s.doc.isEmpty, "\(s.name) has no documentation") }
        // The generated file parses back to exactly the default tree.
        #expect(try NodeConfig.parse(NodeConfig.defaultTOML) == NodeConfig.embeddedDefault)
    }

    /// Each setting, set to a value other than its default, changes the config, and the file
    /// written from that config reads back to it.
    @Test func eachSettingIsReadAndWrittenBack() throws {
        for s in NodeConfig.settings {
            let text = (s.table.map { "[\($0)]\n" } ?? "") + "\(s.key) = \(s.sample)\n"
            let c = try NodeConfig.parse(text)
            #expect(c != NodeConfig.embeddedDefault, "\(s.name) = \(s.sample) changed nothing")
            #expect(try NodeConfig.parse(NodeConfig.toml(c)) == c, "\(s.name) does not read back")
        }
    }

    /// A property added to `NodeConfig` must be a setting, or be named here as not one.
    @Test func everyPropertyIsSetByASettingOrIsNoConfigKey() throws {
        let notKeys: Set<String> = ["store", "powFloors", "configFile"]
        func fields(_ c: NodeConfig) -> [String: String] {
            Dictionary(uniqueKeysWithValues: Mirror(reflecting: c).children.map { ($0.label ?? "", String(describing: $0.value)) })
        }
        let base = fields(NodeConfig.embeddedDefault)
        var reached = Set<String>()
        for s in NodeConfig.settings {
            let c = try NodeConfig.parse((s.table.map { "[\($0)]\n" } ?? "") + "\(s.key) = \(s.sample)\n")
            for (label, value) in fields(c) where base[label] != value { reached.insert(label) }
        }
        #expect(Set(base.keys).subtracting(notKeys) == reached)
        #expect(reached.isDisjoint(with: notKeys))
    }

    @Test func aBadValueIsOneLineNamingTheKey() {
        func message(_ text: String) -> String {
            do { _ = try NodeConfig.parse(text); return "" } catch { return "\(error)" }
        }
        #expect(
            message("[limits]\npicture_store_mb = 2000000") == "config: key 'picture_store_mb' (line 2): expected at most 1048576 (1 TiB)")
        #expect(message("[pictures]\nfetch = \"later\"") == "config: key 'fetch' (line 2): expected \"arrival\" or \"shown\"")
        #expect(
            message("max_clock_skew_ms = 5") == "config: key 'max_clock_skew_ms' (line 1): expected an integer 1000...300000 (milliseconds)"
        )
        #expect(message("limits = 3") == "config: key 'limits' (line 1): expected a [limits] table")
    }
}
