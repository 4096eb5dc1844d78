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
            #expect(
                den.view.packs.map(\.name) == ["Quad"] && den.view.posts.count == 1 && den.view.comments.count == 2
                    && den.view.totalUpvotes == 0)
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
        await #expect(throws: NodeError.self) {
            try await node.createPack(name: "x", radiusMeters: 100, locked: false, tags: [], color: "")
        }
        await #expect(throws: NodeError.self) { try await node.createPack(name: "x", radiusMeters: nil, locked: true, tags: [], color: "") }
        await #expect(throws: NodeError.self) { try await node.post(pack: "nope", title: "t", body: "b", tags: []) }
        await #expect(throws: NodeError.self) { try await node.vote(on: "zz", value: 1) }
        _ = try await node.createPack(name: "x", radiusMeters: nil, locked: false, tags: [], color: "")
        await #expect(throws: NodeError.self) { try await node.post(pack: "x", title: "", body: "b", tags: []) }
        let long = String(repeating: "t", count: 500)
        await #expect(throws: NodeError.self) { try await node.post(pack: "x", title: long, body: "b", tags: []) }
        _ = try await node.createPack(name: "x", radiusMeters: nil, locked: false, tags: [], color: "")
        do { _ = try await node.post(pack: "x", title: "t", body: "b", tags: []); Issue.record("ambiguous name accepted") } catch let e
            as NodeError
        { #expect(e.description.contains("2 packs are named 'x'")) }
    }

    @Test func configParsingNamesBadKeysAndLines() throws {
        let ok = try NodeConfig.parse(
            """
            location = "40.1,-79.5"
            pow_bits = 8
            listen = "127.0.0.1:7401"
            peers = ["127.0.0.1:7402"]
            [limits]
            peer_datagrams_per_second = 50
            """, baseDir: "/tmp")
        #expect(
            ok.powBits == 8 && ok.listen == "127.0.0.1:7401" && ok.peers == ["127.0.0.1:7402"]
                && ok.gossip.limits.peerDatagramsPerSecond == 50)
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
