/// The timer of a periodic round (`Round`). One that backs off slows down while nothing
/// changes (PROTOCOL §9, "Quiet when idle"): after each round with nothing new since the one
/// before, the interval doubles, up to `maxMs`; `poke` (something changed) brings the next
/// round within `baseMs`. One with `maxMs == baseMs` runs every `baseMs`.
struct Backoff: Sendable, Equatable {
    let baseMs: UInt64
    let maxMs: UInt64
    private(set) var intervalMs: UInt64
    private(set) var dueMs: UInt64 = .max
    /// Something changed since the last round.
    private(set) var changed = true

    /// `dueMs`: when the first round falls due before `start` (never, by default).
    init(baseMs: UInt64, maxMs: UInt64, dueMs: UInt64 = .max) {
        self.baseMs = max(1, baseMs)
        self.maxMs = max(self.baseMs, maxMs)
        intervalMs = self.baseMs
        self.dueMs = dueMs
    }

    mutating func start(nowMs: UInt64) { intervalMs = baseMs; dueMs = nowMs &+ baseMs; changed = true }

    /// True when the round is due; then the next one is scheduled (later if this interval was quiet).
    mutating func fire(nowMs: UInt64) -> Bool {
        guard nowMs >= dueMs else { return false }
        intervalMs = changed ? baseMs : min(maxMs, intervalMs * 2)
        changed = false
        dueMs = nowMs &+ intervalMs
        return true
    }

    func isDue(nowMs: UInt64) -> Bool { nowMs >= dueMs }

    /// The round that is due could not tell whether anything changed (a message was lost):
    /// the next one comes after `baseMs`, as after a change.
    mutating func unsettled() { changed = true }

    /// Something changed: the next round comes within `baseMs`.
    mutating func poke(nowMs: UInt64) {
        changed = true
        if dueMs > nowMs &+ baseMs { dueMs = nowMs &+ baseMs }
        intervalMs = baseMs
    }
}
