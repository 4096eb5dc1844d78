import SkwadModel

/// What a driver of a `GossipEngine` does with the engine's directives, told by the one
/// interpreter (`DirectiveInterpreter`): the node (a socket, sleeping tasks, the store), the
/// simulator and the in-memory test network each implement it.
public protocol DirectiveSink {
    /// One datagram to `to`.
    mutating func send(_ bytes: [UInt8], to: PeerAddress)
    /// A new live tick timer, `afterMs` from now, under `generation`: when it fires, the driver
    /// asks the interpreter's `timer.fire(generation)` and ticks the engine if that says so.
    mutating func scheduleTick(generation: UInt32, afterMs: UInt64)
    /// The ops the engine admitted into the replica in this call, in order; once per `carry`,
    /// after every other directive, and only when there are some.
    mutating func admitted(_ ops: [SignedOp])
    /// A link came up (true) or went down.
    mutating func peer(_ peer: PeerAddress, up: Bool)
    /// `blocksWanted`, `blockReceived` or `pictureComplete`, in directive order. The driver's
    /// answers (`answerBlocks`, `answerNotHeld`) are engine calls of their own, whose
    /// directives go through `carry` again: a sink does not call the engine from here.
    mutating func picture(_ directive: GossipDirective)
}

/// The one interpreter of a `GossipEngine`'s directives, for every driver. Pure: no I/O and no
/// clock (it is given `nowMs`, the driver's clock for its timers). It keeps the driver's one
/// tick timer (`TickTimer`, the rule of `GossipDirective.scheduleTick`), with a saturating
/// due time, and hands everything else to the sink in directive order (admitted ops batched
/// at the end).
public struct DirectiveInterpreter: Sendable {
    public var timer = TickTimer()

    public init() {}

    public mutating func carry<Sink: DirectiveSink>(_ directives: [GossipDirective], nowMs: UInt64, into sink: inout Sink) {
        var admitted: [SignedOp] = []
        for d in directives {
            switch d {
            case .send(let bytes, let to):
                sink.send(bytes, to: to)
            case .scheduleTick(let after):
                if let g = timer.request(dueMs: Self.due(nowMs: nowMs, afterMs: after)) { sink.scheduleTick(generation: g, afterMs: after) }
            case .admitted(let op):
                admitted.append(op)
            case .peerUp(let p):
                sink.peer(p, up: true)
            case .peerDown(let p):
                sink.peer(p, up: false)
            case .blocksWanted, .blockReceived, .pictureComplete:
                sink.picture(d)
            }
        }
        if !admitted.isEmpty { sink.admitted(admitted) }
    }

    /// `nowMs + afterMs`, or the far future when that does not fit: never a trap.
    static func due(nowMs: UInt64, afterMs: UInt64) -> UInt64 {
        let (due, overflow) = nowMs.addingReportingOverflow(afterMs)
        return overflow ? .max : due
    }
}
