/// A token bucket in virtual time: `rate` tokens per second, at most `burst`.
struct TokenBucket: Sendable {
    let rate: Double
    let burst: Double
    var tokens: Double
    var lastMs: UInt64

    init(rate: Double, burst: Double, nowMs: UInt64) { self.rate = rate; self.burst = burst; tokens = burst; lastMs = nowMs }

    /// Refilled to its burst by `nowMs` (an idle bucket, safe to forget).
    mutating func isFull(nowMs: UInt64) -> Bool {
        if nowMs > lastMs { tokens = min(burst, tokens + Double(nowMs - lastMs) / 1000 * rate); lastMs = nowMs }
        return tokens >= burst
    }

    mutating func take(_ n: Double, nowMs: UInt64) -> Bool {
        if nowMs > lastMs { tokens = min(burst, tokens + Double(nowMs - lastMs) / 1000 * rate); lastMs = nowMs }
        guard tokens >= n else { return false }
        tokens -= n
        return true
    }

    /// Milliseconds after which an untouched bucket is full again (forgetting it loses nothing).
    var refillMs: UInt64 { rate > 0 ? UInt64(min(burst / rate * 1000, 86_400_000).rounded(.up)) : .max }
}

extension Dictionary where Value == TokenBucket {
    /// Before a new key: when the table's storage is full, forgets the buckets that have
    /// refilled (exact: a new bucket starts full, and a kept one is not touched), so that the
    /// table grows with the buckets in use, not with every key of the last sweep interval
    /// (the pseudonyms of a directory's geneses, all met in a node's first seconds).
    /// A pass that frees little leaves room to double, as growing would: the next pass waits
    /// until the table has doubled, so a run of new keys costs no pass per key.
    mutating func forgetRefilledBeforeGrowing(nowMs: UInt64) {
        guard count >= capacity else { return }
        let before = count
        forgetRefilled(nowMs: nowMs)
        if count * 4 > before * 3 { reserveCapacity(before * 2) }
    }

    /// Forgets the buckets that have refilled (exact, as above).
    mutating func forgetRefilled(nowMs: UInt64) {
        self = filter {
            var b = $0.value; return !b.isFull(nowMs: nowMs)
        }
    }
}

/// Per source address: a datagram bucket and a byte bucket (PROTOCOL §13), at most
/// `capacity` addresses. When full, addresses idle long enough for their buckets to refill
/// are forgotten (nothing is lost: a new bucket starts full), then the least recently heard
/// down to three quarters of the capacity.
struct AddressLimits: Sendable {
    let capacity: Int
    let datagramsPerSecond: Double
    let bytesPerSecond: Double
    private(set) var buckets: [PeerAddress: (datagrams: TokenBucket, bytes: TokenBucket)] = [:]
    private(set) var evictions = 0

    init(capacity: Int, datagramsPerSecond: Double, bytesPerSecond: Double) {
        self.capacity = max(1, capacity); self.datagramsPerSecond = datagramsPerSecond; self.bytesPerSecond = bytesPerSecond
    }

    var count: Int { buckets.count }

    /// Takes one datagram of `bytes` from `address`'s buckets; false: over the limit.
    mutating func take(from address: PeerAddress, bytes: Int, nowMs: UInt64) -> Bool {
        // One hash lookup for a known address (this runs for every datagram).
        if let i = buckets.index(forKey: address) {
            return Self.take(&buckets.values[i], bytes: bytes, nowMs: nowMs)
        }
        if buckets.count >= capacity { evict(nowMs: nowMs) }
        var fresh = (
            datagrams: TokenBucket(rate: datagramsPerSecond, burst: datagramsPerSecond, nowMs: nowMs),
            bytes: TokenBucket(rate: bytesPerSecond, burst: bytesPerSecond, nowMs: nowMs)
        )
        let ok = Self.take(&fresh, bytes: bytes, nowMs: nowMs)
        buckets[address] = fresh
        return ok
    }

    private static func take(_ b: inout (datagrams: TokenBucket, bytes: TokenBucket), bytes: Int, nowMs: UInt64) -> Bool {
        b.datagrams.take(1, nowMs: nowMs) && b.bytes.take(Double(bytes), nowMs: nowMs)
    }

    /// Forgets the addresses whose buckets have refilled (a new bucket starts full: nothing
    /// changes but the memory), not counted as evictions.
    mutating func sweep(nowMs: UInt64) {
        buckets = buckets.filter { _, b in !Self.refilled(b, nowMs: nowMs) }
    }

    private static func refilled(_ b: (datagrams: TokenBucket, bytes: TokenBucket), nowMs: UInt64) -> Bool {
        var d = b.datagrams, y = b.bytes
        return d.isFull(nowMs: nowMs) && y.isFull(nowMs: nowMs)
    }

    /// Forgets idle addresses; if more than three quarters of the table is still busy, the
    /// least recently heard go down to three quarters. Each eviction frees at least a
    /// quarter of the table, so a spray of new addresses costs O(log n) per datagram.
    private mutating func evict(nowMs: UInt64) {
        let before = buckets.count
        buckets = buckets.filter { _, b in
            let idle = nowMs > b.datagrams.lastMs ? nowMs - b.datagrams.lastMs : 0
            return idle < max(b.datagrams.refillMs, b.bytes.refillMs)
        }
        let keep = capacity - max(1, capacity / 4)
        if buckets.count > keep {
            let oldest = buckets.sorted { x, y in
                x.value.datagrams.lastMs != y.value.datagrams.lastMs ? x.value.datagrams.lastMs < y.value.datagrams.lastMs : x.key < y.key
            }.prefix(buckets.count - keep)
            for (a, _) in oldest { buckets[a] = nil }
        }
        evictions += before - buckets.count
    }
}
