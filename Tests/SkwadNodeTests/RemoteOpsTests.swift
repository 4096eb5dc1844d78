import Foundation
import Testing
import SkwadCrypto
import SkwadModel
import SkwadReplica
@testable import SkwadNode
import SkwadStore

/// Two nodes exchanging ops through the seam the gossip layer uses (`Node.receive`).
@Suite struct RemoteOpsTests {
    @Test func opsFromAnotherNodeAreAdmittedStoredAndAnnounced() async throws {
        let dirA = tempDataDir(), dirB = tempDataDir()
        defer { for d in [dirA, dirB] { try? FileManager.default.removeItem(atPath: d) } }
        var cfgA = testConfig(dirA)
        cfgA.powBits = 8
        let a = try Node(config: cfgA), b = try Node(config: testConfig(dirB))
        let fromA = Collector<SignedOp>(), fromB = Collector<SignedOp>()
        let eventsA = Collector<NodeEvent>(), eventsB = Collector<NodeEvent>()
        await a.setLocalOpSink { fromA.append($0) }
        await b.setLocalOpSink { fromB.append($0) }
        await a.setEventSink { eventsA.append($0) }
        await b.setEventSink { eventsB.append($0) }

        let pack = try await a.createPack(name: "Quad", radiusMeters: nil, locked: false, tags: [], color: "")
        let post = try await a.post(pack: "Quad", title: "Hello", body: "there", tags: [])
        let r = await b.receive(fromA.drain().map(\.bytes))
        #expect(r.admitted.count == 2 && r.storeError == nil)
        #expect(eventsB.all.isEmpty)   // B has not joined Quad: no announcement
        _ = try await b.join("Quad")

        // B's first op in Quad mints its pseudonym's stamp with the pack's 8 bits, once.
        let comment = try await b.comment(on: post.short(), text: "hi from B")
        let bComment = try #require(fromB.drain().first)
        guard case .createPack(let genesis) = try #require(await a.replica.op(pack.id)).body.kind else { Issue.record("no genesis"); return }
        #expect(ProofOfWork.isValid(genesisNonce: genesis.nonce, author: bComment.author.bytes, stamp: bComment.body.stamp, bits: 8))
        #expect(try await b.store.stamps()[pack.id] == bComment.body.stamp)

        // A hears of the comment on its post; B hears of A's vote on its comment and A's new post.
        #expect(await a.receive([bComment.bytes]).admitted.map(\.id) == [comment])
        #expect(eventsA.drain().contains { if case .newComment(let c, "Quad") = $0 { c.id == comment } else { false } })
        _ = try await a.vote(on: comment.short(), value: 1)
        let second = try await a.post(pack: "Quad", title: "Second", body: "post", tags: [])
        let batch = fromA.drain().map(\.bytes)
        #expect(await b.receive(batch).admitted.count == 2)
        let heard = eventsB.drain()
        #expect(heard.contains { if case .voteOnYours(_, 1) = $0 { true } else { false } })
        #expect(heard.contains { if case .newPost(let p) = $0 { p.id == second } else { false } })

        // Duplicates and garbage are counted, not fatal.
        let again = await b.receive(batch + [[0xFF, 0x01, 0x02]])
        #expect(again.outcomes.prefix(2).allSatisfy { $0 == .duplicate })
        if case .rejected(.malformed, _) = again.outcomes[2] {} else { Issue.record("garbage not rejected as malformed: \(again.outcomes[2])") }
        let stats = await b.stats
        #expect(stats.duplicates == 2 && stats.rejected["malformed"] == 1 && stats.admitted == 4)

        // What B received was committed: a restart shows it, and B keeps its stamp.
        await b.close()
        let b2 = try Node(config: testConfig(dirB))
        #expect(try await b2.feed(pack: nil, sort: .new, limit: 10).map(\.title) == ["Second", "Hello"])
        _ = try await b2.vote(on: second.short(), value: 1)
        #expect(try await b2.resolveOp(second.short()).id == second)
        let vote = try #require(await b2.replica.allOps.first { if case .vote = $0.body.kind { $0.author == bComment.author } else { false } })
        #expect(vote.body.stamp == bComment.body.stamp)
    }

    @Test func expiredPacksArePurgedFromMemoryAndDiskAndStayGone() async throws {
        let dir = tempDataDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clock = TestClock()
        let genesisBytes: [UInt8]
        do {
            let node = try Node(config: testConfig(dir), now: { clock.now })
            let sent = Collector<SignedOp>()
            await node.setLocalOpSink { sent.append($0) }
            _ = try await node.createPack(name: "Brief", radiusMeters: nil, locked: false, tags: [], color: "")
            _ = try await node.post(pack: "Brief", title: "soon gone", body: "b", tags: [])
            genesisBytes = try #require(sent.all.first).bytes
            #expect(await node.packs().count == 1)
            clock.advance(ms: Lifetime.maxMs + Lifetime.purgeGraceMs + 1)
            #expect(await node.packs().isEmpty)
            #expect(await node.stats.packsPurged == 1)
            #expect(try await node.store.opCount() == 0)
            #expect(await node.joinedPackIDs.isEmpty)
        }
        let again = try Node(config: testConfig(dir), now: { clock.now })
        #expect(await again.packs().isEmpty)
        let back = await again.receive([genesisBytes])
        if case .rejected(let why, _) = back.outcomes[0] { #expect(why == .packExpired) } else { Issue.record("stale genesis came back: \(back.outcomes[0])") }
    }
}
