import Foundation
import Testing
import SkwadTestKit

/// Real `skwad` processes on 127.0.0.1 (OS-picked ports), as LocalnetTests: search and the
/// inbox across nodes and across a restart (issue 11, part B).
@Suite(.serialized) struct FindingBinaryTests {
    /// The id a node printed for its last `posted ID` line.
    func postedID(_ node: RunningNode) throws -> String {
        try #require(node.text.split(separator: "\n").last { $0.hasPrefix("posted ") }.map { String($0.dropFirst("posted ".count)) })
    }

    @Test func searchFindsAPostByAWordOfOneOfItsCommentsMadeOnAnotherNode() async throws {
        let net = try Localnet()
        defer { net.stop() }
        let a = try await net.start("a", peers: [])
        try await net.start("b", peers: [a])
        #expect(await net["b"].waitFor("* peer joined"))
        net["a"].send("create Quad --radius 1000")
        #expect(await net["a"].waitFor("created pack Quad"))
        net["a"].send(#"post Quad "Free pizza" "Gates 4th floor""#)
        #expect(await net["a"].waitFor("posted "))
        let id = try postedID(net["a"])
        net["b"].send("join Quad")
        #expect(await net["b"].waitFor("Free pizza", poll: "feed Quad"))
        net["b"].send(#"comment \#(id) "the quesadillas are gone too""#)
        #expect(await net["b"].waitFor("commented "))
        // On a: the comment's word finds the post, the comment under it.
        #expect(await net["a"].waitFor("    ↳ ", poll: "search quesadillas", seconds: 30))
        let lines = net["a"].text.split(separator: "\n").map(String.init)
        let hit = try #require(lines.firstIndex { $0.hasPrefix("    ↳ ") })
        #expect(hit > 0 && lines[hit - 1].hasPrefix(id) && lines[hit - 1].contains("Free pizza"))
        #expect(lines[hit].contains("the quesadillas are gone too"))
    }

    @Test func inboxAfterARestartShowsAReplyMadeWhileTheNodeWasDown() async throws {
        let net = try Localnet()
        defer { net.stop() }
        let a = try await net.start("a", peers: [])
        let b = try await net.start("b", peers: [a])
        #expect(await net["b"].waitFor("* peer joined"))
        net["a"].send("create Quad --radius 1000")
        #expect(await net["a"].waitFor("created pack Quad"))
        net["a"].send(#"post Quad "Free pizza" "Gates 4th floor""#)
        #expect(await net["a"].waitFor("posted "))
        let id = try postedID(net["a"])
        net["b"].send("join Quad")
        #expect(await net["b"].waitFor("Free pizza", poll: "feed Quad"))
        net["b"].send(#"comment \#(id) "an early reply""#)
        #expect(await net["a"].waitFor("replied to your post", poll: "inbox", seconds: 30))  // seen before the stop

        // a stops; b replies; a starts again on the same data and hears of it in its inbox.
        net["a"].send("quit")
        net["a"].stop()
        net["b"].send(#"comment \#(id) "still there?""#)
        #expect(await net["b"].waitFor("commented ", seconds: 30))
        try await net.start("a", peers: [b])
        // (The reply may also be announced as a new comment as it arrives: look for the inbox's line.)
        #expect(await net["a"].waitFor("still there?", poll: "inbox", seconds: 30))
        #expect(await net["a"].waitFor("replied to your post", poll: "inbox", seconds: 30))
        let text = net["a"].text
        let line = try #require(text.split(separator: "\n").first { $0.contains("replied to your post") }, "\(text)")
        #expect(line.contains("replied to your post \(id)") && line.contains("\"Free pizza\"") && line.contains("still there?"))
        #expect(!text.contains("an early reply"))  // seen before the restart: not shown again
    }
}
