import TOMLKit

/// A one-line, readable scenario error.
public struct ScenarioError: Error, CustomStringConvertible, Equatable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A plain value tree copied out of TOMLKit, so that `--set` overrides can be applied and
/// every key checked, whatever TOMLKit's own table type allows.
indirect enum TomlValue: Equatable {
    case int(Int), double(Double), string(String), bool(Bool), array([TomlValue]), table([String: TomlValue])

    static func parse(_ text: String) throws -> [String: TomlValue] {
        let table: TOMLTable
        do { table = try TOMLTable(string: text) } catch let e as TOMLParseError {
            throw ScenarioError("scenario: \(e.description) at line \(e.source.begin.line), column \(e.source.begin.column)")
        } catch { throw ScenarioError("scenario: \(error)") }
        return try convert(table)
    }

    static func convert(_ t: TOMLTable) throws -> [String: TomlValue] {
        var out: [String: TomlValue] = [:]
        for key in t.keys { if let v = t[key] { out[key] = try convert(v, key) } }
        return out
    }

    static func convert(_ v: TOMLValueConvertible, _ key: String) throws -> TomlValue {
        switch v.type {
        case .int: return .int(v.int ?? 0)
        case .double: return .double(v.double ?? 0)
        case .string: return .string(v.string ?? "")
        case .bool: return .bool(v.bool ?? false)
        case .table: return .table(try v.table.map(convert) ?? [:])
        case .array: return .array(try (v.array.map { Array($0) } ?? []).map { try convert($0, key) })
        case .date, .time, .dateTime: throw ScenarioError("scenario: key '\(key)': dates and times are not used in scenarios")
        }
    }

    /// Parses the VALUE of `--set KEY=VALUE` as a TOML value; anything that is not valid TOML
    /// is taken as a bare string (so `--set strategy.phase=random` works without quotes).
    static func parseOverrideValue(_ text: String) -> TomlValue {
        if let t = try? TOMLTable(string: "v = \(text)"), let v = t["v"], let value = try? convert(v, "v") { return value }
        return .string(text)
    }

    var typeName: String {
        switch self {
        case .int: "an integer"
        case .double: "a number"
        case .string: "a string"
        case .bool: "a boolean"
        case .array: "an array"
        case .table: "a table"
        }
    }
}

/// Applies `KEY=VALUE` overrides to a value tree. KEY is a dotted path; a numeric segment
/// indexes an array of tables (`partition.0.heal_ms`).
func applyOverrides(_ overrides: [String], to root: inout [String: TomlValue]) throws {
    for o in overrides {
        guard let eq = o.firstIndex(of: "=") else { throw ScenarioError("--set \(o): expected KEY=VALUE") }
        let key = String(o[..<eq]).trimmingCharacters(in: .whitespaces)
        let value = TomlValue.parseOverrideValue(String(o[o.index(after: eq)...]).trimmingCharacters(in: .whitespaces))
        let path = key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !path.isEmpty, !path.contains(where: \.isEmpty) else { throw ScenarioError("--set \(o): bad key '\(key)'") }
        var node = TomlValue.table(root)
        try set(&node, path[...], value, whole: key)
        if case .table(let t) = node { root = t }
    }
}

private func set(_ node: inout TomlValue, _ path: ArraySlice<String>, _ value: TomlValue, whole: String) throws {
    guard let head = path.first else { node = value; return }
    switch node {
    case .table(var t):
        var child = t[head] ?? .table([:])
        if path.count == 1 { child = value } else { try set(&child, path.dropFirst(), value, whole: whole) }
        t[head] = child
        node = .table(t)
    case .array(var a):
        guard let i = Int(head), a.indices.contains(i) else {
            throw ScenarioError("--set \(whole): '\(head)' is not an index of that array (0..<\(a.count))")
        }
        if path.count == 1 { a[i] = value } else { try set(&a[i], path.dropFirst(), value, whole: whole) }
        node = .array(a)
    default:
        throw ScenarioError("--set \(whole): '\(head)' is inside \(node.typeName), not a table")
    }
}

/// Reads one table, remembering which keys were read; `finish()` rejects the rest by name.
struct TableReader {
    let path: String
    let table: [String: TomlValue]
    private var known: [String] = []

