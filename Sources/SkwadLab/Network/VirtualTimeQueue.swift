/// The one virtual-time queue: what is due, popped in order of (time, sequence number). The
/// sequence number is given at push time and never repeats, so the order is total and ties
/// break by the order of scheduling: a run is deterministic. The simulator's events and the
/// engine tests' datagrams in flight (`InMemoryNetwork`) wait here.
///
/// Times are whole milliseconds and never earlier than the last entry popped (a node only
/// schedules from now on). Entries within `window` ms of the last popped time wait in one
/// first-in-first-out bucket per millisecond (a ring): within a bucket, push order is
/// sequence order. Later entries wait in a binary heap (`TimeHeap`) and move into their
/// buckets, in (time, sequence) order, when the window reaches them — before any entry can
/// be pushed straight into those buckets, so each bucket stays in sequence order. Popping
/// from the heap alone (all pending events, tens of thousands in the 10,000-node city) was
/// a cache miss per level. Inlinable: the simulator's hot loop runs in another module.
public struct VirtualTimeQueue<Payload> {
    public struct Entry {
        public let time: UInt64
        public let seq: UInt64
        public let payload: Payload

        @inlinable init(time: UInt64, seq: UInt64, payload: Payload) { self.time = time; self.seq = seq; self.payload = payload }

        @inlinable @inline(__always)
        static func precedes(_ x: Entry, _ y: Entry) -> Bool { x.time != y.time ? x.time < y.time : x.seq < y.seq }
    }

    /// Milliseconds the ring covers (a power of two): the simulated network's delays and the
    /// engines' timers (at most a second) fall within it.
    public static var window: UInt64 { 2048 }
    /// Entries a bucket may keep room for whatever it last held.
    @usableFromInline static var keptCapacity: Int { 64 }
    @usableFromInline var ring: [[Entry]]
    /// How many entries of each bucket were popped already.
    @usableFromInline var heads: [Int]
    /// The bucket being popped: every entry before `base` is gone.
    @usableFromInline var base: UInt64 = 0
    @usableFromInline var near = 0
    @usableFromInline var far = TimeHeap<Payload>()
    @usableFromInline var nextSeq: UInt64 = 0

    @inlinable
    public init(capacity: Int = 1024) {
        ring = Array(repeating: [], count: Int(Self.window))
        heads = Array(repeating: 0, count: Int(Self.window))
        far.reserve(capacity)
    }

    @inlinable public var count: Int { near + far.count }
    @inlinable public var isEmpty: Bool { count == 0 }

    /// When the next entry is due (nil: none waits). Reads the ring from `base` on without
    /// moving it, so an entry may still be pushed for any time from the last one popped.
    @inlinable
    public var peekTime: UInt64? {
        guard near > 0 else { return far.peekTime }
        var t = base
        while true {
            let slot = Int(t & (Self.window - 1))
            if heads[slot] < ring[slot].count { return t }
            t += 1
        }
    }

    @inlinable
    public mutating func push(at time: UInt64, _ payload: Payload) {
        precondition(time >= base, "scheduled before the current time")
        let e = Entry(time: time, seq: nextSeq, payload: payload)
        nextSeq &+= 1
        if time - base < Self.window {
            ring[Int(time & (Self.window - 1))].append(e)
            near += 1
        } else {
            far.push(e)
        }
    }

    /// Takes the sequence number the next `push` would get, for an entry its caller keeps
    /// outside the queue (the simulator's parallel window orders such entries with the
    /// queue's as if they had been pushed).
    @inlinable
    public mutating func reserveSeq() -> UInt64 {
        defer { nextSeq &+= 1 }
        return nextSeq
    }

    @inlinable
    public mutating func pop() -> Entry? {
        while true {
            if near > 0 {
                let slot = Int(base & (Self.window - 1))
                let h = heads[slot]
                if h < ring[slot].count {
                    let e = ring[slot][h]
                    near -= 1
                    if h + 1 == ring[slot].count {
                        // A bucket keeps room for about what it held, not for the largest
                        // burst it ever held (a start's burst would keep its memory while
                        // a few thousand entries wait).
                        let held = h + 1
                        if ring[slot].capacity > max(Self.keptCapacity, 2 * held) {
                            ring[slot] = []
                            ring[slot].reserveCapacity(held)
                        } else {
                            ring[slot].removeAll(keepingCapacity: true)
                        }
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
            // times were before `base`), so the far entries for them go in first.
            while let t = far.peekTime, t - base < Self.window {
                ring[Int(t & (Self.window - 1))].append(far.pop()!)
                near += 1
            }
        }
    }
}

/// A binary min-heap of queue entries ordered by (time, sequence number): the far part of a
/// `VirtualTimeQueue`, and the reference order its tests compare with.
public struct TimeHeap<Payload> {
    public typealias Entry = VirtualTimeQueue<Payload>.Entry
    @usableFromInline var heap: [Entry] = []

    @inlinable public init() {}

    @inlinable public var count: Int { heap.count }
    @inlinable public var peekTime: UInt64? { heap.first?.time }
    /// The entry `pop` would return next.
    @inlinable public var peek: Entry? { heap.first }

    @inlinable public mutating func reserve(_ n: Int) { heap.reserveCapacity(n) }

    /// Pushes an entry made by a queue, or (a test's reference) `payload` at `time` with `seq`.
    @inlinable public mutating func push(time: UInt64, seq: UInt64, _ payload: Payload) {
        push(Entry(time: time, seq: seq, payload: payload))
    }

    @inlinable
    mutating func push(_ e: Entry) {
        heap.append(e)
        var i = heap.count - 1
        while i > 0 {
            let parent = (i - 1) >> 1
            guard Entry.precedes(e, heap[parent]) else { break }
            heap[i] = heap[parent]
            i = parent
        }
        heap[i] = e
    }

    @inlinable
    public mutating func pop() -> Entry? {
        guard let top = heap.first else { return nil }
        let last = heap.removeLast()
        guard !heap.isEmpty else { return top }
        let n = heap.count
        var i = 0
        while true {
            let l = 2 * i + 1
            guard l < n else { break }
            let r = l + 1
            let child = (r < n && Entry.precedes(heap[r], heap[l])) ? r : l
            guard Entry.precedes(heap[child], last) else { break }
            heap[i] = heap[child]
            i = child
        }
        heap[i] = last
        return top
    }
}
