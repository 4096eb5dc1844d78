import Foundation
import Testing
import SkwadModel
import SkwadReplica
@testable import SkwadNode
@testable import SkwadStore

/// Search, feed filters, pack labels and colours (issue 11, part B).
@Suite struct FindingTests {
    func node(_ dir: String, clock: TestClock? = nil) throws -> Node {
        var c = testConfig(dir)
        c.location = try GeoPoint(parsing: "40.4433,-79.9436")
        if let clock { return try Node(config: c, now: { clock.now }) }
        return try Node(config: c)
    }

    @Test func searchFindsAPostByAWordOfItsCommentAndNeverWhatTheFeedHides() async throws {
        let dir = tempDataDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let n = try node(dir)
        let pack = try await n.createPack(name: "Quad", radiusMeters: nil, locked: false, tags: [], color: "")
        let post = try await n.post(pack: "Quad", title: "Free pizza", body: "Gates 4th floor", tags: ["food"])
        let comment = try await n.comment(on: post.hex, text: "the quesadillas are gone too")
        var hits = try await n.search("quesadilla")
        #expect(hits.count == 1 && hits[0].post.id == post && hits[0].comment?.id == comment)
        hits = try await n.search("pizza", pack: "Quad")
        #expect(hits.map(\.post.id) == [post] && hits[0].comment == nil)
        #expect(try await n.search("food").map(\.post.id) == [post])  // tags too
        await #expect(throws: NodeError.self) { try await n.search("?!") }

        // Deleted: gone from search; hidden by a moderator: not found while hidden.
        _ = try await n.delete(comment.hex)
        #expect(try await n.search("quesadilla").isEmpty)
        let (hide, changes) = try await n.sign(.moderate(Moderate(target: post, hidden: true)), in: pack.id)
        try await n.commit(hide, with: changes)
        #expect(try await n.search("pizza").isEmpty)
        let (show, more) = try await n.sign(.moderate(Moderate(target: post, hidden: false)), in: pack.id)
        try await n.commit(show, with: more)
        #expect(try await n.search("pizza").map(\.post.id) == [post])
    }

    @Test func searchSkipsExpiredPacksAndForgetsPurgedOnes() async throws {
        let dir = tempDataDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clock = TestClock()
        let n = try node(dir, clock: clock)
        _ = try await n.createPack(name: "Brief", radiusMeters: nil, locked: false, tags: [], color: "")
        _ = try await n.post(pack: "Brief", title: "ephemeral words", body: "b", tags: [])
        #expect(try await n.search("ephemeral").count == 1)
        clock.advance(ms: 25 * 3_600_000)  // past the 24 h lifetime: expired, not yet purged
        #expect(try await n.search("ephemeral").isEmpty)
        clock.advance(ms: 72 * 3_600_000)
        await n.purge()
        #expect(try await n.store.searchIndexCount() == 0)
    }

    @Test func feedFiltersByTagAndByDistanceFromYou() async throws {
        let dir = tempDataDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let n = try node(dir)
        _ = try await n.createPack(name: "Near", radiusMeters: 200, locked: false, tags: ["campus"], color: "")
        let near = try await n.post(pack: "Near", title: "here", body: "b", tags: [])
        try await n.locate(try GeoPoint(parsing: "40.4900,-79.9436"))  // ≈ 5.2 km north
        _ = try await n.createPack(name: "Far", radiusMeters: 200, locked: false, tags: [], color: "")
        let far = try await n.post(pack: "Far", title: "there", body: "b", tags: ["food"])
        _ = try await n.createPack(name: "Nowhere", radiusMeters: nil, locked: false, tags: [], color: "")
        _ = try await n.post(pack: "Nowhere", title: "no place", body: "b", tags: [])
        try await n.locate(try GeoPoint(parsing: "40.4433,-79.9436"))
        #expect(try await n.feed(pack: nil, sort: .new, limit: 20, tag: nil, withinMeters: 1_000).map(\.id) == [near])
        #expect(Set(try await n.feed(pack: nil, sort: .new, limit: 20, tag: nil, withinMeters: 10_000).map(\.id)) == [near, far])
        #expect(try await n.feed(pack: nil, sort: .new, limit: 20, tag: "food", withinMeters: nil).map(\.id) == [far])
        #expect(try await n.feed(pack: nil, sort: .new, limit: 20, tag: "CAMPUS", withinMeters: nil).map(\.id) == [near])  // the pack's tag
        #expect(try await n.feed(pack: "Far", sort: .new, limit: 20, tag: nil, withinMeters: 1_000).isEmpty)
    }

