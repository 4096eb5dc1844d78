import Foundation
import Testing
import SkwadModel
import SkwadStore

/// Issue 26 with real processes on loopback: a direct message from `a` reaches `c`, which was
/// offline when it was sent, through `b`; `b` relays and stores only padded ciphertext; `a` sees
/// it delivered; the safety numbers match on both sides.
@Suite(.serialized) struct ConversationLocalnetTests {
    @Test func aMessageToAnOfflineNodeArrivesThroughARelayThatHoldsOnlyCiphertext() async throws {
        let net = try Localnet()
        defer { net.stop() }
        let a = try await net.start("a", peers: [])
        let b = try await net.start("b", peers: [a])
        try await net.start("c", peers: [b])
        for n in ["a", "b", "c"] { #expect(await net[n].waitFor("* peer joined")) }
        net["a"].send("create Quad --radius 1000")
        #expect(await net["a"].waitFor("created pack Quad"))
        #expect(await net["c"].waitFor("Quad", poll: "packs", seconds: 30))
        net["c"].send(#"post Quad "Roommate wanted" "quiet, clean, near campus""#)
        #expect(await net["c"].waitFor("posted "))
        let post = try #require(net["c"].id(after: "posted "))
        #expect(await net["a"].waitFor("Roommate wanted", poll: "feed Quad"))
        #expect(await net["b"].waitFor("2 ops stored", poll: "whoami"))

        // c goes offline; a writes to the author of the post.
        net["c"].send("quit")
        net["c"].stop()
        let secret = "the spare key is under the blue pot"
        net["a"].send("dm \(post) \"\(secret)\"")
        #expect(await net["a"].waitFor("sent "))
        let sentLine = try #require(net["a"].line(startingWith: "sent "))
        let dmID = String(sentLine.prefix { !$0.isWhitespace })
        let cTag = try #require(sentLine.split(separator: " ").first { $0.hasPrefix("anon·") }.map(String.init))
        #expect(await net["b"].waitFor("3 ops stored", poll: "whoami"))

        // c comes back (through b only) and hears of it; a sees it delivered.
        try await net.start("c", peers: [b])
        #expect(await net["c"].waitFor(secret, poll: "chat \(dmID)", seconds: 30))
        let got = try #require(net["c"].text.split(separator: "\n").first { $0.contains("message from anon·") }.map(String.init))
        let aTag = try #require(got.split(separator: " ").first { $0.hasPrefix("anon·") }.map(String.init))
        #expect(await net["a"].waitFor("(delivered)", poll: "chat \(cTag)", seconds: 30))

        // The same safety number on both sides.
        net["a"].send("verify \(cTag)")
        net["c"].send("verify \(aTag)")
        #expect(await net["a"].waitFor("safety number of you"))
        #expect(await net["c"].waitFor("safety number of you"))
        func number(_ n: String) async -> String? {
            _ = await net[n].waitFor("compare it with theirs")
            let lines = net[n].text.split(separator: "\n").map(String.init)
            guard let i = lines.firstIndex(where: { $0.hasPrefix("safety number of you") }), i + 1 < lines.count else { return nil }
            return lines[i + 1].trimmingCharacters(in: .whitespaces)
        }
        let na = await number("a"), nc = await number("c")
        #expect(na != nil && na == nc)

        // b relayed the message and its receipt: its output never showed the text, and its store
        // holds them only as boxes of a size class, the text nowhere in the file.
        #expect(await net["b"].waitFor("4 ops stored", poll: "whoami"))
        net["b"].send("quit")
        net["b"].stop()
        let bText = net["b"].text
        net.nodes["b"] = nil  // stopped for good: `net.stop` must not write to it
        #expect(!bText.contains(secret))
        let store = try Store(path: "\(net.dir)/b/skwad.sqlite")
        let ops = try store.loadOps().ops
        let boxes = ops.compactMap { op -> Int? in if case .directMessage(let d) = op.body.kind { d.sealed.count } else { nil } }
        #expect(boxes.count == 2 && boxes.allSatisfy { Limits.directSealedSizes.contains($0) })
        #expect(!ops.contains { String(decoding: $0.envelope.body, as: UTF8.self).contains(secret) })
        for file in ["skwad.sqlite", "skwad.sqlite-wal"] {
            let bytes = (try? Data(contentsOf: URL(fileURLWithPath: "\(net.dir)/b/\(file)"))) ?? Data()
            #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(file) holds the text")
        }
    }

    @Test func aDisplayNameAppearsInOnePackAndNotInAnotherOfTheSameUser() async throws {
        let net = try Localnet()
        defer { net.stop() }
        let a = try await net.start("a", peers: [])
        try await net.start("b", peers: [a])
        for n in ["a", "b"] { #expect(await net[n].waitFor("* peer joined")) }
        net["a"].send("create Quad --radius 1000")
        net["a"].send("create Kitchen --radius 1000")
        #expect(await net["a"].waitFor("created pack Kitchen"))
        #expect(await net["b"].waitFor("Kitchen", poll: "packs", seconds: 30))
        net["b"].send(#"profile Quad --name "Sam Q" --about "3rd year""#)
        #expect(await net["b"].waitFor("you are \"Sam Q\""))
        net["b"].send(#"post Quad "Room wanted" "two months" --named"#)
        net["b"].send(#"post Kitchen "Ramen tonight?" "7 pm""#)
        #expect(await net["a"].waitFor("Room wanted", poll: "feed Quad"))
        #expect(await net["a"].waitFor("Ramen tonight?", poll: "feed Kitchen"))
        let lines = net["a"].text.split(separator: "\n")
        #expect(lines.contains { $0.contains("Room wanted") && $0.contains("\"Sam Q\"") })
        #expect(
            lines.contains { $0.contains("Ramen tonight?") }
                && !lines.contains {
                    $0.contains("Ramen tonight?")
                        && $0.contains("Sam Q")
                })
    }

    @Test func aFollowedAuthorsPostRaisesALine() async throws {
        let net = try Localnet()
        defer { net.stop() }
        let a = try await net.start("a", peers: [])
        try await net.start("b", peers: [a])
        for n in ["a", "b"] { #expect(await net[n].waitFor("* peer joined")) }
        net["a"].send("create Kitchen --radius 1000")
        #expect(await net["a"].waitFor("created pack Kitchen"))
        net["a"].send(#"post Kitchen "Best ramen" "on Forbes""#)
        #expect(await net["a"].waitFor("posted "))
        let post = try #require(net["a"].id(after: "posted "))
        #expect(await net["b"].waitFor("Best ramen", poll: "feed Kitchen"))
        net["b"].send("follow \(post)")
        #expect(await net["b"].waitFor("following anon·"))
        net["a"].send(#"post Kitchen "Dumplings tonight" "7 pm""#)
        #expect(await net["b"].waitFor("whom you follow: "))
        let line = try #require(net["b"].text.split(separator: "\n").first { $0.contains("whom you follow: ") })
        #expect(line.contains("Dumplings tonight"))
        let mark = net["b"].text.count
        net["b"].send("feed --following")
        #expect(await net["b"].waitFor("Best ramen", after: mark))
    }
}
