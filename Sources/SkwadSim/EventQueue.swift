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

/// The events to come, popped in order of (time, sequence number). The sequence number is
/// given at push time and never repeats, so the order is total and ties break by the
/// order of scheduling: the run is deterministic.
///
/// Times are whole milliseconds and never earlier than the last event popped (a node only
/// schedules from now on). Events within `window` ms of the last popped time wait in one
/// first-in-first-out bucket per millisecond (a ring): within a bucket, push order is
/// sequence order. Later events wait in a binary heap (`FarEvents`) and move into their
/// buckets, in (time, sequence) order, when the window reaches them — before any event can
/// be pushed straight into those buckets, so each bucket stays in sequence order. Popping
/// from the heap alone (all pending events, tens of thousands in the 10,000-node city) was
/// a cache miss per level.
struct EventQueue {
    /// Milliseconds the ring covers (a power of two): the network's delays and the engines'
    /// timers (at most a second) fall within it.
    static let window: UInt64 = 2048
    private var ring: [[SimEvent]]
    /// How many events of each bucket were popped already.
    private var heads: [Int]
    /// The bucket being popped: every event before `base` is gone.
    private var base: UInt64 = 0
    private var near = 0
    private var far = FarEvents()
    private(set) var nextSeq: UInt64 = 0

    init(capacity: Int = 1024) {
        ring = Array(repeating: [], count: Int(Self.window))
        heads = Array(repeating: 0, count: Int(Self.window))
        far.reserve(capacity)
    }

    var count: Int { near + far.count }
    var isEmpty: Bool { count == 0 }

    mutating func push(time: UInt64, kind: SimEvent.Kind, node: Int32 = 0, a: Int32 = 0, b: UInt32 = 0, c: UInt32 = 0) {
        precondition(time >= base, "event scheduled before the current time")
        let e = SimEvent(time: time, seq: nextSeq, kind: kind, node: node, a: a, b: b, c: c)
        nextSeq &+= 1
        if time - base < Self.window {
            ring[Int(time & (Self.window - 1))].append(e)
            near += 1
        } else {
            far.push(e)
        }
    }

    mutating func pop() -> SimEvent? {
        while true {
            if near > 0 {
                let slot = Int(base & (Self.window - 1))
                let h = heads[slot]
                if h < ring[slot].count {
                    let e = ring[slot][h]
                    near -= 1
                    if h + 1 == ring[slot].count {
                        ring[slot].removeAll(keepingCapacity: true)
                        heads[slot] = 0
                    } else {
                        heads[slot] = h + 1
                    }
                    return e
                }
                base += 1
            } else if let t = far.peekTime {
                base = t
            } else {
                return nil
            }
            // The window now reaches `base + window - 1`: those buckets are empty (their last
            // times were before `base`), so the far events for them go in first.
            while let t = far.peekTime, t - base < Self.window {
                ring[Int(t & (Self.window - 1))].append(far.pop()!)
                near += 1
            }
        }
    }
}

/// A binary min-heap of events ordered by (time, sequence number).
struct FarEvents {
    private var heap: [SimEvent] = []

    var count: Int { heap.count }
    var peekTime: UInt64? { heap.first?.time }

    mutating func reserve(_ n: Int) { heap.reserveCapacity(n) }

    mutating func push(_ e: SimEvent) {
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
