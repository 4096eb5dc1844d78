import Foundation
import Testing

extension RunningNode {
    /// Like `waitFor`, but only output written after `mark` (a length of `text`) counts.
    func waitFor(_ needle: String, after mark: Int, poll: String? = nil, seconds: Double = 30) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if String(text.dropFirst(mark)).contains(needle) { return true }
            if let poll { send(poll) }
            try? await Task.sleep(nanoseconds: 200_000_000)
        }
        return String(text.dropFirst(mark)).contains(needle)
    }

    /// The id a command printed as "<prefix> <id>".
    func id(after prefix: String) -> String? {
        line(startingWith: prefix).map { String($0.prefix { !$0.isWhitespace }) }
    }
}

/// Issue 11, part A, with real processes on loopback (three localnet nodes, OS-picked ports).
@Suite(.serialized) struct ModerationLocalnetTests {
    func threeNodes() async throws -> Localnet {
        let net = try Localnet()
        #expect(try await net.startThree())
        return net
    }

    @Test func aReportIsReadableOnTheModeratorsNodeAndNotOnARelay() async throws {
        let net = try await threeNodes()
        defer { net.stop() }
        net["a"].send("create Quad --radius 1000")
        #expect(await net["a"].waitFor("created pack Quad"))
        #expect(await net["b"].waitFor("Quad", poll: "packs", seconds: 30))
        net["b"].send(#"post Quad "Rude post" "something insulting""#)
        #expect(await net["b"].waitFor("posted "))
        let post = try #require(net["b"].id(after: "posted "))
        #expect(await net["c"].waitFor("Rude post", poll: "feed Quad"))
        net["c"].send(#"report \#(post) "harassment of a classmate""#)
        #expect(await net["c"].waitFor("reported \(post)"))
        // The Alpha's node opens it: target and reason.
        #expect(await net["a"].waitFor("harassment of a classmate", poll: "reports Quad"))
        #expect(net["a"].text.contains("on \(post)"))
        // b holds the same ops as a (the report included) and reads nothing of it.
        #expect(await net["a"].waitFor("3 ops stored", poll: "whoami"))
        #expect(await net["b"].waitFor("3 ops stored", poll: "whoami"))
        let mark = net["b"].text.count
        net["b"].send("reports Quad")
        net["b"].send("reports")
        #expect(await net["b"].waitFor("no open reports", after: mark))
        #expect(net["b"].text.contains("error: only the pack's Alpha and admins see its reports"))
        #expect(!net["b"].text.contains("harassment"))
    }

    @Test func theAlphaHidesAndRestoresAPostSeenOnThreeNodes() async throws {
        let net = try await threeNodes()
        defer { net.stop() }
        net["a"].send("create Quad --radius 1000")
        #expect(await net["a"].waitFor("created pack Quad"))
        #expect(await net["b"].waitFor("Quad", poll: "packs", seconds: 30))
        net["b"].send(#"post Quad "Buy followers" "cheap""#)
        #expect(await net["b"].waitFor("posted "))
        let post = try #require(net["b"].id(after: "posted "))
        for n in ["a", "c"] { #expect(await net[n].waitFor("Buy followers", poll: "feed Quad")) }
        // The Alpha may not delete it, and is told to hide it.
        net["a"].send("delete \(post)")
        #expect(await net["a"].waitFor("hide \(post) [REASON]"))
        // A member may not hide it.
        net["c"].send("hide \(post)")
        #expect(await net["c"].waitFor("error: only the pack's Alpha and admins can hide"))
        net["a"].send(#"hide \#(post) "spam""#)
        #expect(await net["a"].waitFor("hid \(post)"))
        for n in ["a", "b", "c"] {
            let mark = net[n].text.count
            #expect(await net[n].waitFor("(hidden: by a moderator)", after: mark, poll: "show \(post)"), "\(n) did not see the hide")
        }
        net["a"].send("unhide \(post)")
        #expect(await net["a"].waitFor("restored \(post)"))
        for n in ["a", "b", "c"] {
            let mark = net[n].text.count
            #expect(await net[n].waitFor("unhide  \(post)", after: mark, poll: "log Quad"), "\(n) did not see the restore")
            let again = net[n].text.count
            net[n].send("feed Quad")
            #expect(await net[n].waitFor("Buy followers", after: again), "\(n) does not show the post again")
        }
        #expect(net["c"].text.contains("(alpha)  hide  \(post)  reason: spam"))
    }
}
