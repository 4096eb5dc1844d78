import Foundation

/// A command line's words after the verb, taken one parameter at a time: positional words and
/// `--options` (with their values) leave the list as they are read; what is left is an error.
struct Args {
    let verb: String
    var words: [Tokenizer.Token]

    var usage: String { Registry.usage(of: verb) }

    func index(of option: String) -> Int? { words.firstIndex { $0.isOption && $0.text == option } }

    mutating func take(_ name: String) -> (present: Bool, value: String?)? {
        guard let i = index(of: name) else { return nil }
        words.remove(at: i)
        guard i < words.count, !words[i].isOption else { return (true, nil) }
        return (true, words.remove(at: i).text)
    }

    mutating func flag(_ name: String) -> Bool {
        guard let i = index(of: name) else { return false }
        words.remove(at: i); return true
    }

    mutating func value(_ name: String) throws -> String? {
        guard let t = take(name) else { return nil }
        guard let v = t.value else { throw CommandError("\(name) needs a value; usage: \(usage)") }
        return v
    }

    mutating func double(_ name: String) throws -> Double? {
        guard let v = try value(name) else { return nil }
        guard let d = Double(v), d.isFinite else { throw CommandError("\(name) expects a number, got '\(clip(v))'") }
        return d
    }

    mutating func int(_ name: String) throws -> Int? {
        guard let v = try value(name) else { return nil }
        guard let n = Int(v) else { throw CommandError("\(name) expects a whole number, got '\(clip(v))'") }
        return n
    }

    /// Comma-separated words, blanks dropped (`--tags ""` is an empty list); nil when absent.
    mutating func listIfGiven(_ name: String) throws -> [String]? {
        guard let v = try value(name) else { return nil }
        return v.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    mutating func choice(_ name: String, _ words: [String]) throws -> String? {
        guard let v = try value(name) else { return nil }
        guard words.contains(v.lowercased()) else {
            throw CommandError("\(name) must be one of \(words.joined(separator: "|")), got '\(clip(v))'")
        }
        return v.lowercased()
    }

    mutating func optionalPositional() -> String? {
        guard let i = words.firstIndex(where: { !$0.isOption }) else { return nil }
        return words.remove(at: i).text
    }

    func finish() throws {
        if let extra = words.first {
            throw CommandError(
                extra.isOption
                    ? "unknown option \(clip(extra.text)); usage: \(usage)"
                    : "unexpected '\(clip(extra.text))' (quote text with spaces); usage: \(usage)")
        }
    }
}

public struct CommandError: Error, Equatable, CustomStringConvertible, Sendable {
    public let description: String
    init(_ d: String) { description = d }
}
