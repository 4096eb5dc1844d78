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
    /// One address's sessions behind one reference, copied on write (as PeerTable's
    /// records): a dictionary keeps about twice as many buckets as entries, and a bucket of
    /// references costs 8 bytes where a slot inline cost 240. The accessors read and modify
    /// in place: a session is never copied to open or seal a frame.
    struct Slot: Sendable {
        private final class Box: @unchecked Sendable {
            var current: Session
            /// Boxed apart: rarely there.
            var pending: PendingBox?
            var lastUsedMs: UInt64
            init(current: Session, pending: PendingBox?, lastUsedMs: UInt64) {
                self.current = current; self.pending = pending; self.lastUsedMs = lastUsedMs
            }
        }
        private var box: Box

        init(current: Session, pending: Session?, lastUsedMs: UInt64) {
            box = Box(current: current, pending: pending.map(PendingBox.init), lastUsedMs: lastUsedMs)
        }

        private mutating func unique() {
            if !isKnownUniquelyReferenced(&box) { box = Box(current: box.current, pending: box.pending, lastUsedMs: box.lastUsedMs) }
        }

        var current: Session {
            _read { yield box.current }
            _modify {
                unique()
                yield &box.current
            }
        }
        var pending: Session? {
            get { box.pending?.session }
            set {
                unique()
                box.pending = newValue.map(PendingBox.init)
            }
        }
        var lastUsedMs: UInt64 {
            get { box.lastUsedMs }
            set {
                unique()
                box.lastUsedMs = newValue
            }
        }
    }

    final class PendingBox: Sendable {
        let session: Session
        init(_ s: Session) { session = s }
    }

    let capacity: Int
    private(set) var slots: [PeerAddress: Slot] = [:]
    /// `expire` scans the table at most every `expiryScanMs` (a session goes at most that
    /// much after its time, and the scan no longer runs on every 50 ms tick), and otherwise
    /// when the soonest deadline it saw comes (`nextExpiryScanMs`: the engine sleeps until
    /// then when nothing else is due).
    private(set) var nextExpiryScanMs: UInt64 = 0
    private var lastExpiryScanMs: UInt64 = 0

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

    /// Whether `a`'s current session is established (read in place: asked for every message sent).
    func isEstablished(_ a: PeerAddress) -> Bool {
        guard let i = slots.index(forKey: a) else { return false }
        return slots.values[i].current.established
    }

    mutating func setPending(_ s: Session?, for a: PeerAddress) { if slots[a] != nil { slots[a]!.pending = s } }

    mutating func touch(_ a: PeerAddress, nowMs: UInt64) { if slots[a] != nil { slots[a]!.lastUsedMs = max(slots[a]!.lastUsedMs, nowMs) } }

    /// Opens a DATA frame under the established current session of `a`, in place (a Session
    /// holds a dozen buffers: no copy and write-back per datagram). nil: no established
    /// current session. An authenticated frame
    /// marks the session answered and the slot used.
    mutating func openCurrent(_ a: PeerAddress, _ datagram: [UInt8], nowMs: UInt64) -> Session.OpenResult? {
        guard let i = slots.index(forKey: a) else { return nil }
        return Self.open(&slots.values[i], datagram, nowMs: nowMs)
    }

    private static func open(_ slot: inout Slot, _ datagram: [UInt8], nowMs: UInt64) -> Session.OpenResult? {
        guard slot.current.established else { return nil }
        let r = slot.current.open(datagram)
        if case .plaintext = r {
            slot.current.unansweredSinceMs = nil
            slot.lastUsedMs = max(slot.lastUsedMs, nowMs)
        }
        return r
    }

    enum SealOutcome: Equatable { case frame([UInt8]), queued, queueFull, failed }

    /// Seals `plaintext` under the established current session of `to`, in place; nil: no
    /// established current session. Before the address is verified, a frame over the
    /// anti-amplification budget waits in the session's queue (at most `maxQueued`).
    /// `solicits`: the peer always answers it (see `expire`).
    mutating func sealCurrent(_ to: PeerAddress, _ plaintext: [UInt8], solicits: Bool, nowMs: UInt64, maxQueued: Int) -> SealOutcome? {
        guard let i = slots.index(forKey: to) else { return nil }
        return Self.seal(&slots.values[i].current, plaintext, solicits: solicits, nowMs: nowMs, maxQueued: maxQueued)
    }

    private static func seal(_ s: inout Session, _ pt: [UInt8], solicits: Bool, nowMs: UInt64, maxQueued: Int) -> SealOutcome? {
        guard s.established else { return nil }
        guard s.maySend(pt) else {
            guard s.queued.count < maxQueued else { return .queueFull }
            s.queued.append(pt)
            return .queued
        }
        guard let frame = s.sealCounted(pt) else { return .failed }
        if solicits, s.unansweredSinceMs == nil { s.unansweredSinceMs = nowMs }
        return .frame(frame)
    }

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
        // Due, or the clock went back (tests reuse engines).
        guard nowMs >= nextExpiryScanMs || nowMs < lastExpiryScanMs else { return (0, 0) }
        lastExpiryScanMs = nowMs
        // The next scan: at the soonest deadline seen now, and no later than the shortest
        // window from now (a session made or sent on after this scan expires no sooner).
        var soonest = nowMs &+ min(unprovenMs, silentMs)
        func due(_ deadline: UInt64) { if deadline > nowMs && deadline < soonest { soonest = deadline } }
        // A read-only pass first, through indices, so that no slot (a Session holds a dozen
        // buffers) is copied and the table is not copied by a write during its iteration
        // (this runs on every tick).
        enum Change { case silent, pending, current }
        var changes: [(PeerAddress, Change)] = []
        var i = slots.startIndex
        while i != slots.endIndex {
            if slots.values[i].current.established, let since = slots.values[i].current.unansweredSinceMs,
                nowMs >= since, nowMs - since >= silentMs
            {
                changes.append((slots.keys[i], .silent))
            } else {
                if slots.values[i].current.established, let since = slots.values[i].current.unansweredSinceMs { due(since &+ silentMs) }
                if let pending = slots.values[i].pending {
                    if pending.age(nowMs) >= unprovenMs {
                        changes.append((slots.keys[i], .pending))
                    } else {
                        due(pending.createdMs &+ unprovenMs)
                    }
                }
                if !slots.values[i].current.isInitiator, slots.values[i].current.unproven {
                    if slots.values[i].current.age(nowMs) >= unprovenMs {
                        changes.append((slots.keys[i], .current))
                    } else {
                        due(slots.values[i].current.createdMs &+ unprovenMs)
                    }
                }
            }
            slots.formIndex(after: &i)
        }
        nextExpiryScanMs = max(nowMs &+ Self.expiryScanMs, soonest)
        var n = 0, silent = 0
        for (a, change) in changes {
            switch change {
            case .silent: slots[a] = nil; silent += 1
            case .pending: slots[a]?.pending = nil; n += 1
            case .current:
                if let p = slots[a]?.pending { slots[a]!.current = p; slots[a]!.pending = nil } else { slots[a] = nil }
                n += 1
            }
        }
        return (n, silent)
    }
}
