import Foundation

/// A verb's grammar, help and completion, declared once in its command type (`REPLCommand.spec`).
/// A typed line and a JSON object of arguments both become one dictionary of `ArgValue`s keyed
/// by `Param.key`, which decodes into the command's `Decodable` arguments: the two ways in
/// cannot drift apart.
public struct CommandSpec: Sendable {
    /// The command's one name, unique in the registry: what an API names it by (`place-add`).
    public let name: String
    /// The words that type it on a line, the first its name in `help` (`comment`, `reply`).
    public let verbs: [String]
    /// For a form of a verb that another command also types: what picks this one.
    let selector: Selector?
    /// `help` shows these two; nil for a form of a verb that another command's help covers.
    public let usage: String?
    public let summary: String
    /// In the order a line is read: a positional takes the first word left that is not an
    /// option, an option its name and the word after it, so the order decides which word is
    /// which when a line mixes them.
    let params: [Param]
    let completion: Completes

    /// A form picked by an option on the line (`create --private`) or by its first word (`place add`).
    enum Selector: Sendable {
        case flag(String)
        case word(String)
    }

    init(
        _ name: String, verbs: [String]? = nil, selector: Selector? = nil, usage: String?, summary: String = "",
        params: [Param] = [], completion: Completes = Completes()
    ) {
        self.name = name
        self.verbs = verbs ?? [name]
        self.selector = selector
        self.usage = usage
        self.summary = summary
        self.params = params
        self.completion = completion
    }
}

/// What Tab offers for a verb's arguments, by position.
struct Completes: Sendable {
    enum Source: Sendable { case verbs, packs, ops, authors }
    /// At every position.
    var anywhere: [Source] = []
    /// The first argument.
    var first: [Source] = []
    /// The second argument.
    var second: [Source] = []
    /// Any argument after the first that is not an option.
    var later: [Source] = []
}

/// One parameter: a positional word (or all that are left) or an `--option`, with its JSON key
/// and the value it has when absent.
struct Param: Sendable {
    enum Value: Sendable {
        case text
        /// A finite number.
        case number
        /// A whole number.
        case whole
        /// Comma-separated words (`--tags a,b`).
        case list
        /// One of these words, in any case.
        case choice([String])
    }
    enum Kind: Sendable {
        /// `shown`: its name in errors (`PACK`, `"TITLE"`).
        case word(shown: String, optional: Bool)
        /// Every positional word left: joined by spaces (`search TEXT`), or a list (`compare A B`);
        /// `required`: its name in the error when there is none.
        case rest(joined: Bool, required: String?)
        case option(String, Value)
        case flag(String)
    }
    let key: String
    let kind: Kind
    let absent: ArgValue

    static func word(_ key: String, _ shown: String) -> Param { Param(key: key, kind: .word(shown: shown, optional: false), absent: .null) }
    static func optionalWord(_ key: String, absent: ArgValue = .null) -> Param {
        Param(key: key, kind: .word(shown: key, optional: true), absent: absent)
    }
    static func rest(_ key: String, joined: Bool, required: String? = nil) -> Param {
        Param(key: key, kind: .rest(joined: joined, required: required), absent: joined ? .null : .array([]))
    }
    static func option(_ key: String, _ name: String, _ value: Value = .text, absent: ArgValue = .null) -> Param {
        Param(key: key, kind: .option(name, value), absent: absent)
    }
    static func flag(_ key: String, _ name: String) -> Param { Param(key: key, kind: .flag(name), absent: .bool(false)) }
}

/// An argument's value, as a line gives it or a JSON object holds it.
public enum ArgValue: Codable, Equatable, Sendable {
    case null
    case bool(Bool)
    case int(Int)
    case number(Double)
    case string(String)
    case array([ArgValue])

    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let i = try? c.decode(Int.self) {
            self = .int(i)
        } else if let d = try? c.decode(Double.self) {
            self = .number(d)
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else {
            self = .array(try c.decode([ArgValue].self))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .int(let i): try c.encode(i)
        case .number(let d): try c.encode(d)
        case .string(let s): try c.encode(s)
        case .array(let xs): try c.encode(xs)
        }
    }
}

extension CommandSpec {
    /// Reads the parameters from a line's words, in declared order; what is left is the caller's to refuse.
    func read(_ args: inout Args) throws -> [String: ArgValue] {
        var out: [String: ArgValue] = [:]
        for p in params {
            switch p.kind {
            case let .word(shown, optional):
                if let w = args.optionalPositional() {
                    out[p.key] = .string(w)
                } else if !optional {
                    throw CommandError("missing \(shown); usage: \(args.usage)")
                }
            case let .rest(joined, required):
                var words: [String] = []
                while let w = args.optionalPositional() { words.append(w) }
                if let required, words.isEmpty { throw CommandError("missing \(required); usage: \(args.usage)") }
                if joined {
                    if !words.isEmpty { out[p.key] = .string(words.joined(separator: " ")) }
                } else {
                    out[p.key] = .array(words.map(ArgValue.string))
                }
            case let .option(name, value):
                switch value {
                case .text: out[p.key] = try args.value(name).map(ArgValue.string)
                case .number: out[p.key] = try args.double(name).map(ArgValue.number)
                case .whole: out[p.key] = try args.int(name).map(ArgValue.int)
                case .list: out[p.key] = try args.listIfGiven(name).map { .array($0.map(ArgValue.string)) }
                case .choice(let words): out[p.key] = try args.choice(name, words).map(ArgValue.string)
                }
            case .flag(let name):
                out[p.key] = .bool(args.flag(name))
            }
        }
        return out
    }

    /// The command this spec describes from a dictionary of arguments (absent ones take their
    /// default): decoded, then checked by the command itself.
    func decode<C: REPLCommand>(_: C.Type, _ given: [String: ArgValue]) throws -> C {
        let known = Set(params.map(\.key))
        if let unknown = given.keys.sorted().first(where: { !known.contains($0) }) {
            let takes = known.isEmpty ? "" : " (it takes \(params.map(\.key).joined(separator: ", ")))"
            throw CommandError("\(name) takes no argument '\(clip(unknown))'\(takes)")
        }
        var all: [String: ArgValue] = [:]
        for p in params {
            var v = given[p.key] ?? p.absent
            // A JSON object's choice is held to what a line may say, in any case.
            if case let .option(option, .choice(words)) = p.kind, case .string(let s) = v {
                guard words.contains(s.lowercased()) else {
                    throw CommandError("\(option) must be one of \(words.joined(separator: "|")), got '\(clip(s))'")
                }
                v = .string(s.lowercased())
            }
            all[p.key] = v
        }
        let command: C
        do {
            command = try C(from: ArgDecoder(object: all))
        } catch DecodingError.valueNotFound(_, let context) {
            throw CommandError("\(name): missing argument '\(context.codingPath.first?.stringValue ?? "?")'")
        } catch DecodingError.typeMismatch(let type, let context) {
            throw CommandError("\(name): argument '\(context.codingPath.first?.stringValue ?? "?")' must be \(Self.describe(type))")
        } catch {
            throw CommandError("\(name): arguments not understood")
        }
        try command.validate()
        return command
    }

    static func describe(_ type: Any.Type) -> String {
        switch type {
        case is Int.Type, is Int?.Type: return "a whole number"
        case is Double.Type, is Double?.Type: return "a number"
        case is Bool.Type: return "true or false"
        case is [String].Type, is [String]?.Type: return "a list of strings"
        default: return "a string"
        }
    }
}
