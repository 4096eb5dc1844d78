import Foundation
import Testing
import SkwadCrypto
import SkwadModel
import SkwadReplica
import SkwadStore
@testable import SkwadNode

func tempDataDir() -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-node-\(UUID().uuidString)").path
    return dir
}

func testConfig(_ dir: String) -> NodeConfig {
    var c = NodeConfig(dataDir: dir)
    c.powBits = 4
    return c
}

@Suite struct NodeTests {
    @Test func aUserSessionSurvivesARestart() async throws {
        let dir = tempDataDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let postID: OpID
        do {
            let node = try Node(config: testConfig(dir))
            try await node.locate(try GeoPoint(lat: 40.4433, lon: -79.9436))
            let pack = try await node.createPack(name: "Quad", radiusMeters: 800, locked: true, tags: ["campus"], color: "green")
            #expect(pack.locked && pack.fence?.radiusMeters == 800)
            postID = try await node.post(pack: "quad", title: "Free pizza", body: "Gates 4th floor", tags: ["food"])
            let c = try await node.comment(on: postID.short(), text: "still there?")
            _ = try await node.comment(on: c.short(), text: "yes")
            _ = try await node.vote(on: postID.short(), value: 1)
            let feed = try await node.feed(pack: nil, sort: .top, limit: 10)
            // The author's own upvote is kept but does not count (self-votes, issue 10).
            #expect(feed.map(\.title) == ["Free pizza"] && feed[0].score == 0 && feed[0].commentCount == 2)
            let den = await node.den()
            #expect(den.view.packs.map(\.name) == ["Quad"] && den.view.posts.count == 1 && den.view.comments.count == 2 && den.view.totalUpvotes == 0)
            // Master key is private to the user.
            let attrs = try FileManager.default.attributesOfItem(atPath: dir + "/master.key")
            #expect((attrs[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        }
        let again = try Node(config: testConfig(dir))
        let thread = try await again.show(postID.short())
        #expect(thread.post.title == "Free pizza" && thread.comments.map(\.body) == ["still there?", "yes"])
        #expect(thread.comments.map(\.depth) == [0, 1])
        #expect(await again.location == (try GeoPoint(lat: 40.4433, lon: -79.9436)))
        #expect(await again.den().joined.map(\.name) == ["Quad"])
        // Same pseudonym after restart: deleting my own post works.
        _ = try await again.delete(postID.short())
        #expect(try await again.feed(pack: "Quad", sort: .new, limit: 10).isEmpty)
    }

    @Test func commandsFailWithOneLineReasons() async throws {
        let dir = tempDataDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let node = try Node(config: testConfig(dir))
        await #expect(throws: NodeError.self) { try await node.createPack(name: "x", radiusMeters: 100, locked: false, tags: [], color: "") }
        await #expect(throws: NodeError.self) { try await node.createPack(name: "x", radiusMeters: nil, locked: true, tags: [], color: "") }
        await #expect(throws: NodeError.self) { try await node.post(pack: "nope", title: "t", body: "b", tags: []) }
        await #expect(throws: NodeError.self) { try await node.vote(on: "zz", value: 1) }
        _ = try await node.createPack(name: "x", radiusMeters: nil, locked: false, tags: [], color: "")
        await #expect(throws: NodeError.self) { try await node.post(pack: "x", title: "", body: "b", tags: []) }
        let long = String(repeating: "t", count: 500)
        await #expect(throws: NodeError.self) { try await node.post(pack: "x", title: long, body: "b", tags: []) }
        _ = try await node.createPack(name: "x", radiusMeters: nil, locked: false, tags: [], color: "")
        do { _ = try await node.post(pack: "x", title: "t", body: "b", tags: []); Issue.record("ambiguous name accepted") }
        catch let e as NodeError { #expect(e.description.contains("2 packs are named 'x'")) }
    }

    @Test func configParsingNamesBadKeysAndLines() throws {
        let ok = try NodeConfig.parse("""
            location = "40.1,-79.5"
            pow_bits = 8
            listen = "127.0.0.1:7401"
            peers = ["127.0.0.1:7402"]
            [limits]
            peer_datagrams_per_second = 50
            """, baseDir: "/tmp")
        #expect(ok.powBits == 8 && ok.listen == "127.0.0.1:7401" && ok.peers == ["127.0.0.1:7402"] && ok.peerDatagramsPerSecond == 50)
        func message(_ text: String) -> String {
            do { _ = try NodeConfig.parse(text); return "" } catch { return "\(error)" }
        }
        #expect(message("colour = \"red\"").contains("'colour' (line 1): unknown key"))
        #expect(message("pow_bits = 8\npow_bits = 9").contains("line"))
        #expect(message("\n\npow_bits = 99").contains("'pow_bits' (line 3)"))
        #expect(message("location = \"north\"").contains("'location'"))
        #expect(message("[limits]\nspeed = 3").contains("'speed'"))
        #expect(message("peers = [1]").contains("'peers'"))
        // Found by FuzzConfig: toml++ asserted (abort) on a table header without a key.
        #expect(message("location = \"1,2\"\n[= *120.7\"0. [::1]:7420\"]\n").contains("line 2"))
        #expect(message("[\n").contains("line 1") && message("[[ =x]]").contains("line 1") && message("[\t\r]").contains("line 1"))
        #expect(message("[]").contains("line") && message("[limits]\npeer_datagrams_per_second = 5") == "")
        // Found by FuzzConfig too: toml++ asserted on a closing bracket that closes nothing.
        let reproducer = "listen = \"127.0.0.1:0\"\npeers = [}}}\"127.0.0.1:7401\"]\n"
        #expect(message(reproducer).contains("line 2"))
        #expect(message("admin_packs = [\"a]{\", 'b}[']  # ] } [\nlocation = \"1,2\"") == "")
        #expect(message("peers = [\n").contains("never closed"))
        // And a third: a keyless header behind a byte-order mark (the crash file, as bytes).
        let bom = String(decoding: [0xEF, 0xBB, 0xBF, 0x5B, 0x3E, 0x5F, 0x7A, 0xF9, 0x26, 0x5D] as [UInt8], as: UTF8.self)
        #expect(message(bom).contains("line 1"))
        #expect(message("\u{FEFF}location = \"1,2\"") == "")
    }
}

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
        func message(_ text: String) -> String {
            do { _ = try NodeConfig.parse(text); return "" } catch { return "\(error)" }
        }
        #expect(message("pow_bits = 4\n\n[network]\nx = 1").contains("'network' (line 3): unknown key"))
        #expect(message("peers_extra = 1\npeers = []").contains("'peers_extra' (line 1)"))
        #expect(message("headless = \"yes\"").contains("'headless' (line 1): expected true or false"))
    }
}

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
