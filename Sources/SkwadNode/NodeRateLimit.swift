import SkwadModel

/// Local posting follows the network's per-pseudonym limit (PROTOCOL.md §13): peers admit
/// `pseudonymOpsPerMinute` ops a minute from one pseudonym (burst as many), so a node does
/// not let its user write faster than that; the rest would be dropped or spread for minutes.
struct LocalRateLimit: Sendable {
    let perMinute: Double
    private var buckets: [PackID: (tokens: Double, atMs: UInt64)] = [:]

    init(perMinute: Double) { self.perMinute = max(1, perMinute) }

    /// Takes one token for `pack` at `nowMs`; on refusal, the milliseconds until one is back.
    mutating func take(_ pack: PackID, nowMs: UInt64) -> UInt64? {
        var b = buckets[pack] ?? (perMinute, nowMs)
        let elapsed = nowMs >= b.atMs ? Double(nowMs - b.atMs) : 0
        b.tokens = min(perMinute, b.tokens + elapsed * perMinute / 60_000)
        b.atMs = max(b.atMs, nowMs)
        guard b.tokens >= 1 else {
            buckets[pack] = b
            return UInt64(((1 - b.tokens) * 60_000 / perMinute).rounded(.up))
        }
        b.tokens -= 1
        buckets[pack] = b
        return nil
    }
}
