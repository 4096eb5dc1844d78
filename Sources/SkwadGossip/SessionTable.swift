/// The secure sessions of one engine, one slot per address, bounded (PROTOCOL §8).
///
/// A slot holds the `current` session and at most one `pending` responder session made by
/// a later HELLO from the same address. Legal transitions:
/// - no slot → current (initiator we start, or responder for a HELLO);
/// - HELLO while a slot exists → pending (replacing an older pending); the current stays;
/// - DATA that authenticates under pending (and not under current) → pending becomes current;
/// - WELCOME → the current initiator becomes established;
/// - an unproven session (responder without authenticated DATA, pending, initiator without
///   WELCOME) older than `unprovenMs` → removed (`expire`); a slot left empty goes.
/// So a forged HELLO can never replace a working session: at worst it sits in `pending`
/// until it expires.
struct SessionTable: Sendable {
    struct Slot: Sendable {
        var current: Session
        var pending: Session?
        var lastUsedMs: UInt64
    }

    let capacity: Int
    private(set) var slots: [PeerAddress: Slot] = [:]

    init(capacity: Int) { self.capacity = max(1, capacity) }

    var count: Int { slots.count }

    /// The current session of an address. Setting nil removes the slot (current and pending).
    subscript(_ a: PeerAddress) -> Session? {
        get { slots[a]?.current }
        set {
            guard let s = newValue else { slots[a] = nil; return }
            if slots[a] != nil { slots[a]!.current = s } else { slots[a] = Slot(current: s, pending: nil, lastUsedMs: s.createdMs) }
        }
    }

    func pending(_ a: PeerAddress) -> Session? { slots[a]?.pending }

    mutating func setPending(_ s: Session?, for a: PeerAddress) { if slots[a] != nil { slots[a]!.pending = s } }

    mutating func touch(_ a: PeerAddress, nowMs: UInt64) { if slots[a] != nil { slots[a]!.lastUsedMs = max(slots[a]!.lastUsedMs, nowMs) } }

    /// The pending session authenticated a frame: it becomes current.
    mutating func promotePending(_ a: PeerAddress, _ s: Session) {
        guard slots[a] != nil else { return }
        slots[a]!.current = s
        slots[a]!.pending = nil
    }

    /// Makes room for a new slot. A stranger (`proven == false`: a HELLO) may only evict an
    /// unproven slot, the oldest first; our own initiator may also evict the least recently
    /// used slot. Returns the evicted address, or nil when there was room; `.full` when not.
    enum Room: Equatable { case free, evicted(PeerAddress), full }

    mutating func makeRoom(forOurOwn ours: Bool) -> Room {
        guard slots.count >= capacity else { return .free }
        func older(_ x: (key: PeerAddress, value: Slot), _ y: (key: PeerAddress, value: Slot)) -> Bool {
            x.value.lastUsedMs != y.value.lastUsedMs ? x.value.lastUsedMs < y.value.lastUsedMs : x.key < y.key
        }
        if let victim = slots.filter({ $0.value.current.unproven }).min(by: older) {
            slots[victim.key] = nil
            return .evicted(victim.key)
        }
        guard ours, let victim = slots.min(by: older) else { return .full }
        slots[victim.key] = nil
        return .evicted(victim.key)
    }

    /// Drops unproven sessions older than `unprovenMs`: a pending beside a current, or a
    /// slot whose current is an unproven responder. Initiators wait for `retryHandshakes`.
    /// Drops, too, established sessions silent for `silentMs` after a message that always
    /// gets an answer. Returns how many sessions went, of each kind.
    mutating func expire(nowMs: UInt64, unprovenMs: UInt64, silentMs: UInt64) -> (unproven: Int, silent: Int) {
        var n = 0, silent = 0
        for (a, slot) in slots {
            if slot.current.established, let since = slot.current.unansweredSinceMs, nowMs >= since, nowMs - since >= silentMs {
                slots[a] = nil; silent += 1; continue
            }
            if let p = slot.pending, p.age(nowMs) >= unprovenMs {
                slots[a]!.pending = nil; n += 1
            }
            let c = slot.current
            if c.role == .responder, c.unproven, c.age(nowMs) >= unprovenMs {
                if let p = slots[a]!.pending { slots[a]!.current = p; slots[a]!.pending = nil } else { slots[a] = nil }
                n += 1
            }
        }
        return (n, silent)
    }
}
