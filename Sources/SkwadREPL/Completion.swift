import Foundation
import SkwadNode

/// Tab completion: command names for the first word, then what the command takes — pack
/// names and ids, post and comment ids, pseudonyms — from the node as of the last command.
public struct CompletionWords: Sendable, Equatable {
    public var packs: [String] = []
    public var ops: [String] = []
    public var pseudonyms: [String] = []
    public init(packs: [String] = [], ops: [String] = [], pseudonyms: [String] = []) {
        self.packs = packs; self.ops = ops; self.pseudonyms = pseudonyms
    }
}

enum Completion {
    /// Candidates for `word`, the word under the cursor, given the line before it.
    static func candidates(before: String, word: String, words: CompletionWords) -> [String] {
        candidates(previous: before.split(whereSeparator: \.isWhitespace).map(String.init), word: word, words: words)
    }

    /// Candidates for `word` after the words `previous` (as the tokenizer read them): what the
    /// verb's spec completes at that position (`CommandSpec.completion`).
    static func candidates(previous: [String], word: String, words: CompletionWords) -> [String] {
        guard let verb = previous.first?.lowercased() else {
            return Registry.helpNames.filter { $0.hasPrefix(word.lowercased()) }
        }
        guard let c = Registry.spec(of: verb)?.completion else { return [] }
        var sources = c.anywhere
        if previous.count == 1 { sources += c.first }
        if previous.count == 2 { sources += c.second }
        if previous.count > 1 && !word.hasPrefix("--") { sources += c.later }
        let pool = sources.flatMap { source -> [String] in
            switch source {
            case .verbs: return Registry.helpNames
            case .packs: return words.packs
            case .ops: return words.ops
            case .authors: return words.pseudonyms
            }
        }
        let lower = word.lowercased()
        var seen: Set<String> = []
        return pool.filter { $0.lowercased().hasPrefix(lower) && seen.insert($0).inserted }
    }

    /// What Tab inserts, as the tokenizer reads it back: `line` is the line up to the cursor,
    /// `replaced` the end of it that libedit replaces (the text after its last break
    /// character: a space, a quote…). The argument under the cursor is read as the tokenizer
    /// reads it (`"Quad L` is `Quad L`), its candidates are quoted when they need to be
    /// (`"Quad Lawn"`: all of them once one does, so their common start is typed), and each
    /// comes back as the text that replaces `replaced` (`Lawn"`). None when the line cannot
    /// be read so far, or `replaced` is not the end of the argument.
    static func insertions(line: String, replaced: String, words: CompletionWords) -> [String] {
        let chars = Array(line)
        var start = 0, inQuotes = false, i = 0
        while i < chars.count {
            let ch = chars[i]
            if inQuotes {
                if ch == "\\" { i += 1 } else if ch == "\"" { inQuotes = false }
            } else if ch == "\"" {
                inQuotes = true
            } else if ch.isWhitespace {
                start = i + 1
            }
            i += 1
        }
        let argument = String(chars[start...]), before = String(chars[..<start])
        guard argument.hasSuffix(replaced), let previous = try? Tokenizer.split(before) else { return [] }
        let typed: String
        if argument.isEmpty {
            typed = ""
        } else if let t = try? Tokenizer.split(inQuotes ? argument + "\"" : argument), t.count == 1 {
            typed = t[0]
        } else {
            return []
        }
        let values = candidates(previous: previous, word: typed, words: words)
        let quoteAll = argument.hasPrefix("\"") || (values.count > 1 && values.contains { CommandWord.quote($0) != $0 })
        let kept = String(argument.dropLast(replaced.count)).lowercased()
        return values.compactMap { v in
            let text = quoteAll ? CommandWord.quoted(v) : CommandWord.quote(v)
            guard text.lowercased().hasPrefix(kept) else { return nil }
            return String(text.dropFirst(kept.count))
        }
    }

    /// The longest common start of `list` (libedit inserts it when several match).
    static func commonStart(_ list: [String]) -> String {
        guard var common = list.first else { return "" }
        for s in list.dropFirst() {
            while !s.hasPrefix(common) { common.removeLast() }
        }
        return common
    }
}

/// The words Tab offers, shared with libedit's callback (a C function: no context).
final class CompletionStore: @unchecked Sendable {
    static let shared = CompletionStore()
    private let lock = NSLock()
    private var words = CompletionWords()
    func set(_ w: CompletionWords) { lock.withLock { words = w } }
    func get() -> CompletionWords { lock.withLock { words } }
    /// libedit's matches for the word it replaces (`replaced`), the line up to the cursor
    /// being `line`: their common start, then each (empty when none).
    func matches(line: String, replaced: String) -> [String] {
        let found = lock.withLock { Completion.insertions(line: line, replaced: replaced, words: words) }
        guard !found.isEmpty else { return [] }
        return [found.count == 1 ? found[0] : Completion.commonStart(found)] + found
    }
}
