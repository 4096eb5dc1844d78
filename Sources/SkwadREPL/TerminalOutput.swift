/// Replies shaped for a terminal (never for a pipe, a script or JSON): lines longer than
/// the screen wrapped at word boundaries, and replies taller than the screen shown a page
/// at a time.
enum TerminalOutput {
    /// Visible columns of `s`: ANSI SGR sequences (`ESC [ … m`) take none.
    static func columns(_ s: Substring) -> Int {
        var n = 0, escape = false
        for u in s.unicodeScalars {
            if escape { if u == "m" { escape = false }; continue }
            if u == "\u{1B}" { escape = true; continue }
            n += 1
        }
        return n
    }

    /// Words that are codes to copy (join codes, contact codes): never broken, even wider than
    /// the screen (the terminal shows them folded; a copy takes them whole).
    static let codePrefixes = ["skw-", "skn-"]

    /// The first code in `line`: a word starting with one of `codePrefixes`.
    static func codeRange(_ line: Substring) -> Range<String.Index>? {
        var i = line.startIndex
        while i < line.endIndex {
            if i == line.startIndex || line[line.index(before: i)] == " " {
                let head = line[i...].prefix(4).lowercased()
                if codePrefixes.contains(head) {
                    let end = line[i...].firstIndex(of: " ") ?? line.endIndex
                    return i..<end
                }
            }
            i = line.index(after: i)
        }
        return nil
    }

    /// Each line wider than `width` broken at its last space that fits (mid-word only for a
    /// word wider than the screen, never inside a code); continuation lines indented by 4
    /// more than the line's own. A code that does not fit after the words before it starts a
    /// line of its own.
    static func wrap(_ text: String, width: Int) -> String {
        guard width >= 20 else { return text }
        var out: [Substring] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            guard columns(line) > width else { out.append(line); continue }
            let lead = line.prefix { $0 == " " }.count
            let indent = String(repeating: " ", count: min(lead + 4, width / 2))
            if let code = codeRange(line) {
                let head = line[..<code.upperBound]
                let before = line[..<code.lowerBound]
                if columns(head) <= width || before.allSatisfy({ $0 == " " }) {
                    out.append(head)
                } else {
                    let words = String(before.reversed().drop { $0 == " " }.reversed())
                    out += wrap(words, width: width).split(separator: "\n", omittingEmptySubsequences: false)
                    out.append(Substring(indent + line[code]))
                }
                let after = line[code.upperBound...].drop { $0 == " " }
                if !after.isEmpty {
                    out += wrap(indent + String(after), width: width).split(separator: "\n", omittingEmptySubsequences: false)
                }
                continue
            }
            var rest = line[...], first = true
            while true {
                let room = first ? width : width - indent.count
                if columns(rest) <= room { out.append(first ? rest : Substring(indent + rest)); break }
                // The last space at or before column `room`, counting visible columns.
                var cols = 0, escape = false, cut: String.Index?, hard: String.Index?
                var i = rest.startIndex
                while i < rest.endIndex {
                    let c = rest[i]
                    if escape {
                        if c == "m" { escape = false }
                    } else if c == "\u{1B}" {
                        escape = true
                    } else {
                        if cols == room { hard = hard ?? i; break }
                        if c == " ", cols > 0 { cut = i }
                        cols += 1
                    }
                    i = rest.index(after: i)
                }
                let at = cut ?? hard ?? rest.endIndex
                let piece = rest[..<at]
                out.append(first ? piece : Substring(indent + piece))
                rest = rest[at...].drop { $0 == " " }
                first = false
                if rest.isEmpty { break }
            }
        }
        return out.joined(separator: "\n")
    }

    /// `text` in pages of `rows - 1` lines (the last row holds the "more" prompt); one page
    /// when it fits.
    static func pages(_ text: String, rows: Int) -> [String] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let per = max(5, rows - 1)
        guard lines.count > rows - 1 else { return [text] }
        return stride(from: 0, to: lines.count, by: per).map { lines[$0..<min(lines.count, $0 + per)].joined(separator: "\n") }
    }

    /// The prompt between pages.
    static let more = "-- more: Enter for the next page, q to stop --"
}
