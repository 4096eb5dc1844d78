import Foundation
import Testing
import SkwadCrypto
import SkwadModel
import SkwadReplica
@testable import SkwadNode
import SkwadStore
import SkwadTestKit

/// What the op events of a batch are (peer events left out).
func opEvents(_ events: [NodeEvent]) -> [NodeEvent] {
    events.filter { if case .peerJoined = $0 { false } else if case .peerLeft = $0 { false } else { true } }
}

/// Two nodes exchanging ops over the in-memory datagram network, the production path minus the socket (gossip engine,
/// admission, store, events).
@Suite(.serialized) struct RemoteOpsTests {
    @Test func opsFromAnotherNodeAreAdmittedStoredAndAnnounced() async throws {
        let net = TestNet()
        let a = try await net.add(config: { $0.powBits = 8 })
        let b = try await net.add()
        #expect(await net.linked())
        let eventsA = Collector<NodeEvent>(), eventsB = Collector<NodeEvent>()
        await a.setEventSink { eventsA.append($0) }
        await b.setEventSink { eventsB.append($0) }

        let pack = try await a.createPack(name: "Quad", radiusMeters: TestNet.radius, locked: false, tags: [], color: "")
        let post = try await a.post(pack: "Quad", title: "Hello", body: "there", tags: [])
        #expect(await eventually() { await holds(b, [post, pack.id]) })
        #expect(try await b.store.opCount() == 2)
        #expect(opEvents(eventsB.all).isEmpty)  // B has not joined Quad: no announcement
        _ = try await b.join("Quad")

        // B's first op in Quad mints its pseudonym's stamp with the pack's 8 bits, once.
        let comment = try await b.comment(on: post.short(), text: "hi from B")
        let bComment = try #require(await b.replica.op(comment))
        guard case .createPack(let genesis) = try #require(await a.replica.op(pack.id)).body.kind else {
            Issue.record("no genesis"); return
        }
        #expect(ProofOfWork.isValid(genesisNonce: genesis.nonce, author: bComment.author.bytes, stamp: bComment.body.stamp, bits: 8))
        #expect(try await b.store.stamps()[pack.id] == bComment.body.stamp)

        // A hears of the comment on its post; B hears of A's vote on its comment and A's new post.
        #expect(
            await eventually() {
                eventsA.all.contains { if case .newComment(let c, "Quad") = $0 { c.id == comment } else { false } }
            })
        _ = try await a.vote(on: comment.short(), value: 1)
        let second = try await a.post(pack: "Quad", title: "Second", body: "post", tags: [])
        #expect(
            await eventually() {
                let heard = eventsB.all
                return heard.contains { if case .voteOnYours(_, 1) = $0 { true } else { false } }
                    && heard.contains { if case .newPost(let p) = $0 { p.id == second } else { false } }
            })
        #expect(await b.stats.admitted == 4)  // genesis, Hello, the vote, Second

        // Duplicates and garbage on the wire are counted, not fatal: a peer replays A's ops
        // and a malformed envelope to B.
        let replay = try await [pack.id, post, second].asyncMap { try #require(await a.replica.op($0)).bytes }
        let wire = try net.wirePeer(to: 1, seed: 99)
        try await wire.handshake()
        func stat(_ key: String) async -> Int { await b.networkStats().first { $0.0 == key }?.1 ?? 0 }
        let duplicatesBefore = await stat("ops.duplicate")
        wire.send(WireForge.ops(replay + [[0xFF, 0x01, 0x02]]))
        #expect(await eventually() { await stat("reject.malformed") == 1 })
        #expect(await stat("ops.duplicate") >= duplicatesBefore + 3)
        #expect(await b.stats.admitted == 4)
        #expect(try await b.store.opCount() == 5)  // A's 4 and B's comment, each once
        await net.shutdown(keepData: true)

        // What B received was committed: a restart shows it, and B keeps its stamp.
        let clock = net.clock
        let b2 = try Node(config: net.config(net.dirs[1]), now: { clock.now })
        #expect(try await b2.feed(pack: nil, sort: .new, limit: 10).map(\.title) == ["Second", "Hello"])
        _ = try await b2.vote(on: second.short(), value: 1)
        #expect(try await b2.resolveOp(second.short()).id == second)
        let vote = try #require(
            await b2.replica.allOps.first { if case .vote = $0.body.kind { $0.author == bComment.author } else { false } })
        #expect(vote.body.stamp == bComment.body.stamp)
        await b2.close()
        net.removeData()
    }

    @Test func expiredPacksArePurgedFromMemoryAndDiskAndStayGone() async throws {
        let dir = tempDataDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clock = RunningClock()
        let genesisBytes: [UInt8]
        do {
            let node = try Node(config: testConfig(dir), now: { clock.now })
            let pack = try await node.createPack(name: "Brief", radiusMeters: nil, locked: false, tags: [], color: "")
            _ = try await node.post(pack: "Brief", title: "soon gone", body: "b", tags: [])
            genesisBytes = try #require(await node.replica.op(pack.id)).bytes
            #expect(await node.packs().count == 1)
            clock.advance(ms: Lifetime.maxMs + Lifetime.purgeGraceMs + 1)
            #expect(await node.packs().isEmpty)
            #expect(await node.stats.packsPurged == 1)
            #expect(try await node.store.opCount() == 0)
            #expect(await node.joinedPackIDs.isEmpty)
            await node.close()
        }
        // The stale genesis comes back over the wire: refused as expired, nothing stored.
        let net = TestNet(clock: clock)
        let again = try await net.add(dir: dir)
        #expect(await again.packs().isEmpty)
        let wire = try net.wirePeer(to: 0, seed: 7)
        try await wire.handshake()
        wire.send(WireForge.ops([genesisBytes]))
        #expect(await eventually() { await again.networkStats().contains { $0 == ("reject.packExpired", 1) } })
        #expect(await again.packs().isEmpty)
        #expect(try await again.store.opCount() == 0)
        await net.shutdown()
    }
}
