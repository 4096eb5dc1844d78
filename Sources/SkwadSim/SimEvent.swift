import SkwadLab

/// One scheduled event, waiting in the simulator's `VirtualTimeQueue` (SkwadLab), which
/// keeps its time and sequence number. Small and allocation-free: payloads of messages live
/// in a slab and are referred to by index.
struct SimEvent {
    enum Kind: UInt8 {
        case message  // node <- a (sender), b = payload slot
        case timer  // node, b = tag, c = incarnation
        case localOp  // a = op index
        case sample
        case nodeDown  // node
        case nodeUp  // node, b = 1 when it keeps its data
        case partitionStart, partitionHeal  // a = partition index
    }
    var kind: Kind
    var node: Int32
    var a: Int32
    var b: UInt32
    var c: UInt32
}

extension VirtualTimeQueue where Payload == SimEvent {
    @inline(__always)
    mutating func push(time: UInt64, kind: SimEvent.Kind, node: Int32 = 0, a: Int32 = 0, b: UInt32 = 0, c: UInt32 = 0) {
        push(at: time, SimEvent(kind: kind, node: node, a: a, b: b, c: c))
    }
}
