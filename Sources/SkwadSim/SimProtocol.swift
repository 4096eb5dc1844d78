import SkwadModel
import SkwadReplica

/// What a node's protocol asks the simulator to do. The simulator carries directives out
/// after each call, in order.
public enum SimDirective<Payload> {
    /// Send one datagram. `bytes` is its size on the wire (payload + headers, for the
    /// bandwidth model and byte counts); `ops` is how many op envelopes it carries (for
    /// redundancy).
    case send(Payload, to: NodeID, bytes: Int, ops: Int)
    /// Hand this op to the node's replica: the simulator verifies it (memoized), admits it
    /// and records its delivery.
    case deliver(OpRef)
    /// The protocol admitted this op into the replica itself (an engine that owns
    /// admission, as SkwadGossip does): record its delivery.
    case admitted(SignedOp)
    /// Call `timer(tag)` after this many virtual ms (timers die when the node goes down).
    case timer(afterMs: UInt64, tag: UInt32)
}

/// The per-call context of a node: who it is, the time, the world it lives in, and the
/// outbox of directives. One context is reused for every call (no allocation per event).
public struct SimContext<Payload> {
    public let world: World
    public internal(set) var node: NodeID = 0
    /// Virtual time, ms since the start of the run.
    public internal(set) var nowMs: UInt64 = 0
    var directives: [SimDirective<Payload>] = []
    /// Op envelopes the next datagram sent is charged with (an adapter that counts them per
    /// call charges them to the call's first datagram).
    var opsToCharge = 0

    init(world: World) {
        self.world = world
        directives.reserveCapacity(64)
    }

    /// The wall clock replicas and engines see (ms since the Unix epoch).
    public var wallMs: UInt64 { world.scenario.epochMs &+ nowMs }
    public var headerBytes: Int { world.scenario.network.headerBytes }

    public mutating func send(_ payload: Payload, to: NodeID, bytes: Int, ops: Int = 0) {
        directives.append(.send(payload, to: to, bytes: bytes, ops: ops))
    }
    public mutating func deliver(_ op: OpRef) { directives.append(.deliver(op)) }
    public mutating func admitted(_ op: SignedOp) { directives.append(.admitted(op)) }
    public mutating func schedule(afterMs: UInt64, tag: UInt32 = 0) { directives.append(.timer(afterMs: afterMs, tag: tag)) }
}

/// A node's protocol as a state machine driven by the simulator (sans-IO): a message, a
/// timer or a local op comes in with the current time; directives go out through the
/// context. The node's real `Replica` is lent for the call. This is the seam a sans-IO
/// engine plugs into with a thin adapter: for SkwadGossip, `Payload` is the datagram
/// bytes, `receive` calls `engine.receive(datagram:from:nowMs:replica:)`, `timer` calls
/// `engine.tick`, `localUpdate` calls `engine.publish`, and the engine's directives map
/// one to one (send → `.send`, admitted → `.admitted`, scheduleTick → `.timer`).
public protocol SimProtocol: SendableMetatype {
    associatedtype Payload
    /// The node comes up: at the start of the run, or back after churn. `replica` holds
    /// whatever the node kept (empty when it lost its data).
    mutating func start(replica: inout Replica, _ ctx: inout SimContext<Payload>)
    mutating func receive(_ payload: Payload, from: NodeID, replica: inout Replica, _ ctx: inout SimContext<Payload>)
    mutating func timer(_ tag: UInt32, replica: inout Replica, _ ctx: inout SimContext<Payload>)
    /// The node's user made `op`; the simulator has already admitted it to `replica`.
    mutating func localUpdate(_ op: OpRef, replica: inout Replica, _ ctx: inout SimContext<Payload>)
}

/// Makes the per-node state machines of one strategy (fresh state for a node that
/// starts or restarts).
public protocol SimStrategy: SendableMetatype {
    associatedtype Node: SimProtocol
    var name: String { get }
    /// Rounds of this strategy, if it works in rounds (used to report rounds to full coverage).
    var roundMs: UInt64? { get }
    func makeNode(_ id: NodeID, world: World) -> Node
    /// Its nodes share no mutable state (each changes only itself and its replica), so the
    /// simulator may run several at once (ParallelWindow.swift). False unless said.
    var independentNodes: Bool { get }
}

extension SimStrategy {
    public var independentNodes: Bool { false }
}
