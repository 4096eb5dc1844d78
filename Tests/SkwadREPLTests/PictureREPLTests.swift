import Foundation
import Testing
import SkwadModel
import SkwadNode
import SkwadTestKit
@testable import SkwadREPL

/// Issue 28's pictures in the REPL: `post … --image FILE`, `ask … --image FILE` and `open ID`,
/// over two nodes in memory: the picture posted on one node opens on the other, its metadata
/// gone; a file that is not a picture, or too large, is refused with one line.
@Suite(.serialized) struct PictureREPLTests {
    @Test func grammar() throws {
        #expect(
            try Registry.parse(#"post Quad "T" "B" --image cat.jpg"#) as? PostCommand
                == PostCommand(pack: "Quad", title: "T", body: "B", tags: [], image: "cat.jpg"))
        #expect(
            try Registry.parse(#"ask Quad "caption this" --image cat.jpg"#) as? AskCommand
                == AskCommand(pack: "Quad", prompt: "caption this", tags: [], image: "cat.jpg", body: ""))
        #expect(try Registry.parse("open ab12") as? OpenCommand == OpenCommand(post: "ab12", to: nil))
        #expect(try Registry.parse("open ab12 --to /tmp/x.png") as? OpenCommand == OpenCommand(post: "ab12", to: "/tmp/x.png"))
        #expect(throws: CommandError.self) { try Registry.parse("open") }
        #expect(throws: CommandError.self) { try Registry.parse(#"post Quad "T" "B" --image"#) }
    }

    @Test func aPicturePostedOnOneNodeOpensOnTheOther() async throws {
        let net = try await NodePair("pictures")
        let (a, b) = (net.a, net.b)
        defer { Task { await net.shutdown() } }
        #expect(try await net.packOnBoth("Quad"))
        let (replA, replB) = (NodePair.repl(a), NodePair.repl(b))
        func run(_ r: REPL, _ line: String) async -> String { await NodePair.run(r, line) }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-repl-pic-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // A JPEG named .png: the type comes from the bytes.
        try Data(TestPictures.jpegWithMetadata).write(to: URL(fileURLWithPath: dir + "/cat.png"))
        try Data("GIF89a".utf8).write(to: URL(fileURLWithPath: dir + "/anim.gif"))

        #expect(await run(replA, #"post Quad "gif" "" --image \#(dir)/anim.gif"#).hasPrefix("error: not a JPEG, PNG or WebP"))
        #expect(await run(replA, #"post Quad "none" "" --image \#(dir)/missing.png"#).hasPrefix("error: cannot read"))
        let asked = await run(replA, #"ask Quad "caption this" --image \#(dir)/cat.png"#)
        #expect(asked.hasPrefix("asked "))
        let ask = try #require(try await a.feed(pack: nil, sort: .new, limit: 5).first { $0.isAsk }?.id)
        #expect(await run(replA, "feed").contains("[ask] [picture] caption this"))
        #expect(await run(replA, "show \(ask.hex)").contains("    picture: jpeg, \(TestPictures.jpeg.count) bytes (open "))
        let opened = await net.eventually { await run(replB, "open \(ask.hex) --to \(dir)/out.jpg").hasPrefix("\(dir)/out.jpg") }
        #expect(opened)
        #expect(await run(replB, "open \(ask.hex) --to \(dir)/out.jpg") == "\(dir)/out.jpg  jpeg, \(TestPictures.jpeg.count) bytes, 8×6")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/out.jpg")))
        #expect(bytes == TestPictures.jpeg)
        #expect(!TestPictures.contains(bytes, TestPictures.gpsMarker))
        // On a terminal `show` draws a thumbnail (decoded with libjpeg-turbo), not with --no-images,
        // never in plain mode.
        let term = REPL(executor: Executor(node: b), reader: LineReader(interactive: false, historyPath: nil), mode: .terminal)
        #expect(await run(term, "show \(ask.hex)").contains("▀"))
        #expect(!(await run(term, "show \(ask.hex) --no-images").contains("▀")))
        #expect(!(await run(replB, "show \(ask.hex)").contains("▀")))
        #expect(try Registry.parse("show ab12 --no-images") as? ShowCommand == ShowCommand(post: "ab12", noImages: true))
        // The feed too: a small thumbnail under the post on a terminal (at most 4 rows of 16
        // cells), none with --no-images, in plain mode or in JSON.
        let lines = await run(term, "feed Quad").split(separator: "\n")
        let drawn = lines.filter { $0.contains("▀") }
        #expect(!drawn.isEmpty && drawn.count <= PictureThumbnail.feedRows)
        #expect(drawn.allSatisfy { $0.filter { $0 == "▀" }.count <= PictureThumbnail.feedColumns })
        let title = lines.firstIndex { $0.contains("caption this") }, thumb = lines.firstIndex { $0.contains("▀") }
        #expect(title != nil && thumb != nil && thumb! > title!)  // under its post
        #expect(!(await run(term, "feed Quad --no-images").contains("▀")))
        #expect(await run(term, "feed Quad --no-images").contains("[ask] [picture] caption this"))
        #expect(!(await run(replB, "feed Quad").contains("▀")))
        let json = REPL(executor: Executor(node: b), reader: LineReader(interactive: false, historyPath: nil), mode: .json)
        #expect(!(await run(json, "feed Quad").contains("▀")))
        #expect(try Registry.parse("feed --no-images") as? FeedCommand == FeedCommand(sort: .new, limit: 20, noImages: true, pack: nil))
        let posted = await run(replA, #"post Quad "words" "no picture""#)
        #expect(await run(replA, "open \(posted.dropFirst("posted ".count))").hasSuffix("has no picture"))
    }
}
