/// A token bucket in virtual time: `rate` tokens per second, at most `burst`.
struct TokenBucket: Sendable {
    let rate: Double
    let burst: Double
    var tokens: Double
    var lastMs: UInt64

    init(rate: Double, burst: Double, nowMs: UInt64) { self.rate = rate; self.burst = burst; tokens = burst; lastMs = nowMs }

    /// Refilled to its burst by `nowMs` (an idle bucket, safe to forget).
    mutating func isFull(nowMs: UInt64) -> Bool {
        if nowMs > lastMs { tokens = min(burst, tokens + Double(nowMs - lastMs) / 1000 * rate); lastMs = nowMs }
        return tokens >= burst
    }

    mutating func take(_ n: Double, nowMs: UInt64) -> Bool {
        if nowMs > lastMs { tokens = min(burst, tokens + Double(nowMs - lastMs) / 1000 * rate); lastMs = nowMs }
        guard tokens >= n else { return false }
        tokens -= n
        return true
    }
}
