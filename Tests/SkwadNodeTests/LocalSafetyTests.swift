import Foundation
import Testing
import SkwadCrypto
import SkwadModel
import SkwadReplica
@testable import SkwadNode

func mode(_ path: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? NSNumber)?.intValue ?? -1
}

/// Issue 10, findings 7, 5 (local posting) and 4 (claims and fence centres).
@Suite struct LocalSafetyTests {
    @Test func dataFilesArePrivateAndLooseModesAreTightenedWithANotice() throws {
        let dir = tempDataDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        do {
            let node = try Node(config: testConfig(dir))
            #expect(node.permissionNotice == nil)
        }
        #expect(mode(dir) == 0o700)
        #expect(mode(dir + "/skwad.sqlite") == 0o600)
        #expect(chmod(dir, 0o755) == 0 && chmod(dir + "/skwad.sqlite", 0o644) == 0)
        let again = try Node(config: testConfig(dir))
        let notice = try #require(again.permissionNotice)
        #expect(!notice.contains("\n") && notice.contains("0755→0700") && notice.contains("skwad.sqlite 0644→0600"))
        #expect(mode(dir) == 0o700 && mode(dir + "/skwad.sqlite") == 0o600)
    }

    @Test func aMasterKeyOthersCanReadIsRefused() throws {
        let dir = tempDataDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try Node(config: testConfig(dir))
        #expect(chmod(dir + "/master.key", 0o644) == 0)
        do {
            _ = try Node(config: testConfig(dir))
            Issue.record("a readable master.key was accepted")
        } catch {
            let line = "\(error)"
            #expect(!line.contains("\n") && line.contains("too open") && line.contains("0644"))
        }
        #expect(mode(dir + "/master.key") == 0o644)  // refused, not silently changed
    }

    @Test func localPostingIsLimitedLikeTheNetworks() async throws {
        let dir = tempDataDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clock = TestClock()
        var config = testConfig(dir)
        config.gossip.limits.pseudonymOpsPerMinute = 5
        let node = try Node(config: config, now: { clock.now })
        // The genesis counts, as peers count it (issue 24): it and 4 posts are the burst of 5.
        _ = try await node.createPack(name: "Quad", radiusMeters: nil, locked: false, tags: [], color: "")
        for i in 0..<4 { _ = try await node.post(pack: "Quad", title: "p\(i)", body: "", tags: []) }
        do {
            _ = try await node.post(pack: "Quad", title: "one too many", body: "", tags: [])
            Issue.record("a sixth op within the minute was accepted")
        } catch {
            #expect("\(error)".hasPrefix("slow down: "))
        }
        clock.advance(ms: 12_000)  // one token back at 5 a minute
        _ = try await node.post(pack: "Quad", title: "later", body: "", tags: [])
        // Another pseudonym (another pack) has its own allowance.
        _ = try await node.createPack(name: "Other", radiusMeters: nil, locked: false, tags: [], color: "")
    }

    @Test func lockedPostsClaimTheCoarsestCellAndFenceCentresSitOnTheGrid() async throws {
        let dir = tempDataDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let node = try Node(config: testConfig(dir))
        let here = try GeoPoint(lat: 40.443322, lon: -79.943611)
        try await node.locate(here)
        let pack = try await node.createPack(name: "Town", radiusMeters: 5_000, locked: true, tags: [], color: "")
        let fence = try #require(pack.fence)
        #expect(fence.center.latE6 == 40_443_000 && fence.center.lonE6 == -79_944_000)
        let post = try await node.post(pack: "Town", title: "hi", body: "", tags: [])
        let claim = try #require(await node.replica.op(post)?.body.location)
        #expect(claim.count <= 5)  // km-sized, not a 150 m cell
        #expect(fence.contains(geohash: claim))
        #expect(!fence.contains(geohash: String(claim.dropLast())))
    }
}
