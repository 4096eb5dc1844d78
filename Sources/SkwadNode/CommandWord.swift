/// A word of a REPL command as the REPL's tokenizer reads it back: hints that name a pack or
/// a name (`post "Quad Lawn" "TITLE" …`) and Tab completion write words with it.
public enum CommandWord {
    /// `s` bare when the tokenizer reads it back as one word and not as an option; else
    /// `quoted(s)`.
    public static func quote(_ s: String) -> String {
        let bare = !s.isEmpty && !s.hasPrefix("--") && !s.contains { $0.isWhitespace || $0 == "\"" }
        return bare ? s : quoted(s)
    }

    /// `s` in double quotes, `"` and `\` escaped with a backslash (the tokenizer's escapes).
    public static func quoted(_ s: String) -> String {
        var out = "\""
        for ch in s {
            if ch == "\"" || ch == "\\" { out.append("\\") }
            out.append(ch)
        }
        return out + "\""
    }
}
