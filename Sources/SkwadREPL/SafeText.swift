/// Strings that came from the network, made safe to print (issue 10, finding 6): no
/// control characters (C0, DEL, C1: so no ANSI/OSC escape sequences), no bidirectional
/// overrides or isolates, no zero-width joiners that hide text. Each such scalar becomes
/// U+FFFD. Single-line fields lose their line breaks (shown as spaces); bodies keep them,
/// each continuation line indented so it cannot pass for a line of the REPL's own output.
public enum SafeText {
    static func isUnsafe(_ u: Unicode.Scalar) -> Bool {
        switch u.value {
        case 0x00...0x1F, 0x7F...0x9F: return true  // C0, DEL, C1 (ESC, CSI, OSC…)
        // zero-width, LRM/RLM, separators, embeddings, overrides, isolates
        case 0x200B...0x200F, 0x2028...0x202E, 0x2060...0x206F: return true
        case 0x061C, 0xFEFF, 0xFFF9...0xFFFB: return true  // Arabic letter mark, BOM, interlinear annotations
        default: return false
        }
    }

    static func isBreak(_ u: Unicode.Scalar) -> Bool { u == "\n" || u == "\r" || u == "\t" }

    /// One line: breaks and tabs become spaces, other unsafe scalars U+FFFD.
    public static func line(_ s: String) -> String {
        var out = String.UnicodeScalarView()
        for u in s.unicodeScalars {
            if isBreak(u) { out.append(" ") } else if isUnsafe(u) { out.append("\u{FFFD}") } else { out.append(u) }
        }
        return String(out)
    }

    /// Several lines: each made safe with `line`, joined by a newline and `indent`.
    public static func block(_ s: String, indent: String) -> String {
        s.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }
            .map { line(String($0)) }
            .joined(separator: "\n" + indent)
    }
}
