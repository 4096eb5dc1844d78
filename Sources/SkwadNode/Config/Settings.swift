import Foundation
import TOMLKit

/// One setting a node operator may change, stated once: its TOML key (inside `table`, nil for
/// the top level), its documentation, and how its value is written (`write`, from the config:
/// the generated default file shows the default), read and checked (`read`). Its default is
/// the default of the `NodeConfig` property it sets. `NodeConfig.settings` lists them all:
/// `NodeConfig.defaultTOML` (`skwad config`) is generated from that list and `NodeConfig.parse`
/// reads through it.
public struct Setting {
    public let table: String?
    public let key: String
    /// Comment lines written above the key (without "# ").
    public let doc: [String]
    /// The value of `config` as TOML text; nil when unset (then `example` is written, commented out).
    let write: (NodeConfig) -> String?
    /// A value shown commented out for a setting with no default value (a path, a location).
    let example: String?
    /// A valid value other than the default (TOML text): the settings tests set it.
    public let sample: String
    let read: (inout NodeConfig, TOMLValueConvertible, SettingReader) throws -> Void

    /// "table.key", or the key at the top level.
    public var name: String { table.map { "\($0).\(key)" } ?? key }

    /// The line the generated file holds for this setting under `config`.
    func line(_ config: NodeConfig) -> String {
        if let v = write(config) { return "\(key) = \(v)" }
        return "# \(key) = \(example ?? "")"
    }
}

/// What a setting's `read` is given besides its value: how to report a bad value, and the
/// directory relative paths are taken from.
struct SettingReader {
    let key: String
    let baseDir: String?
    let bad: (_ key: String, _ what: String) -> ConfigError

    func fail(_ what: String) -> ConfigError { bad(key, what) }

    /// `~/` expanded; relative paths taken from `baseDir`.
    func path(_ p: String) -> String {
        let expanded = p.hasPrefix("~/") ? (ProcessInfo.processInfo.environment["HOME"] ?? ".") + p.dropFirst(1) : p
        guard let baseDir, !expanded.hasPrefix("/") else { return expanded }
        return baseDir + "/" + expanded
    }

    func strings(_ v: TOMLValueConvertible) throws -> [String] {
        guard let arr = v.array else { throw fail("expected an array of strings") }
        return try arr.map { v in
            guard let s = v.string else { throw fail("expected an array of strings") }
            return s
        }
    }
}

/// The kinds of settings, each with its check. Every constructor takes the property the
/// setting sets; its default is that property's default.
extension Setting {
    static func integer<V: BinaryInteger & Sendable>(
        table: String? = nil, _ key: String, _ property: WritableKeyPath<NodeConfig, V>, _ range: ClosedRange<Int>,
        unit: String? = nil, doc: [String]
    ) -> Setting {
        let d = Int(NodeConfig.embeddedDefault[keyPath: property])
        return Setting(
            table: table, key: key, doc: doc, write: { "\($0[keyPath: property])" }, example: nil,
            sample: "\(d == range.upperBound ? range.lowerBound : range.upperBound)",
            read: { c, v, r in
                guard let n = v.int, range.contains(n) else {
                    throw r.fail("expected an integer \(range.lowerBound)...\(range.upperBound)" + (unit.map { " (\($0))" } ?? ""))
                }
                c[keyPath: property] = V(n)
            })
    }

    static func flag(table: String? = nil, _ key: String, _ property: WritableKeyPath<NodeConfig, Bool>, doc: [String]) -> Setting {
        Setting(
            table: table, key: key, doc: doc, write: { "\($0[keyPath: property])" }, example: nil,
            sample: "\(!NodeConfig.embeddedDefault[keyPath: property])",
            read: { c, v, r in
                guard let b = v.bool else { throw r.fail("expected true or false") }
                c[keyPath: property] = b
            })
    }

    /// A positive number (an integer is taken as one), at most `max` when given.
    static func positive(
        table: String? = nil, _ key: String, _ property: WritableKeyPath<NodeConfig, Double>, doc: [String]
    ) -> Setting {
        Setting(
            table: table, key: key, doc: doc, write: { tomlNumber($0[keyPath: property]) }, example: nil,
            sample: tomlNumber(NodeConfig.embeddedDefault[keyPath: property] * 2),
            read: { c, v, r in
                guard let n = v.double ?? v.int.map(Double.init), n > 0 else { throw r.fail("expected a positive number") }
                c[keyPath: property] = n
            })
    }

