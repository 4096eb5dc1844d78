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
            skwad_set_attempted_completion(completeCommand)
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

/// Tab completion (Completion.swift): libedit gives the word it will replace (after its last
/// break character) and wants a malloc'd array: the text to insert (the matches' common
/// start), each match, NULL; it frees them. The line up to the cursor says which argument it is.
private func completeCommand(
    _ text: UnsafePointer<CChar>?, _ start: Int32, _ end: Int32
) -> UnsafeMutablePointer<
    UnsafeMutablePointer<CChar>?
>? {
    skwad_set_completion_over(1)
    guard let text else { return nil }
    let word = String(cString: text)
    var line = ""
    if let buffer = skwad_line_buffer() {
        let bytes = Array(String(cString: buffer).utf8)
        line = String(decoding: bytes[..<max(0, min(bytes.count, Int(skwad_point())))], as: UTF8.self)
    }
    let found = CompletionStore.shared.matches(line: line, replaced: word)
    guard !found.isEmpty,
        let array = calloc(found.count + 1, MemoryLayout<UnsafeMutablePointer<CChar>?>.stride)?
            .bindMemory(to: UnsafeMutablePointer<CChar>?.self, capacity: found.count + 1)
    else { return nil }
    for (i, m) in found.enumerated() { array[i] = strdup(m) }
    array[found.count] = nil
    return array
}
