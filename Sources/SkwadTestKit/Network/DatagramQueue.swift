/// Datagrams in flight, a binary min-heap ordered by (arrival, send order): deterministic.
struct DatagramQueue {
    struct Entry {
        let at: UInt64
        let seq: UInt64
        let to: Int
        let from: Int
        let bytes: [UInt8]
        static func precedes(_ x: Entry, _ y: Entry) -> Bool { x.at != y.at ? x.at < y.at : x.seq < y.seq }
    }
    private var heap: [Entry] = []
    private var nextSeq: UInt64 = 0

    var count: Int { heap.count }
    var peekTime: UInt64? { heap.first?.at }

    mutating func push(at: UInt64, to: Int, from: Int, bytes: [UInt8]) {
        let e = Entry(at: at, seq: nextSeq, to: to, from: from, bytes: bytes)
        nextSeq &+= 1
        heap.append(e)
        var i = heap.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard Entry.precedes(e, heap[parent]) else { break }
            heap[i] = heap[parent]
            i = parent
        }
        heap[i] = e
    }

    mutating func pop() -> Entry? {
        guard let top = heap.first else { return nil }
        let last = heap.removeLast()
        guard !heap.isEmpty else { return top }
        var i = 0
        let n = heap.count
        while true {
            let l = 2 * i + 1
            guard l < n else { break }
            let r = l + 1
            let c = (r < n && Entry.precedes(heap[r], heap[l])) ? r : l
            guard Entry.precedes(heap[c], last) else { break }
            heap[i] = heap[c]
            i = c
        }
        heap[i] = last
        return top
    }
}