    /// A text; `check` refuses a bad one with a reason. Unset (nil) shows `example`.
    static func text(
        table: String? = nil, _ key: String, _ property: WritableKeyPath<NodeConfig, String?>, example: String, sample: String,
        doc: [String], check: @escaping (String, SettingReader) throws -> String
    ) -> Setting {
        Setting(
            table: table, key: key, doc: doc, write: { $0[keyPath: property].map(tomlString) }, example: tomlString(example),
            sample: tomlString(sample),
            read: { c, v, r in
                guard let s = v.string else { throw r.fail("expected a string") }
                c[keyPath: property] = try check(s, r)
            })
    }

    /// An array of texts, each checked by `check` (which may refuse it with a reason).
    static func texts(
        table: String? = nil, _ key: String, _ property: WritableKeyPath<NodeConfig, [String]>, sample: String, doc: [String],
        check: @escaping (String, SettingReader) throws -> Void = { _, _ in }
    ) -> Setting {
        Setting(
            table: table, key: key, doc: doc, write: { "[" + $0[keyPath: property].map(tomlString).joined(separator: ", ") + "]" },
            example: nil, sample: "[\(tomlString(sample))]",
            read: { c, v, r in
                let all = try r.strings(v)
                for s in all { try check(s, r) }
                c[keyPath: property] = all
            })
    }

    /// One of a fixed set of words.
    static func choice<E: RawRepresentable & CaseIterable>(
        table: String? = nil, _ key: String, _ property: WritableKeyPath<NodeConfig, E>, doc: [String]
    ) -> Setting where E.RawValue == String {
        let words = E.allCases.map(\.rawValue)
        let d = NodeConfig.embeddedDefault[keyPath: property].rawValue
        return Setting(
            table: table, key: key, doc: doc, write: { tomlString($0[keyPath: property].rawValue) }, example: nil,
            sample: tomlString(words.first { $0 != d } ?? d),
            read: { c, v, r in
                guard let s = v.string, let e = E(rawValue: s) else {
                    throw r.fail("expected " + words.map { "\"\($0)\"" }.joined(separator: " or "))
                }
                c[keyPath: property] = e
            })
    }
}

/// A TOML number: an integer when whole, a float otherwise.
func tomlNumber(_ d: Double) -> String {
    d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : String(d)
}

/// A TOML basic string.
func tomlString(_ s: String) -> String {
    var out = "\""
    for u in s.unicodeScalars {
        switch u {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\t": out += "\\t"
        case _ where u.value < 0x20 || u.value == 0x7F: out += String(format: "\\u%04X", u.value)
        default: out.unicodeScalars.append(u)
        }
    }
    return out + "\""
}

extension NodeConfig {
    /// The settings tree's tables, in the order the generated file shows them, each with the
    /// comment above its header.
    static var settingTables: [String] { settings.compactMap(\.table).reduce(into: []) { if !$0.contains($1) { $0.append($1) } } }

    /// The TOML text of `config` in the settings' order, every key documented: with the
    /// embedded default, the file `skwad config` prints.
    static func toml(_ config: NodeConfig, header: [String] = []) -> String {
        var out = header.map { "# " + $0 }
        func add(_ s: Setting) {
            out.append("")
            out += s.doc.map { "# " + $0 }
            out.append(s.line(config))
        }
        for s in settings where s.table == nil { add(s) }
        for t in settingTables {
            out += ["", "[\(t)]"]
            for s in settings where s.table == t { add(s) }
        }
        return out.joined(separator: "\n")
    }

    /// Reads `table` through the settings over the embedded default; unknown keys and bad
    /// values are one-line errors naming the key (`bad`).
    static func read(
        _ table: TOMLTable, baseDir: String?, bad: @escaping (_ key: String, _ what: String) -> ConfigError
    ) throws -> NodeConfig {
        var c = NodeConfig.embeddedDefault
        let top = settings.filter { $0.table == nil }.map(\.key) + settingTables
        for key in table.keys.sorted() where !top.contains(key) {
            throw bad(key, "unknown key (known: \(top.sorted().joined(separator: ", ")))")
        }
        for t in settingTables where table.contains(key: t) {
            guard let sub = table[t]?.table else { throw bad(t, "expected a [\(t)] table") }
            let known = settings.filter { $0.table == t }.map(\.key)
            for key in sub.keys.sorted() where !known.contains(key) {
                throw bad(key, "unknown key in [\(t)] (known: \(known.sorted().joined(separator: ", ")))")
            }
        }
        for s in settings {
            let holder = s.table.map { table[$0]?.table } ?? table
            guard let holder, holder.contains(key: s.key), let v = holder[s.key] else { continue }
            try s.read(&c, v, SettingReader(key: s.key, baseDir: baseDir, bad: bad))
        }
        return c
    }
}