    @Test func feedWithinNeedsALocation() async throws {
        let dir = tempDataDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let n = try Node(config: testConfig(dir))
        do {
            _ = try await n.feed(pack: nil, sort: .new, limit: 5, tag: nil, withinMeters: 100); Issue.record("no location accepted")
        } catch let e as NodeError { #expect(e.description.contains("locate LAT,LON")) }
    }

    @Test func packsSharingANameAreLabelledAndAcceptedByLabel() async throws {
        let dir = tempDataDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let n = try node(dir)
        let one = try await n.createPack(name: "Quad", radiusMeters: nil, locked: false, tags: [], color: "red")
        let two = try await n.createPack(name: "quad", radiusMeters: nil, locked: false, tags: [], color: "")
        let solo = try await n.createPack(name: "Solo", radiusMeters: nil, locked: false, tags: [], color: "Blue")
        let styles = await n.packStyles()
        let l1 = try #require(styles[one.id]?.label), l2 = try #require(styles[two.id]?.label)
        #expect(l1.hasPrefix("Quad·") && l2.hasPrefix("quad·") && l1 != l2 && l1.count == "Quad·".count + 4)
        #expect(styles[solo.id] == PackStyle(label: "Solo", color: "blue"))  // colour stored in its canonical spelling
        #expect(styles[one.id]?.color == "red")
        #expect(try await n.resolvePack(l1).id == one.id)
        #expect(try await n.resolvePack(l2.uppercased()).id == two.id)
        // Both joined: the bare name asks which, naming the labels it accepts.
        do { _ = try await n.resolvePack("quad"); Issue.record("ambiguous name accepted") } catch let e as NodeError {
            #expect(e.description.contains(l1) && e.description.contains(l2))
        }
        // Only one of them joined: the bare name means that one.
        _ = try await n.leave(l2)
        #expect(try await n.resolvePack("QUAD").id == one.id)
    }

    @Test func unknownColoursAreRefusedWithThePalette() async throws {
        let dir = tempDataDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let n = try node(dir)
        do {
            _ = try await n.createPack(name: "x", radiusMeters: nil, locked: false, tags: [], color: "octarine"); Issue.record("accepted")
        } catch let e as NodeError {
            #expect(e.description.contains("unknown colour 'octarine'") && e.description.contains(Palette.names.joined(separator: ", ")))
        }
        #expect(Palette.color(for: "no such", id: try OpID(bytes: [UInt8](repeating: 3, count: 32))) == Palette.colors[3])
    }

    @Test func errorsQuoteAtMostEightyCharactersOfTheInput() async throws {
        let dir = tempDataDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let n = try node(dir)
        let huge = String(repeating: "q", count: 1_000_000)
        for attempt in [
            { try await n.resolvePack(huge) as Any }, { try await n.resolveOp(huge) as Any }, { try await n.delete(huge) as Any }
        ] {
            do { _ = try await attempt(); Issue.record("accepted") } catch { #expect("\(error)".count < 200) }
        }
        do { _ = try await n.resolveOp("0"); Issue.record("accepted") } catch { #expect("\(error)".contains("too short for an id")) }
        do { _ = try await n.delete("0000000000"); Issue.record("accepted") } catch {
            #expect("\(error)" == "no post, comment or pack with id '0000000000' (see: feed, packs)")
        }
    }

    @Test func relativePathsInARelativeConfigResolveAgainstItsDirectory() throws {
        #expect(NodeConfig.configDirectory(of: "node.toml", cwd: "/home/u") == "/home/u")
        #expect(NodeConfig.configDirectory(of: "configs/a.toml", cwd: "/home/u/") == "/home/u/configs")
        #expect(NodeConfig.configDirectory(of: "/etc/skwad/a.toml", cwd: "/x") == "/etc/skwad")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-cfg-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "data_dir = \"data\"\nadmin_secret_file = \"keys/admin.key\"\n".write(
            toFile: dir + "/node.toml", atomically: true, encoding: .utf8)
        let c = try NodeConfig.load(file: "node.toml", cwd: dir)
        #expect(c.dataDir == dir + "/data")
        #expect(c.adminSecretFile == dir + "/keys/admin.key")
    }
}
