import HeapModule

/// Datagrams in flight, a min-heap ordered by (arrival, send order): deterministic.
struct DatagramQueue {
    struct Entry: Comparable {
        let at: UInt64
        let seq: UInt64
        let to: Int
        let from: Int
        let bytes: [UInt8]
        static func < (x: Entry, y: Entry) -> Bool { x.at != y.at ? x.at < y.at : x.seq < y.seq }
        /// `seq` never repeats, so (at, seq) identifies an entry.
        static func == (x: Entry, y: Entry) -> Bool { x.at == y.at && x.seq == y.seq }
    }
    private var heap = Heap<Entry>()
    private var nextSeq: UInt64 = 0

    var count: Int { heap.count }
    var peekTime: UInt64? { heap.min?.at }

    mutating func push(at: UInt64, to: Int, from: Int, bytes: [UInt8]) {
        heap.insert(Entry(at: at, seq: nextSeq, to: to, from: from, bytes: bytes))
        nextSeq &+= 1
    }

    mutating func pop() -> Entry? { heap.popMin() }
}
