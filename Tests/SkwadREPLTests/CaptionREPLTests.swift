import Foundation
import Testing
import SkwadModel
import SkwadNode
@testable import SkwadREPL

/// Issue 28's captions in the REPL: `ask` and `pick`, what a thread of captions prints, and
/// the inbox line the picked caption's author gets, over two nodes in memory.
@Suite(.serialized) struct CaptionREPLTests {
    @Test func grammar() throws {
        #expect(try Command.parse(#"ask Quad "caption this""#) == .caption(.ask(pack: "Quad", prompt: "caption this", body: "", tags: [])))
        #expect(
            try Command.parse(#"ask Quad "caption this" "a cat" --tags fun"#)
                == .caption(.ask(pack: "Quad", prompt: "caption this", body: "a cat", tags: ["fun"])))
        #expect(try Command.parse("pick ab12") == .caption(.pick("ab12")))
        #expect(throws: CommandError.self) { try Command.parse("ask Quad") }
        #expect(throws: CommandError.self) { try Command.parse("pick") }
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
