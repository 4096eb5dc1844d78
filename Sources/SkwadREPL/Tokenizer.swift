/// Splits a command line into words: whitespace separates, double quotes group (with
/// `\"` and `\\` escapes inside). Pure; errors are one line.
public enum Tokenizer {
    public struct Failure: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    public static func split(_ line: String) throws -> [String] {
        var words: [String] = [], current = "", inQuotes = false, started = false
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
                inQuotes = true; started = true
            } else if ch.isWhitespace {
                if started { words.append(current); current = ""; started = false }
            } else {
                current.append(ch); started = true
            }
        }
        if inQuotes { throw Failure(description: "unterminated quote: close it with \"") }
        if started { words.append(current) }
        return words
    }
}
