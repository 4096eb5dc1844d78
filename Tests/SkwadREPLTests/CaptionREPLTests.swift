import Foundation
import Testing
import SkwadModel
import SkwadNode
@testable import SkwadREPL

/// Issue 28's captions in the REPL: `ask` and `pick`, what a thread of captions prints, and
/// the inbox line the picked caption's author gets, over two nodes in memory.
@Suite(.serialized) struct CaptionREPLTests {
    @Test func grammar() throws {
        #expect(
            try Registry.parse(#"ask Quad "caption this""#) as? AskCommand
                == AskCommand(pack: "Quad", prompt: "caption this", tags: [], body: ""))
        #expect(
            try Registry.parse(#"ask Quad "caption this" "a cat" --tags fun"#) as? AskCommand
                == AskCommand(pack: "Quad", prompt: "caption this", tags: ["fun"], body: "a cat"))
        #expect(try Registry.parse("pick ab12") as? PickCommand == PickCommand(caption: "ab12"))
        #expect(throws: CommandError.self) { try Registry.parse("ask Quad") }
        #expect(throws: CommandError.self) { try Registry.parse("pick") }
    }

    @Test func theAskerPicksAndTheCaptionsAuthorIsTold() async throws {
        let net = try await NodePair("captions")
        let (a, b) = (net.a, net.b)
        defer { Task { await net.shutdown() } }
        #expect(try await net.packOnBoth("Quad"))
        let (replA, replB) = (NodePair.repl(a), NodePair.repl(b))
        func run(_ r: REPL, _ line: String) async -> String { await NodePair.run(r, line) }

        let asked = await run(replA, #"ask Quad "caption this""#)
        #expect(asked.hasPrefix("asked "))
        let ask = try await a.feed(pack: nil, sort: .new, limit: 5).first { $0.isAsk }.map(\.id)
        let askID = try #require(ask)
        #expect(await net.eventually { (try? await b.show(askID.hex)) != nil })
        let captioned = await run(replB, "comment \(askID.hex) \"monday again\"")
        #expect(captioned.hasPrefix("commented "))
        let caption = String(captioned.dropFirst("commented ".count))
        #expect(await net.eventually { (try? await a.show(askID.hex))?.comments.count == 1 })
        // Only the asker picks.
        #expect(await run(replB, "pick \(caption)").hasPrefix("error: only the author of the ask picks"))
        #expect(await run(replA, "pick \(askID.hex)").hasPrefix("error:"))
        #expect(await run(replA, "pick \(caption)").hasPrefix("picked \(caption)"))
        #expect(await run(replA, "show \(askID.hex)").contains("★ picked"))
        #expect(await run(replA, "feed").contains("[ask] caption this"))
        #expect(await net.eventually { (try? await b.show(askID.hex))?.post.picked != nil })
        #expect(await run(replB, "inbox").contains("your caption \(caption) was picked"))
    }
}
