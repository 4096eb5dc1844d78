/// The one tick timer every driver of a `GossipEngine` keeps, inside its `DirectiveInterpreter`
/// (the node, the simulator and the in-memory test network alike), the rule of
/// `GossipDirective.scheduleTick`: a request due sooner than the pending timer replaces it
/// (a new generation), a later one is ignored; a timer of an older generation does nothing
/// when it fires. A value only: the driver owns the clock and the sleeping.
public struct TickTimer: Sendable, Equatable {
    /// When the live timer is due (engine ms), if one is pending.
    public private(set) var dueMs: UInt64?
    /// The generation of the live timer (the tag a driver schedules it under).
    public private(set) var generation: UInt32 = 0

    public init() {}

    /// A request for a tick at `dueMs`: the new timer's generation when it replaces the
    /// pending one, nil when the pending one is due no later.
    public mutating func request(dueMs due: UInt64) -> UInt32? {
        if let current = dueMs, current <= due { return nil }
        dueMs = due
        generation &+= 1
        return generation
    }

    /// A timer of `generation` fired: true when it is the live one (which is then spent).
    public mutating func fire(_ g: UInt32) -> Bool {
        guard g == generation, dueMs != nil else { return false }
        dueMs = nil
        return true
    }

    /// Forces the next tick to `dueMs` (a test waking a node up), whatever was pending.
    public mutating func force(dueMs due: UInt64?) {
        dueMs = due
        generation &+= 1
    }
}
