import Foundation

/// Small text rules of the REPL's wording: plurals, line wrapping, and how much of the
/// user's input an error may quote.
enum Wording {
    /// A size for people: "900 bytes", "195 KB", "1.0 MB" (1 KB = 1024 bytes).
    static func bytes(_ n: Int) -> String {
        if n < 1024 { return "\(n) bytes" }
        if n < 1024 * 1024 { return "\((n + 512) / 1024) KB" }
        return String(format: "%.1f MB", Double(n) / 1_048_576)
    }

    /// Input quoted in an error: at most this many characters.
    static let maxQuoted = 80
    /// An error line: at most this many characters (quotes clipped first).
    static let maxErrorLength = 400

    /// "1 post", "2 posts", "0 people".
    static func count(_ n: Int, _ one: String, _ many: String? = nil) -> String {
        "\(n) " + (n == 1 ? one : many ?? one + "s")
    }

    /// Words wrapped to `width` columns; lines after the first start with `indent`.
    static func wrap(_ text: String, width: Int, indent: String = "") -> [String] {
        var lines: [String] = [], line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            let prefix = lines.isEmpty ? "" : indent
            if !line.isEmpty, prefix.count + line.count + 1 + word.count > width {
                lines.append(prefix + line); line = String(word)
            } else {
                line += (line.isEmpty ? "" : " ") + word
            }
        }
        if !line.isEmpty || lines.isEmpty { lines.append((lines.isEmpty ? "" : indent) + line) }
        return lines
    }

    /// An error message with every '…'-quoted part clipped to `maxQuoted` characters and
    /// the whole to `maxErrorLength`: whatever a command's error quotes of a 1 MB input,
    /// the reply stays one short line.
    static func clipError(_ message: String) -> String {
        var out = "", quoted: String?
        for ch in message {
            if ch == "'" {
                if let q = quoted { out += clip(q) + "'"; quoted = nil } else { out.append(ch); quoted = "" }
            } else if quoted != nil {
                quoted!.append(ch)
                if quoted!.count > 2 * maxErrorLength { quoted = String(quoted!.prefix(maxQuoted + 1)) }
            } else {
                out.append(ch)
            }
        }
        if let q = quoted { out += clip(q) }
        return out.count > maxErrorLength ? String(out.prefix(maxErrorLength)) + "…" : out
    }
}

/// Input quoted in an error: at most `Wording.maxQuoted` characters, then "…".
func clip(_ s: String) -> String {
    s.count <= Wording.maxQuoted ? s : String(s.prefix(Wording.maxQuoted)) + "…"
}
