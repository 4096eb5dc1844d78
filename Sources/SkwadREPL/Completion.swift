import Foundation

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
    static let packVerbs: Set<String> = [
        "join", "leave", "feed", "post", "mute", "unmute", "log", "reports", "edit", "delete", "rm",
        "invite", "remove", "ban", "unban"
    ]
    static let opVerbs: Set<String> = [
        "comment", "reply", "up", "down", "unvote", "show", "delete", "rm", "hide", "unhide",
        "report", "edit", "open"
    ]
    static let authorVerbs: Set<String> = ["block", "unblock"]

    /// Candidates for `word`, the word under the cursor, given the line before it.
    static func candidates(before: String, word: String, words: CompletionWords) -> [String] {
        let previous = before.split(whereSeparator: \.isWhitespace).map(String.init)
        guard let verb = previous.first?.lowercased() else {
            return commandHelp.map(\.name).filter { $0.hasPrefix(word.lowercased()) }
        }
        var pool: [String] = []
        if verb == "help" || verb == "?" { pool = commandHelp.map(\.name) }
        // Only the first argument names the pack, post or author (`post PACK "TITLE"…`).
        if previous.count == 1 {
            if packVerbs.contains(verb) { pool += words.packs }
            if opVerbs.contains(verb) { pool += words.ops }
            if authorVerbs.contains(verb) { pool += words.pseudonyms }
        }
        if (verb == "ban" || verb == "unban") && previous.count == 2 { pool += words.pseudonyms }
        if verb == "search" || verb == "find" || verb == "feed" || verb == "reports", word.hasPrefix("--") == false, previous.count > 1 {
            pool += words.packs
        }
        let lower = word.lowercased()
        var seen: Set<String> = []
        return pool.filter { $0.lowercased().hasPrefix(lower) && seen.insert($0).inserted }
    }
}

/// The words Tab offers, shared with libedit's callback (a C function: no context).
final class CompletionStore: @unchecked Sendable {
    static let shared = CompletionStore()
    private let lock = NSLock()
    private var words = CompletionWords()
    private var matches: [String] = []
    func set(_ w: CompletionWords) { lock.withLock { words = w } }
    func get() -> CompletionWords { lock.withLock { words } }
    /// libedit asks with state 0 for a new word, then 1, 2… for the next matches.
    func match(before: String, word: String, state: Int) -> String? {
        lock.withLock {
            if state == 0 { matches = Completion.candidates(before: before, word: word, words: words) }
            return state < matches.count ? matches[state] : nil
        }
    }
}
