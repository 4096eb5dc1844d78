import Foundation
import Testing
import SkwadCrypto
import SkwadModel
import SkwadReplica
@testable import SkwadNode
import SkwadTestKit

/// Issue 10, finding 2: timestamps must not tag authors. A remote op moves only its own
/// pack's clock, and never more than `PackClocks.defaultMaxLeadMs` ahead of wall time.
@Suite(.serialized) struct ClockHygieneTests {
    static let t0: UInt64 = 1_790_000_000_000

    @Test func aRemoteOpAheadMovesNoOtherPacksClockAndOwnPackOnlyBoundedly() async throws {
        let ahead: UInt64 = 50_000  // within the 60 s default skew: admitted
        let clockA = RunningClock(ms: Self.t0 + ahead), clockB = RunningClock(ms: Self.t0)
        let net = TestNet()
        let a = try await net.add(now: { clockA.now })
        let b = try await net.add(now: { clockB.now })
        #expect(await net.linked())
        let theirs = try await a.createPack(name: "Theirs", radiusMeters: TestNet.radius, locked: false, tags: [], color: "")
        let early = try await a.post(pack: "Theirs", title: "from the future", body: "", tags: [])
        #expect(await eventually() { await holds(b, [early, theirs.id]) })

        // B's own clock, not A's lead, stamps B's ops in its own pack.
        let mine = try await b.createPack(name: "Mine", radiusMeters: nil, locked: false, tags: [], color: "")
        let post = try await b.post(pack: "Mine", title: "unrelated", body: "", tags: [])
        let bNow = clockB.now
        let mineOp = try #require(await b.replica.op(post))
        #expect(mineOp.hlc.physicalMs >= Self.t0 && mineOp.hlc.physicalMs <= bNow)
        // Not pulled to A's lead: well behind A's clock (whatever real time the run took).
        #expect(mineOp.hlc.physicalMs + ahead / 2 < clockA.now)
        let genesis = try #require(await b.replica.op(mine.id))
        #expect(genesis.hlc.physicalMs >= Self.t0 && genesis.hlc.physicalMs <= bNow)

        _ = try await b.join("Theirs")
        let reply = try await b.post(pack: "Theirs", title: "reply", body: "", tags: [])
        let replyOp = try #require(await b.replica.op(reply))
        #expect(replyOp.hlc.physicalMs <= clockB.now + PackClocks.defaultMaxLeadMs)
        await net.shutdown()
    }

    @Test func opsMoreThanAMinuteAheadAreRejectedByDefault() async throws {
        let clockA = RunningClock(ms: Self.t0 + 90_000), clockB = RunningClock(ms: Self.t0)
        let net = TestNet()
        let a = try await net.add(now: { clockA.now })
        let b = try await net.add(now: { clockB.now })
        #expect(await net.linked())
        let early = try await a.createPack(name: "Early", radiusMeters: TestNet.radius, locked: false, tags: [], color: "")
        func rejected() async -> Int { await b.networkStats().first { $0.0 == "reject.clockAhead" }?.1 ?? 0 }
        #expect(await eventually() { await rejected() >= 1 })
        #expect(await !b.replica.contains(early.id))
        #expect(try await b.store.opCount() == 0)
        await net.shutdown()
        #expect(NodeConfig.embeddedDefault.maxClockSkewMs == 60_000)
        #expect(try NodeConfig.parse("max_clock_skew_ms = 120000").maxClockSkewMs == 120_000)
        #expect(throws: ConfigError.self) { try NodeConfig.parse("max_clock_skew_ms = 0") }
    }
}
