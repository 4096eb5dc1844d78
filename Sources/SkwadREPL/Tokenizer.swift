/// Splits a command line into words: whitespace separates, double quotes group (with
/// `\"` and `\\` escapes inside). Pure; errors are one line.
public enum Tokenizer {
    public struct Failure: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// A word, and whether any of it was quoted (a quoted word is never an `--option`).
    public struct Token: Equatable, Sendable {
        public let text: String
        public let quoted: Bool
        public init(_ text: String, quoted: Bool = false) { self.text = text; self.quoted = quoted }
        /// An option name such as `--limit` (unquoted, starting with two dashes).
        public var isOption: Bool { !quoted && text.hasPrefix("--") }
    }

    public static func split(_ line: String) throws -> [String] { try tokens(line).map(\.text) }

    public static func tokens(_ line: String) throws -> [Token] {
        var words: [Token] = [], current = "", inQuotes = false, started = false, quoted = false
        var it = line.makeIterator()
        while let ch = it.next() {
            if inQuotes {
                if ch == "\\" {
                    guard let next = it.next() else { throw Failure(description: "line ends after a backslash") }
                    current.append(next)
                } else if ch == "\"" {
                    inQuotes = false
                } else {
                    current.append(ch)
                }
            } else if ch == "\"" {
                inQuotes = true; started = true; quoted = true
            } else if ch.isWhitespace {
                if started { words.append(Token(current, quoted: quoted)); current = ""; started = false; quoted = false }
            } else {
                current.append(ch); started = true
            }
        }
        if inQuotes { throw Failure(description: "unterminated quote: close it with \"") }
        if started { words.append(Token(current, quoted: quoted)) }
        return words
    }
}
