import Foundation
import Testing
import SkwadModel
@testable import SkwadNode
@testable import SkwadREPL

/// FireUp's place on a post (issue 28): `post … --here` claims your cell; `show` gives the
/// post's distance from you; `feed --within` keeps posts whose place is that near.
@Suite struct PlaceOnAPostTests {
    func run(_ r: REPL, _ line: String) async -> String { await r.handle(line, nowMs: wallClockMs()).output ?? "" }

    @Test func aPostWithAPlaceIsMeasuredFromYou() async throws {
        #expect(
            try Registry.parse(#"post Food "Ramen" "good" --here"#) as? PostCommand
                == PostCommand(pack: "Food", title: "Ramen", body: "good", here: true, tags: []))
        #expect(throws: CommandError.self) { try Registry.parse(#"post Food "Ramen" "good" --here --named"#) }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-here-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var config = NodeConfig(dataDir: dir)
        config.powBits = 2
        let node = try Node(config: config)
        let r = REPL(executor: Executor(node: node), reader: LineReader(interactive: false, historyPath: nil), mode: .plain)
        #expect(await run(r, "create Food").hasPrefix("created pack Food"))
        #expect(await run(r, #"post Food "Ramen" "good" --here"#).hasPrefix("error: --here attaches where you are: set your location"))
        _ = await run(r, "locate 40.4433,-79.9436")
        let posted = await run(r, #"post Food "Ramen" "good" --here"#)
        #expect(posted.hasPrefix("posted "))
        let id = String(posted.dropFirst("posted ".count))
        let plain = String(await run(r, #"post Food "Sushi" "also good""#).dropFirst("posted ".count))
        #expect(await run(r, "show \(id)").contains("posted about"))
        #expect(!(await run(r, "show \(plain)")).contains("posted about"))
        // 2.2 km north: the ramen post is out of a 1 km range, in a 5 km one.
        _ = await run(r, "locate 40.4633,-79.9436")
        #expect(await run(r, "show \(id)").contains("posted about 2."))
        #expect(!(await run(r, "feed --within 1000")).contains("Ramen"))
        #expect(await run(r, "feed --within 5000").contains("Ramen"))
        await node.close()
    }
}
