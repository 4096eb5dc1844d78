import CQREncode

/// QR codes drawn with text (issue 29: a contact code to scan from the terminal). Encoding is
/// libqrencode's, error correction M, alphanumeric mode: the text is upper-cased, which the
/// codes' readers accept.
public enum QRText {
    /// Modules around the symbol (the QR standard's quiet zone).
    static let quietZone = 4

    /// The symbol's module rows (true: dark), or nil when it does not encode; the web page
    /// draws them as SVG.
    public static func modules(_ text: String) -> [[Bool]]? {
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 0) else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        guard width > 0, let data = code.pointee.data else { return nil }
        return (0..<width).map { y in (0..<width).map { x in data[y * width + x] & 1 == 1 } }
    }

    /// Lines of half blocks, two module rows each, with the quiet zone: "█" both dark, "▀" the
    /// upper, "▄" the lower, " " neither. `colour`: black on white whatever the terminal's
    /// own colours (a scanner needs dark on light).
    static func lines(_ m: [[Bool]], colour: Bool) -> [String] {
        let n = m.count + 2 * quietZone
        func dark(_ y: Int, _ x: Int) -> Bool {
            let (i, j) = (y - quietZone, x - quietZone)
            return i >= 0 && j >= 0 && i < m.count && j < m.count && m[i][j]
        }
        return stride(from: 0, to: n, by: 2).map { y in
            let row = String(
                (0..<n).map { x -> Character in
                    switch (dark(y, x), dark(y + 1, x)) {
                    case (true, true): "█"
                    case (true, false): "▀"
                    case (false, true): "▄"
                    case (false, false): " "
                    }
                })
            return colour ? "\u{1B}[30;47m" + row + "\u{1B}[0m" : row
        }
    }

    /// The module rows back from `lines(_:colour: false)` (what a test reads back).
    static func parse(_ lines: [String]) -> [[Bool]] {
        lines.flatMap { line -> [[Bool]] in
            let cs = Array(line)
            return [cs.map { $0 == "█" || $0 == "▀" }, cs.map { $0 == "█" || $0 == "▄" }]
        }
    }
}
