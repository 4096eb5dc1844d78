import Testing
import SkwadModel
@testable import SkwadGossip
import SkwadTestKit

/// The one interpreter of the engine's directives (DirectiveInterpreter.swift), which the node,
/// the simulator and the in-memory network all use.
@Suite struct DirectiveInterpreterTests {
    /// Everything the interpreter told, in order, as text.
    struct Recorder: DirectiveSink {
        var told: [String] = []
        mutating func send(_ bytes: [UInt8], to: PeerAddress) { told.append("send \(bytes.count) \(to)") }
        mutating func scheduleTick(generation: UInt32, afterMs: UInt64) { told.append("tick \(generation) +\(afterMs)") }
        mutating func admitted(_ ops: [SignedOp]) { told.append("admitted \(ops.count)") }
        mutating func peer(_ peer: PeerAddress, up: Bool) { told.append("\(up ? "up" : "down") \(peer)") }
        mutating func picture(_ directive: GossipDirective) { told.append("picture") }
    }

    static let a = PeerAddress("n1"), b = PeerAddress("n2")

    @Test func directivesReachTheSinkInOrderWithAdmittedOpsBatchedLast() {
        var f = OpFactory(seed: 7, floors: false)
        let u = f.user()
        let g = f.createPack(by: u)
        let p = f.post(by: u, in: g)
        var i = DirectiveInterpreter()
        var sink = Recorder()
        let ds: [GossipDirective] = [
            .admitted(g), .send([1, 2], to: Self.a), .peerUp(Self.b), .scheduleTick(afterMs: 50), .admitted(p),
            .pictureComplete(root: [9], pack: g.id), .peerDown(Self.a), .scheduleTick(afterMs: 80), .scheduleTick(afterMs: 10)
        ]
        i.carry(ds, nowMs: 1000, into: &sink)
        #expect(sink.told == ["send 2 n1", "up n2", "tick 1 +50", "picture", "down n1", "tick 2 +10", "admitted 2"])
        #expect(i.timer.dueMs == 1010)
        #expect(!i.timer.fire(1) && i.timer.fire(2) && i.timer.dueMs == nil)
    }

    /// A due time past the clock's range saturates: the far future, never a trap.
    @Test func aTickFarInTheFutureSaturates() {
        var i = DirectiveInterpreter()
        var sink = Recorder()
        i.carry([.scheduleTick(afterMs: .max - 5)], nowMs: 100, into: &sink)
        #expect(i.timer.dueMs == .max && sink.told == ["tick 1 +\(UInt64.max - 5)"])
        // Nothing is due later than that: a second far request is ignored, a sooner one replaces it.
        i.carry([.scheduleTick(afterMs: .max)], nowMs: 200, into: &sink)
        i.carry([.scheduleTick(afterMs: 5)], nowMs: 200, into: &sink)
        #expect(i.timer.dueMs == 205 && sink.told.count == 2)
    }
}
