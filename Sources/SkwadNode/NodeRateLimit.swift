import SkwadCrypto
import SkwadModel

/// Local posting follows the network's per-pseudonym limit (PROTOCOL.md §13): peers admit
/// `pseudonymOpsPerMinute` ops a minute from one author key (burst as many), counting every
/// op it signs — geneses, posts, comments, votes, edits, moderation, reports, deletes — in
/// one bucket per key whatever the pack (an admin key's ops in all its packs share one). The
/// node counts the same ops the same way, so it never lets its user write what every peer
/// would drop (`drop.pseudonymRateLimited`).
struct LocalRateLimit: Sendable {
    let perMinute: Double
    private var buckets: [PublicKey: (tokens: Double, atMs: UInt64)] = [:]

    init(perMinute: Double) { self.perMinute = max(1, perMinute) }

    /// Takes one token for `author` at `nowMs`; on refusal, the milliseconds until one is back.
    mutating func take(_ author: PublicKey, nowMs: UInt64) -> UInt64? {
        var b = buckets[author] ?? (perMinute, nowMs)
        let elapsed = nowMs >= b.atMs ? Double(nowMs - b.atMs) : 0
        b.tokens = min(perMinute, b.tokens + elapsed * perMinute / 60_000)
        b.atMs = max(b.atMs, nowMs)
        guard b.tokens >= 1 else {
            buckets[author] = b
            return UInt64(((1 - b.tokens) * 60_000 / perMinute).rounded(.up))
        }
        b.tokens -= 1
        buckets[author] = b
        return nil
    }
}

extension Node {
    /// One op of `author`'s budget, or the one-line error saying how long to wait.
    func takeLocalBudget(_ author: PublicKey, nowMs: UInt64) throws {
        guard let waitMs = own.localRate.take(author, nowMs: nowMs) else { return }
        let limit = Int(config.gossip.limits.pseudonymOpsPerMinute)
        throw NodeError("slow down: peers accept \(limit) ops a minute from one pseudonym; try again in \(max(1, (waitMs + 999) / 1000)) s")
    }
}
