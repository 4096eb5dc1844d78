import Testing
import SkwadCrypto
@testable import SkwadGossip

/// The session table keeps each slot behind one reference, copied on write: a copy of a table
/// (an engine copied by a test, or handed to another thread) never shares a session's state.
@Suite struct SessionTableTests {
    static func keyedTable() -> (SessionTable, PeerAddress) {
        let client = try! KxKeyPair(seed: [UInt8](repeating: 1, count: 32))
        let server = try! KxKeyPair(seed: [UInt8](repeating: 2, count: 32))
        var s = Session(initiatorWith: client, nowMs: 0)
        let keyed = s.completeAsInitiator(serverKey: server.publicKey)
        #expect(keyed)
        var t = SessionTable(capacity: 4)
        let a = PeerAddress("198.18.0.1:1")
        t[a] = s
        return (t, a)
    }

    @Test func aCopiedTableSealsOnItsOwnCounters() {
        let (t, a) = Self.keyedTable()
        var copy = t
        let sealed = copy.sealCurrent(a, [1, 2, 3], solicits: true, nowMs: 5, maxQueued: 8)
        #expect(sealed != nil)
        #expect(copy[a]?.keys?.sendCounter == 1)
        #expect(t[a]?.keys?.sendCounter == 0, "the original's session did not move")
        #expect(t[a]?.unansweredSinceMs == nil && copy[a]?.unansweredSinceMs == 5)
        var again = copy
        again.touch(a, nowMs: 9)
        #expect(again.slots[a]?.lastUsedMs == 9 && copy.slots[a]?.lastUsedMs == 0)
    }
}
