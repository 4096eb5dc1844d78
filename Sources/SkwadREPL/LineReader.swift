import CEdit
import Foundation

/// Reads command lines: libedit with history and editing on a terminal, plain lines
/// otherwise (scripts, tests).
public final class LineReader: @unchecked Sendable {
    public let interactive: Bool
    let historyPath: String?
    let lock = NSLock()
    var reading = false

    public init(interactive: Bool, historyPath: String?) {
        self.interactive = interactive
        self.historyPath = historyPath
        if interactive {
            skwad_set_readline_name("skwad")
            skwad_set_completion(completeCommand)
            if let historyPath { _ = read_history(historyPath) }
        }
    }

    /// The next line, or nil at end of input.
    /// `history`: keep the line in the history (not the pager's answers).
    public func next(prompt: String, history: Bool = true) -> String? {
        guard interactive else { return readLine(strippingNewline: true) }
        lock.withLock { reading = true }
        defer { lock.withLock { reading = false } }
        guard let raw = readline(prompt) else { return nil }
        defer { free(raw) }
        let line = String(cString: raw)
        if history, !line.trimmingCharacters(in: .whitespaces).isEmpty {
            add_history(line)
            if let historyPath { _ = write_history(historyPath) }
        }
        return line
    }

    /// Prints a line above the prompt without breaking what the user is typing.
    public func printAbove(_ text: String) {
        lock.withLock {
            if interactive && reading {
                FileHandle.standardOutput.write(Data("\r\u{1B}[K\(text)\n".utf8))
                rl_forced_update_display()
            } else {
                FileHandle.standardOutput.write(Data("\(text)\n".utf8))
            }
        }
    }
}

/// Tab completion (Completion.swift): libedit calls this with state 0, 1, ... until nil, and
/// frees the strings it gets.
private func completeCommand(_ text: UnsafePointer<CChar>?, _ state: Int32) -> UnsafeMutablePointer<CChar>? {
    guard let text, state >= 0 else { return nil }
    let word = String(cString: text)
    var before = ""
    if let buffer = skwad_line_buffer() {
        let line = Array(String(cString: buffer).utf8)
        let end = max(0, min(line.count, Int(skwad_point()) - word.utf8.count))
        before = String(decoding: line[..<end], as: UTF8.self)
    }
    return CompletionStore.shared.match(before: before, word: word, state: Int(state)).map { strdup($0) } ?? nil
}
