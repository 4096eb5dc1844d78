import Foundation
import Testing
import SkwadCrypto
import SkwadModel
import SkwadReplica
@testable import SkwadNode

/// Issue 10, finding 2: timestamps must not tag authors. A remote op moves only its own
/// pack's clock, and never more than `PackClocks.defaultMaxLeadMs` ahead of wall time.
@Suite struct ClockHygieneTests {
    static let t0: UInt64 = 1_790_000_000_000

    @Test func aRemoteOpAheadMovesNoOtherPacksClockAndOwnPackOnlyBoundedly() async throws {
        let dirA = tempDataDir(), dirB = tempDataDir()
        defer { for d in [dirA, dirB] { try? FileManager.default.removeItem(atPath: d) } }
        let ahead: UInt64 = 50_000   // within the 60 s default skew: admitted
        let a = try Node(config: testConfig(dirA), now: { Self.t0 + ahead })
        let b = try Node(config: testConfig(dirB), now: { Self.t0 })
        let sent = Collector<SignedOp>()
        await a.setLocalOpSink { sent.append($0) }
        _ = try await a.createPack(name: "Theirs", radiusMeters: nil, locked: false, tags: [], color: "")
        _ = try await a.post(pack: "Theirs", title: "from the future", body: "", tags: [])
        #expect(await b.receive(sent.drain().map(\.bytes)).admitted.count == 2)

        let mine = try await b.createPack(name: "Mine", radiusMeters: nil, locked: false, tags: [], color: "")
        let post = try await b.post(pack: "Mine", title: "unrelated", body: "", tags: [])
        let mineOp = try #require(await b.replica.op(post))
        #expect(mineOp.hlc.physicalMs == Self.t0)
        #expect(try #require(await b.replica.op(mine.id)).hlc.physicalMs == Self.t0)

        _ = try await b.join("Theirs")
        let reply = try await b.post(pack: "Theirs", title: "reply", body: "", tags: [])
        let replyOp = try #require(await b.replica.op(reply))
        #expect(replyOp.hlc.physicalMs <= Self.t0 + PackClocks.defaultMaxLeadMs)
    }

    @Test func opsMoreThanAMinuteAheadAreRejectedByDefault() async throws {
        let dirA = tempDataDir(), dirB = tempDataDir()
        defer { for d in [dirA, dirB] { try? FileManager.default.removeItem(atPath: d) } }
        let a = try Node(config: testConfig(dirA), now: { Self.t0 + 90_000 })
        let b = try Node(config: testConfig(dirB), now: { Self.t0 })
        let sent = Collector<SignedOp>()
        await a.setLocalOpSink { sent.append($0) }
        _ = try await a.createPack(name: "Early", radiusMeters: nil, locked: false, tags: [], color: "")
        let r = await b.receive(sent.drain().map(\.bytes))
        guard case .rejected(.clockAhead, _) = r.outcomes.first else { Issue.record("not rejected: \(r.outcomes)"); return }
        #expect(NodeConfig.embeddedDefault.maxClockSkewMs == 60_000)
        #expect(try NodeConfig.parse("max_clock_skew_ms = 120000").maxClockSkewMs == 120_000)
        #expect(throws: ConfigError.self) { try NodeConfig.parse("max_clock_skew_ms = 0") }
    }
}

@Suite struct PackClocksTests {
    @Test func observeIsBoundedAndPerPack() {
        var c = PackClocks()
        let p1 = OpID.of(body: [1]), p2 = OpID.of(body: [2])
        c.observe(HLC(physicalMs: 10_000_000, counter: 3), in: p1, physicalMs: 1_000)
        #expect(c.last(p1) == HLC(physicalMs: 1_000 + PackClocks.defaultMaxLeadMs, counter: 0))
        #expect(c.tick(p2, physicalMs: 1_000) == HLC(physicalMs: 1_000, counter: 0))
        #expect(c.tick(p1, physicalMs: 1_000) == HLC(physicalMs: 2_000, counter: 1))
    }
}
