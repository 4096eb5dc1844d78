import Foundation
import Testing
import GRDB
import SkwadModel
@testable import SkwadNode
@testable import SkwadStore
import SkwadTestKit

/// Pictures between nodes (PROTOCOL §10b) over the in-memory network: posted on one node,
/// fetched by the others when the post arrives, opened byte for byte without metadata,
/// deleted with their pack; the store's cap evicts pictures of others' packs first.
@Suite(.serialized) struct PictureNodeTests {
    @Test func aPicturePostedOnANodeOpensOnTheThirdWithoutItsMetadata() async throws {
        let net = TestNet()
        defer { Task { await net.shutdown() } }
        let a = try await net.add(), b = try await net.add(), c = try await net.add()
        _ = b
        #expect(await net.linked())
        let pack = try await a.createPack(name: "Snaps", radiusMeters: TestNet.radius, locked: false, tags: [], color: "")
        let original = TestPictures.png(width: 90, height: 70, seed: 5, metadata: true)  // ≈ 19 KB, 20 chunks
        let post = try await a.post(pack: pack.id.hex, title: "look", body: "", tags: [], image: original)
        let stripped = try PictureFormat.strip(original)
        let root = PictureBlocks.make(stripped).ref.root
        #expect(await a.storedPicture(root: root)?.isComplete == true)
        for n in net.nodes {
            #expect(await eventually { await n.storedPicture(root: root)?.isComplete == true })
        }
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-pic-\(UUID().uuidString).png").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let opened = try await c.openPicture(post.hex, to: out)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
        #expect(bytes == stripped.bytes)
        #expect(!TestPictures.contains(bytes, TestPictures.gpsMarker))
        #expect(opened.type == .png && opened.width == 90 && opened.height == 70 && opened.size == stripped.bytes.count)
        let stats = Dictionary(await c.networkStats(), uniquingKeysWith: { a, _ in a })
        #expect(stats["pictures.blocks_in", default: 0] == PictureBlocks.make(stripped).ref.blockCount)
        #expect(stats["drop.wrongBlockHash", default: 0] == 0)

        // The pack is deleted: its picture goes from every store.
        _ = try await a.delete(pack.id.hex)
        for n in net.nodes {
            #expect(
                await eventually {
                    await n.purge()
                    return await n.storedPicture(root: root) == nil
                })
        }
    }

    /// `[pictures] fetch = "shown"`: the post arrives, its picture does not; the first `feed`
    /// that shows the post fetches it (from the poster, which holds it whole).
    @Test func withFetchShownAPictureComesWhenItsPostIsFirstShown() async throws {
        #expect(try NodeConfig.parse("[pictures]\nfetch = \"shown\"").pictureFetch == .shown)
        #expect(NodeConfig.embeddedDefault.pictureFetch == .arrival)
        #expect(try NodeConfig.parse(NodeConfig.defaultTOML).pictureFetch == .arrival)
        for bad in ["[pictures]\nfetch = \"later\"", "[pictures]\nfetch = 1", "[pictures]\nwhen = \"shown\"", "pictures = 1"] {
            #expect(throws: ConfigError.self) { try NodeConfig.parse(bad) }
        }
        let net = TestNet()
        defer { Task { await net.shutdown() } }
        let a = try await net.add(), b = try await net.add { $0.pictureFetch = .shown }
        #expect(await net.linked())
        let pack = try await a.createPack(name: "Snaps", radiusMeters: TestNet.radius, locked: false, tags: [], color: "")
        let picture = TestPictures.png(width: 60, height: 50, seed: 7)
        let root = PictureBlocks.make(try PictureFormat.strip(picture)).ref.root
        let post = try await a.post(pack: pack.id.hex, title: "look", body: "", tags: [], image: picture)
        #expect(await eventually { await b.replica.op(post) != nil })
        // Admitted, and nothing asked: on arrival the fetch would have started with the admission.
        #expect(await b.storedPicture(root: root) == nil)
        #expect(Dictionary(await b.networkStats(), uniquingKeysWith: { a, _ in a })["pictures.fetches_started", default: 0] == 0)
        #expect(try await b.feed(pack: pack.id.hex, sort: .new, limit: 5).contains { $0.id == post })
        #expect(await eventually { await b.storedPicture(root: root)?.isComplete == true })
        #expect(Dictionary(await b.networkStats(), uniquingKeysWith: { a, _ in a })["pictures.fetches_started", default: 0] == 1)
    }

    /// A fetch cut short (the node went offline holding 10 of its blocks) goes on when the node
    /// is back online, without the post coming again, and asks only for the blocks it lacks.
    @Test func aFetchCutShortResumesAfterARestartAskingOnlyWhatIsMissing() async throws {
        let net = TestNet()
        defer { Task { await net.shutdown() } }
        let a = try await net.add(), b = try await net.add()
        #expect(await net.linked())
        let pack = try await a.createPack(name: "Snaps", radiusMeters: TestNet.radius, locked: false, tags: [], color: "")
        let picture = TestPictures.png(width: 90, height: 70, seed: 11)
        let ref = PictureBlocks.make(try PictureFormat.strip(picture)).ref
        _ = try await a.post(pack: pack.id.hex, title: "look", body: "", tags: [], image: picture)
        #expect(await eventually { await b.storedPicture(root: ref.root)?.isComplete == true })
        await b.goOffline()
        let kept = 10
        let store = await b.store
        try await store.db.write { db in
            try db.execute(sql: "DELETE FROM pictureBlock WHERE root = ? AND idx >= ?", arguments: [Data(ref.root), kept])
            try db.execute(
                sql: "UPDATE picture SET held = ?, bytes = (SELECT SUM(LENGTH(data)) FROM pictureBlock WHERE root = ?) WHERE root = ?",
                arguments: [kept, Data(ref.root), Data(ref.root)])
        }
        #expect(await b.storedPicture(root: ref.root)?.held == kept)
        try await b.goOnline(over: net.memory.binder, listen: "127.0.0.1:0", peers: [net.addresses[0]])
        #expect(await eventually { await b.storedPicture(root: ref.root)?.isComplete == true })
        let stats = Dictionary(await b.networkStats(), uniquingKeysWith: { a, _ in a })
        #expect(stats["pictures.fetches_started", default: 0] == 1)
        #expect(stats["pictures.blocks_in", default: 0] == ref.blockCount - kept)
    }

    @Test func aFileThatIsNotAPictureIsRefusedWithOneLine() async throws {
        let net = TestNet()
        defer { Task { await net.shutdown() } }
        let a = try await net.add()
        let pack = try await a.createPack(name: "Snaps", radiusMeters: TestNet.radius, locked: false, tags: [], color: "")
        do {
            _ = try await a.post(pack: pack.id.hex, title: "t", body: "", tags: [], image: Array("GIF89a not supported".utf8))
            Issue.record("a GIF was posted")
        } catch let e as NodeError {
            #expect("\(e)".contains("not a JPEG, PNG or WebP"))
        }
        #expect(try await a.feed(pack: pack.id.hex, sort: .new, limit: 5).isEmpty)
    }

    @Test func theCapEvictsThePicturesOfOthersPacksFirst() async throws {
        let net = TestNet()
        defer { Task { await net.shutdown() } }
        let a = try await net.add()
        let b = try await net.add(config: { $0.pictureStoreBytes = 40_000 })
        #expect(await net.linked())
        let ours = try await b.createPack(name: "Ours", radiusMeters: TestNet.radius, locked: false, tags: [], color: "")
        let theirs = try await a.createPack(name: "Theirs", radiusMeters: TestNet.radius, locked: false, tags: [], color: "")
        #expect(await eventually { await b.packs().contains { $0.pack.id == theirs.id } })
        // ≈ 15 KB of blocks each: two fit the cap, three do not.
        let own = try PictureFormat.strip(TestPictures.png(width: 80, height: 60, seed: 1))
        _ = try await b.post(pack: ours.id.hex, title: "mine", body: "", tags: [], image: own.bytes)
        var roots: [[UInt8]] = []
        for i in 0..<2 {
            let p = try PictureFormat.strip(TestPictures.png(width: 80, height: 60, seed: UInt64(10 + i)))
            roots.append(PictureBlocks.make(p).ref.root)
            _ = try await a.post(pack: theirs.id.hex, title: "theirs \(i)", body: "", tags: [], image: p.bytes)
            let r = roots[i]
            // Each is fetched whole; past the cap, the older of theirs goes, never ours.
            #expect(await eventually { await b.storedPicture(root: r)?.isComplete == true })
        }
        #expect(await b.storedPicture(root: PictureBlocks.make(own).ref.root)?.isComplete == true)
        #expect(await b.storedPicture(root: roots[0]) == nil)
        #expect(await b.storedPicture(root: roots[1])?.isComplete == true)
    }
}
