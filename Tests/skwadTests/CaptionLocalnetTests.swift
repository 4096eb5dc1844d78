import Foundation
import Testing

/// Issue 28's captions between three real processes on loopback: the asker's pick reaches
/// every node, a later pick replaces it everywhere, and nobody else can pick.
@Suite(.serialized) struct CaptionLocalnetTests {
    /// The caption `show ASK` marks as picked on `node` now, if any (a fresh `show`, waited
    /// for until it lists `expect`ed captions).
    private func picked(on node: RunningNode, ask: String, listing captions: [String]) async -> String?? {
        let mark = node.text.count
        node.send("show \(ask)")
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let lines = String(node.text.dropFirst(mark)).split(separator: "\n")
            if captions.allSatisfy({ c in lines.contains { $0.contains(c) } }) {
                let star = lines.first { $0.contains("★ picked") }
                return .some(star.flatMap { line in captions.first { line.contains($0) } })
            }
            try? await Task.sleep(nanoseconds: 100_000_000)
        }
        return nil
    }

    /// Polls `picked(on:)` until it says `expected`, at most `seconds`.
    private func converges(
        _ node: RunningNode, ask: String, captions: [String], on expected: String, seconds: Double = 30
    ) async
        -> Bool
    {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if case .some(.some(let p)) = await picked(on: node, ask: ask, listing: captions), p == expected { return true }
            try? await Task.sleep(nanoseconds: 300_000_000)
        }
        return false
    }

    @Test func aPickConvergesOnEveryNodeAndOnlyTheAskersCounts() async throws {
        let net = try Localnet()
        defer { net.stop() }
        #expect(try await net.startThree())
        #expect(await net.packOnAll("Quad"))

        net["a"].send(#"ask Quad "caption this""#)
        #expect(await net["a"].waitFor("asked "))
        // "asked ID; captions come as comments (…)"
        let ask = try #require(net["a"].line(startingWith: "asked ").map { String($0.prefix { $0.isHexDigit }) })
        #expect(ask.count >= 6)
        for n in ["b", "c"] { #expect(await net[n].waitFor("caption this", poll: "show \(ask)", seconds: 30)) }
        net["b"].send(#"comment \#(ask) "monday again""#)
        #expect(await net["b"].waitFor("commented "))
        let fromB = try #require(net["b"].id(after: "commented "))
        net["c"].send(#"comment \#(ask) "tuesday, somehow""#)
        #expect(await net["c"].waitFor("commented "))
        let fromC = try #require(net["c"].id(after: "commented "))
        let captions = [fromB, fromC]
        #expect(await net["a"].waitFor(fromC, poll: "show \(ask)", seconds: 30))
        #expect(await net["a"].waitFor(fromB, poll: "show \(ask)", seconds: 30))

        // Only the asker picks: b is refused, and nothing is marked anywhere.
        let mark = net["b"].text.count
        net["b"].send("pick \(fromB)")
        #expect(await net["b"].waitFor("error: only the author of the ask picks", after: mark))
        #expect(await picked(on: net["c"], ask: ask, listing: captions) == .some(nil))

        // The asker's pick reaches every node; a later pick replaces it everywhere.
        net["a"].send("pick \(fromB)")
        #expect(await net["a"].waitFor("picked \(fromB)"))
        for n in ["a", "b", "c"] { #expect(await converges(net[n], ask: ask, captions: captions, on: fromB), "\(n)") }
        net["a"].send("pick \(fromC)")
        #expect(await net["a"].waitFor("picked \(fromC)"))
        for n in ["a", "b", "c"] { #expect(await converges(net[n], ask: ask, captions: captions, on: fromC), "\(n)") }
    }
}
