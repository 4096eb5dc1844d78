import Foundation
import Testing
import SkwadCrypto
import SkwadGossip
import SkwadModel
import SkwadReplica
import SkwadStore
@testable import SkwadNode

@Suite struct NodeStoreFailureTests {
    /// A store that refuses writes: the post fails with one line, is not shown, and what
    /// was committed before survives a restart. (A full disk: StoreSafetyTests.)
    @Test func aFailedCommitIsNotReportedOrShown() async throws {
        let dir = tempDataDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        do {
            let node = try Node(config: testConfig(dir))
            _ = try await node.createPack(name: "Q", radiusMeters: nil, locked: false, tags: [], color: "")
            _ = try await node.post(pack: "Q", title: "kept", body: "b", tags: [])
            try await node.store.refuseWritesForTesting()
            do {
                _ = try await node.post(pack: "Q", title: "lost", body: "b", tags: [])
                Issue.record("post reported despite a full disk")
            } catch let e as NodeError {
                #expect(e.description.hasPrefix("cannot save 1 op(s): ") && !e.description.contains("\n"))
            }
            #expect(try await node.feed(pack: "Q", sort: .new, limit: 10).map(\.title) == ["kept"])
            #expect(await node.stats.storeErrors == 1)
        }
        let again = try Node(config: testConfig(dir))
        #expect(try await again.feed(pack: "Q", sort: .new, limit: 10).map(\.title) == ["kept"])
    }

    @Test func theEmbeddedDefaultConfigIsDocumentedTOML() throws {
        #expect(try NodeConfig.parse(NodeConfig.defaultTOML) == NodeConfig.embeddedDefault)
        // The rate limits' defaults are stated once, in the gossip engine's config.
        let gossip = GossipConfig(), node = NodeConfig.embeddedDefault
        #expect(node.gossip == gossip)
        #expect(NodeConfig.defaultTOML.contains("peer_bytes_per_second = \(Int(gossip.limits.peerBytesPerSecond))\n"))
        func message(_ text: String) -> String {
            do { _ = try NodeConfig.parse(text); return "" } catch { return "\(error)" }
        }
        #expect(message("pow_bits = 4\n\n[network]\nx = 1").contains("'network' (line 3): unknown key"))
        #expect(message("peers_extra = 1\npeers = []").contains("'peers_extra' (line 1)"))
        #expect(message("headless = \"yes\"").contains("'headless' (line 1): expected true or false"))
    }
}
