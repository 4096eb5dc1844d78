/// Drops and rejections summarised over a window (a minute in `skwad serve`): one log line
/// with what grew since the last summary, instead of a line per datagram. Pure: fed the
/// node's counters, it says what to log.
public struct DropSummary: Sendable {
    private var last: [String: Int] = [:]
    private var started = false
    public init() {}

    /// Whether a counter is a drop or a rejection.
    static func counts(_ name: String) -> Bool {
        name.hasPrefix("drop.") || name.hasPrefix("reject.") || name.hasPrefix("ops.rejected.")
    }

    /// The line to log for the counters now (nil: nothing was dropped since the last call).
    /// The first call only takes the counters in.
    public mutating func summarize(_ stats: [(String, Int)]) -> String? {
        var grew: [(String, Int)] = []
        let first = !started
        started = true
        for (name, value) in stats where Self.counts(name) {
            let before = last[name] ?? 0
            if !first, value > before { grew.append((name, value - before)) }
            last[name] = value
        }
        guard !grew.isEmpty else { return nil }
        let total = grew.reduce(0) { $0 + $1.1 }
        return "dropped \(total): "
            + grew.sorted { $0.1 > $1.1 || ($0.1 == $1.1 && $0.0 < $1.0) }
            .map { "\($0.0)=\($0.1)" }.joined(separator: " ")
    }
}
