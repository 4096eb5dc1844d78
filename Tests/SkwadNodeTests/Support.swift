import Foundation
import GRDB
import SkwadModel
@testable import SkwadNode
@testable import SkwadStore

/// A wall clock a test moves by hand (shared with the node's `now` closure).
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var ms: UInt64
    init(ms: UInt64 = 1_790_000_000_000) { self.ms = ms }
    var now: UInt64 { lock.withLock { ms } }
    func advance(ms d: UInt64) { lock.withLock { ms += d } }
}

/// Collects what a node hands to its sinks.
final class Collector<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [T] = []
    func append(_ x: T) { lock.withLock { items.append(x) } }
    var all: [T] { lock.withLock { items } }
    func drain() -> [T] {
        lock.withLock {
            defer { items.removeAll() }; return items
        }
    }
}

extension SignedOp {
    var bytes: [UInt8] { envelope.serialized() }
}

extension Store {
    /// Makes every later write fail (SQLITE_READONLY), as a failing disk would.
    func refuseWritesForTesting() throws {
        try db.writeWithoutTransaction { try $0.execute(sql: "PRAGMA query_only = 1") }
    }
}

/// A wall clock that runs with real time from `ms` and that a test can also move forward
/// by hand: gossip engines need time to pass (ticks, retries, reconciliation rounds).
final class RunningClock: @unchecked Sendable {
    private let lock = NSLock()
    private let start = DispatchTime.now().uptimeNanoseconds
    private var base: UInt64
    init(ms: UInt64 = 1_790_000_000_000) { base = ms }
    var now: UInt64 { lock.withLock { base + (DispatchTime.now().uptimeNanoseconds - start) / 1_000_000 } }
    func advance(ms d: UInt64) { lock.withLock { base += d } }
}