    init(_ table: [String: TomlValue], path: String) { self.table = table; self.path = path }

    func full(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    func bad(_ key: String, _ what: String) -> ScenarioError { ScenarioError("scenario: key '\(full(key))': \(what)") }

    mutating func value(_ key: String) -> TomlValue? { known.append(key); return table[key] }

    mutating func int(_ key: String, _ def: Int, _ range: ClosedRange<Int> = 0...Int.max) throws -> Int {
        guard let v = value(key) else { return def }
        guard case .int(let n) = v else { throw bad(key, "expected an integer, got \(v.typeName)") }
        guard range.contains(n) else { throw bad(key, "expected an integer in \(range.lowerBound)...\(range.upperBound), got \(n)") }
        return n
    }

    mutating func ms(_ key: String, _ def: UInt64) throws -> UInt64 {
        UInt64(try int(key, Int(def), 0...Int(Int64.max / 2)))
    }

    mutating func double(_ key: String, _ def: Double, _ range: ClosedRange<Double> = 0...Double.greatestFiniteMagnitude) throws -> Double {
        guard let v = value(key) else { return def }
        let d: Double
        switch v {
        case .int(let n): d = Double(n)
        case .double(let x): d = x
        default: throw bad(key, "expected a number, got \(v.typeName)")
        }
        guard d.isFinite, range.contains(d) else {
            throw bad(key, "expected a number in \(range.lowerBound)...\(range.upperBound), got \(d)")
        }
        return d
    }

    mutating func bool(_ key: String, _ def: Bool) throws -> Bool {
        guard let v = value(key) else { return def }
        guard case .bool(let b) = v else { throw bad(key, "expected true or false, got \(v.typeName)") }
        return b
    }

    mutating func string(_ key: String, _ def: String) throws -> String {
        guard let v = value(key) else { return def }
        guard case .string(let s) = v else { throw bad(key, "expected a string, got \(v.typeName)") }
        return s
    }

    mutating func choice<E: RawRepresentable & CaseIterable>(_ key: String, _ def: E) throws -> E where E.RawValue == String {
        let s = try string(key, def.rawValue)
        guard let e = E(rawValue: s) else {
            throw bad(key, "expected one of \(E.allCases.map(\.rawValue).joined(separator: ", ")), got '\(s)'")
        }
        return e
    }

    mutating func numbers(_ key: String, count: Int) throws -> [Double]? {
        guard let v = value(key) else { return nil }
        guard case .array(let a) = v, a.count == count else { throw bad(key, "expected an array of \(count) numbers") }
        return try a.map { x in
            switch x {
            case .int(let n): return Double(n)
            case .double(let d) where d.isFinite: return d
            default: throw bad(key, "expected an array of \(count) numbers")
            }
        }
    }

    mutating func strings(_ key: String) throws -> [String]? {
        guard let v = value(key) else { return nil }
        if case .string(let s) = v { return [s] }
        guard case .array(let a) = v else { throw bad(key, "expected an array of strings") }
        return try a.map { x in
            guard case .string(let s) = x else { throw bad(key, "expected an array of strings") }; return s
        }
    }

    mutating func subtable(_ key: String) throws -> TableReader? {
        guard let v = value(key) else { return nil }
        guard case .table(let t) = v else { throw bad(key, "expected a [\(full(key))] table") }
        return TableReader(t, path: full(key))
    }

    mutating func tableArray(_ key: String) throws -> [TableReader] {
        guard let v = value(key) else { return [] }
        guard case .array(let a) = v else { throw bad(key, "expected [[\(full(key))]] tables") }
        return try a.enumerated().map { i, x in
            guard case .table(let t) = x else { throw bad(key, "expected [[\(full(key))]] tables") }
            return TableReader(t, path: "\(full(key)).\(i)")
        }
    }

    func finish() throws {
        let knownSet = Set(known)
        for key in table.keys.sorted() where !knownSet.contains(key) {
            throw ScenarioError("scenario: unknown key '\(full(key))' (known: \(known.sorted().joined(separator: ", ")))")
        }
    }
}
