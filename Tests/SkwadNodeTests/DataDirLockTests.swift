import Foundation
import Testing
import SkwadCrypto
import SkwadModel
import SkwadReplica
import SkwadStore
@testable import SkwadNode

@Suite struct DataDirLockTests {
    /// Finding 2: one node per data directory; the lock goes with the node.
    @Test func aSecondNodeOnTheSameDataDirectoryIsRefused() async throws {
        let dir = tempDataDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var first: Node? = try Node(config: testConfig(dir))
        #expect(first != nil)
        do {
            _ = try Node(config: testConfig(dir))
            Issue.record("a second node opened a locked data directory")
        } catch {
            #expect("\(error)".contains(dir) && "\(error)".contains("in use"))
        }
        first = nil
        _ = try Node(config: testConfig(dir))
    }

    /// A lock still held a moment after its owner let go (a spawned child's copy of the
    /// descriptor, until its `exec`) is waited for; one held past the wait is refused.
    @Test func aLockReleasedWithinTheWaitIsTakenOneHeldPastItIsRefused() throws {
        let dir = tempDataDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        // Another open file description of the lock file: it conflicts as another process would.
        let other = open(dir + "/lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        #expect(other >= 0 && flock(other, LOCK_EX | LOCK_NB) == 0)
        do {
            _ = try DataDirLock(dataDir: dir, waitMs: 60)
            Issue.record("a held lock was taken")
        } catch {
            #expect("\(error)".contains("in use"))
        }
        let releaser = Thread {
            usleep(150_000); close(other)
        }
        releaser.start()
        let lock = try DataDirLock(dataDir: dir, waitMs: 5_000)
        // Taken: a third description is refused at once.
        #expect((try? DataDirLock(dataDir: dir, waitMs: 0)) == nil)
        lock.release()
        #expect((try? DataDirLock(dataDir: dir, waitMs: 0)) != nil)
    }

    /// `store = .memory` and `powFloors = .none` (the REPL fuzzer's options): the node works
    /// through the same API, writes no SQLite file, keeps nothing after closing, and stamps
    /// with the pack's own bits only; no config text can choose either.
    @Test func theFuzzersInMemoryNodeWritesNoFileAndKeepsNothing() async throws {
        let dir = tempDataDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var c = testConfig(dir)
        c.store = .memory
        c.powFloors = .none
        let node = try Node(config: c)
        _ = try await node.createPack(name: "Open", radiusMeters: nil, locked: false, tags: [], color: "")
        _ = try await node.post(pack: "Open", title: "t", body: "b", tags: [])
        try await node.locate(try GeoPoint(lat: 40.5, lon: -79.9))
        let titles = try await node.feed(pack: "Open", sort: .new, limit: 10).map(\.title)
        #expect(titles == ["t"])
        let floor = await node.replica.config.genesisPowFloor
        #expect(!FileManager.default.fileExists(atPath: dir + "/skwad.sqlite") && floor == 0)
        #expect(FileManager.default.fileExists(atPath: dir + "/master.key"))
        await node.close()
        let again = try Node(config: c)
        let den = await again.den()
        let feed = try await again.feed(pack: nil, sort: .new, limit: 10)
        #expect(den.joined.isEmpty && feed.isEmpty)
        // Nothing is read back at start (a `.memory` store starts empty), the location neither.
        let me = await again.whoami()
        #expect(me.location == nil && me.ops == 0)
        await again.close()
        // The default, and whatever a config file says, is the durable file store.
        #expect(NodeConfig(dataDir: dir).store == .file && NodeConfig(dataDir: dir).powFloors == .protocolFloors)
        #expect(NodeConfig.PowFloors.protocolFloors == NodeConfig.PowFloors(pseudonym: 16, genesis: 18))
        let parsed = try NodeConfig.parse("pow_bits = 8\nlisten = \"127.0.0.1:0\"")
        #expect(parsed.store == .file && parsed.powFloors == .protocolFloors)
        #expect((try? NodeConfig.parse("store = \"memory\"")) == nil)
        // A default node's own genesis stamp meets the 18-bit floor even when pow_bits is 4.
        let durable = try Node(config: testConfig(dir + "-durable"))
        defer { try? FileManager.default.removeItem(atPath: dir + "-durable") }
        _ = try await durable.createPack(name: "Open", radiusMeters: nil, locked: false, tags: [], color: "")
        #expect(await durable.replica.config.genesisPowFloor == 18)
        await durable.close()
    }
}
