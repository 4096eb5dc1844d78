import Foundation
import SkwadModel
import SkwadStore
import Testing
import SkwadTestKit

/// Issue 28's pictures with real processes on loopback (three localnet nodes, OS-picked
/// ports): a 200 KB picture with EXIF (GPS) posted on `a` opens on `c` byte for byte equal to
/// the stripped original, without the metadata.
@Suite(.serialized) struct PictureLocalnetTests {
    @Test func a200KBPicturePostedOnAOpensOnCByteForByteWithoutItsExif() async throws {
        let net = try Localnet()
        defer { net.stop() }
        #expect(try await net.startThree())
        #expect(await net.packOnAll("Quad"))

        let original = TestPictures.png(width: 256, height: 260, seed: 28, metadata: true)
        #expect(original.count > 200_000 && TestPictures.contains(original, TestPictures.gpsMarker))
        let stripped = try PictureFormat.strip(original)
        let file = "\(net.dir)/photo.jpg"  // a PNG named .jpg: the bytes say what it is
        try Data(original).write(to: URL(fileURLWithPath: file))
        net["a"].send(#"post Quad "Sunset over the quad" "" --image \#(file)"#)
        #expect(await net["a"].waitFor("posted "))
        let post = try #require(net["a"].line(startingWith: "posted "))

        let out = "\(net.dir)/on-c.png"
        let shown = "\(out)  png, \(stripped.bytes.count) bytes, 256×260"
        #expect(await net["c"].waitFor(shown, poll: "open \(post) --to \(out)", seconds: 60))
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
        #expect(bytes == stripped.bytes)
        #expect(!TestPictures.contains(bytes, TestPictures.gpsMarker))
        #expect(!TestPictures.contains(bytes, Array("eXIf".utf8)))
    }

    /// A node that moved far outside a locked pack's fence gets neither the post nor one block
    /// of its picture, while a node inside opens it.
    @Test func aNodeOutsideALockedFenceNeverReceivesABlock() async throws {
        let net = try Localnet()
        defer { net.stop() }
        #expect(try await net.startThree())
        net["c"].send("locate 41.5,-79.9436")  // about 117 km north
        // c's engine takes its new cell at its next tick (at most 1 s) and tells its links then:
        // the pack is made after that, or c could still hold its post from where it was.
        try await Task.sleep(nanoseconds: 2_500_000_000)
        net["a"].send("create Lab --radius 500 --locked")
        #expect(await net["a"].waitFor("created pack Lab"))
        let file = "\(net.dir)/lab.png"
        try Data(TestPictures.png(width: 120, height: 100, seed: 7, metadata: true)).write(to: URL(fileURLWithPath: file))
        net["a"].send(#"post Lab "Bench 4" "" --image \#(file)"#)
        #expect(await net["a"].waitFor("posted "))
        let post = try #require(net["a"].line(startingWith: "posted "))
        #expect(await net["b"].waitFor("\(net.dir)/on-b.png  png,", poll: "open \(post) --to \(net.dir)/on-b.png", seconds: 60))
        let mark = net["c"].text.count
        net["c"].send("stats")
        #expect(await net["c"].waitFor("pictures.blocks_in 0"))
        net["c"].send("open \(post)")
        #expect(await net["c"].waitFor("error:"))
        let after = String(net["c"].text.dropFirst(mark))
        #expect(after.contains("drop.unrequestedBlock 0") && after.contains("pictures.wants_in 0"))
        #expect(!FileManager.default.fileExists(atPath: "\(net.dir)/c/pictures"))
    }

    /// The Alpha deletes a pack whose picture every node holds: once each node has purged the
    /// pack (its inbox says so), no store holds a byte of the picture.
    @Test func aDeletedPacksPictureIsGoneFromEveryStore() async throws {
        let net = try Localnet()
        defer { net.stop() }
        #expect(try await net.startThree())
        #expect(await net.packOnAll("Yard"))
        let pack = try #require(net["a"].id(after: "created pack Yard "))
        let file = "\(net.dir)/yard.png"
        try Data(TestPictures.png(width: 120, height: 100, seed: 9, metadata: false)).write(to: URL(fileURLWithPath: file))
        net["a"].send(#"post Yard "Sale" "" --image \#(file)"#)
        #expect(await net["a"].waitFor("posted "))
        let post = try #require(net["a"].line(startingWith: "posted "))
        for n in ["b", "c"] {
            #expect(await net[n].waitFor("\(net.dir)/on-\(n).png  png,", poll: "open \(post) --to \(net.dir)/on-\(n).png", seconds: 60))
        }

        for n in ["a", "b", "c"] {
            #expect(try Store(path: "\(net.dir)/\(n)/skwad.sqlite").pictureBytes() > 0, "\(n) holds it before")
        }
        net["a"].send("delete \(pack)")
        #expect(await net["a"].waitFor("deleted \(pack)"))
        // A node purges deleted packs at most once a minute (counted in `packs.purged`).
        for n in ["a", "b", "c"] { #expect(await net[n].waitFor("packs.purged 1", poll: "stats", seconds: 90), "\(n)") }
        // Read beside the running node (WAL): the purge committed before `stats` answered.
        for n in ["a", "b", "c"] {
            let store = try Store(path: "\(net.dir)/\(n)/skwad.sqlite")
            #expect(try store.pictureBytes() == 0, "\(n)")
        }
    }
}
