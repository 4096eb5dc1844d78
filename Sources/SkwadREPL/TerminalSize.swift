import Foundation

/// The size of the terminal on standard output (`map` fits its grid to it): from the
/// terminal itself, else `$COLUMNS`/`$LINES`, else 80 × 24 (not a terminal: scripts, tests).
public enum TerminalSize {
    public static let fallback = (cols: 80, rows: 24)

    public static func current() -> (cols: Int, rows: Int) {
        var w = winsize()
        if isatty(1) == 1, ioctl(1, UInt(TIOCGWINSZ), &w) == 0, w.ws_col > 0, w.ws_row > 0 {
            return (Int(w.ws_col), Int(w.ws_row))
        }
        let env = ProcessInfo.processInfo.environment
        if let c = env["COLUMNS"].flatMap(Int.init), let r = env["LINES"].flatMap(Int.init), (20...1000).contains(c),
            (10...1000).contains(r)
        {
            return (c, r)
        }
        return fallback
    }
}
