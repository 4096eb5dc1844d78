/// One scheduled event. Small and allocation-free: payloads of messages live in a slab and
/// are referred to by index.
struct SimEvent {
    enum Kind: UInt8 {
        case message      // node <- a (sender), b = payload slot
        case timer        // node, b = tag, c = incarnation
        case localOp      // a = op index
        case sample
        case nodeDown     // node
        case nodeUp       // node, b = 1 when it keeps its data
        case partitionStart, partitionHeal   // a = partition index
    }
    var time: UInt64
    var seq: UInt64
    var kind: Kind
    var node: Int32
    var a: Int32
    var b: UInt32
    var c: UInt32

    @inline(__always)
    static func precedes(_ x: SimEvent, _ y: SimEvent) -> Bool {
        x.time != y.time ? x.time < y.time : x.seq < y.seq
    }
}

/// A binary min-heap of events ordered by (time, sequence number). The sequence number is
/// given at push time and never repeats, so the order is total and ties break by the
/// order of scheduling: the run is deterministic.
struct EventQueue {
    private var heap: [SimEvent] = []
    private(set) var nextSeq: UInt64 = 0

    init(capacity: Int = 1024) { heap.reserveCapacity(capacity) }

    var count: Int { heap.count }
    var isEmpty: Bool { heap.isEmpty }
    var peekTime: UInt64? { heap.first?.time }

    mutating func push(time: UInt64, kind: SimEvent.Kind, node: Int32 = 0, a: Int32 = 0, b: UInt32 = 0, c: UInt32 = 0) {
        let e = SimEvent(time: time, seq: nextSeq, kind: kind, node: node, a: a, b: b, c: c)
        nextSeq &+= 1
        heap.append(e)
        var i = heap.count - 1
        while i > 0 {
            let parent = (i - 1) >> 1
            guard SimEvent.precedes(e, heap[parent]) else { break }
            heap[i] = heap[parent]
            i = parent
        }
        heap[i] = e
    }

    mutating func pop() -> SimEvent? {
        guard let top = heap.first else { return nil }
        let last = heap.removeLast()
        guard !heap.isEmpty else { return top }
        let n = heap.count
        var i = 0
        while true {
            let l = 2 * i + 1
            guard l < n else { break }
            let r = l + 1
            let child = (r < n && SimEvent.precedes(heap[r], heap[l])) ? r : l
            guard SimEvent.precedes(heap[child], last) else { break }
            heap[i] = heap[child]
            i = child
        }
        heap[i] = last
        return top
    }
}
