import Foundation
import Testing
import SkwadModel
import SkwadNode
import SkwadTestKit
@testable import SkwadREPL

/// Defects a new user met walking the apps (issue 47, part 3), in the REPL over a real node
/// (plain mode, as when piped, and JSON).
@Suite struct WalkREPLTests {
    func withREPL(_ mode: Renderer.Mode = .plain, _ body: (REPL, Node, String) async throws -> Void) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-walk-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var config = NodeConfig(dataDir: dir)
        config.powBits = 2
        let node = try Node(config: config)
        let repl = REPL(executor: Executor(node: node), reader: LineReader(interactive: false, historyPath: nil), mode: mode)
        try await body(repl, node, dir)
        await node.close()
    }

    func run(_ repl: REPL, _ line: String) async -> String { await repl.handle(line, nowMs: wallClockMs()).output ?? "" }

    /// The README's first session, then a CapGrab pick and a Cribb place and review in the
    /// same locked pack: every op claims the user's cell.
    @Test func pickPlacesAndReviewsWorkInALockedPack() async throws {
        try await withREPL { repl, _, _ in
            #expect(await run(repl, "locate 40.4433,-79.9436").hasPrefix("location set"))
            #expect(await run(repl, "create Quad --radius 800 --locked --tags campus --color green").hasPrefix("created pack Quad "))
            let asked = await run(repl, #"ask Quad "caption this: the library at 3 am""#)
            #expect(asked.hasPrefix("asked "))
            let ask = String(asked.dropFirst("asked ".count).prefix { $0 != ";" })
            let commented = await run(repl, #"comment \#(ask) "the real finals week""#)
            #expect(commented.hasPrefix("commented "))
            let caption = String(commented.dropFirst("commented ".count))
            #expect(await run(repl, "pick \(caption)") == "picked \(caption) for \(ask)")
            let added = await run(repl, #"place add "1 Elm St" --rent 700 --beds 2"#)
            #expect(added.hasPrefix("added place "))
            let place = String(added.dropFirst("added place ".count))
            let reviewed = await run(repl, "review \(place) --overall 4 --location 4 --management 3 --amenities 3 --again yes")
            #expect(reviewed.hasPrefix("reviewed \(place)"))
        }
    }

    /// Every hint that names a pack writes it as the tokenizer reads it back.
    @Test func hintsQuoteANameWithASpace() async throws {
        try await withREPL { repl, _, _ in
            #expect(await run(repl, #"create "Quad Lawn""#).hasPrefix("created pack Quad Lawn "))
            _ = await run(repl, #"create Oakland"#)
            func command(_ out: String, from start: String, to end: String) throws -> [String] {
                let from = try #require(out.range(of: start)), to = try #require(out.range(of: end, range: from.upperBound..<out.endIndex))
                return try Tokenizer.split(String(out[from.lowerBound..<to.upperBound]))
            }
            let refused = await run(repl, #"post "Quad Lawn" "Room" "" --named"#)
            let profileHint = try command(refused, from: "profile ", to: "first")
            #expect(profileHint == ["profile", "Quad Lawn", "--name", "NAME", "first"])
            let empty = await run(repl, #"feed "Quad Lawn""#)
            #expect(empty.hasPrefix("no posts in Quad Lawn yet"))
            let postHint = try command(empty, from: "(post ", to: "\"BODY\"")
            #expect(postHint == ["(post", "Quad Lawn", "TITLE", "BODY"])
            let profiled = await run(repl, #"profile "Quad Lawn" --name Sam"#)
            let namedHint = try command(profiled, from: "post ", to: "--named")
            #expect(namedHint == ["post", "Quad Lawn", "TITLE", "BODY", "--named"])
            // Two packs joined: place add without --pack lists them, quoted as they are typed.
            let which = await run(repl, #"place add "1 Elm St""#)
            #expect(which == #"error: you are in 2 packs: say which one the place is in with --pack PACK ("Quad Lawn", Oakland)"#)
            #expect(await run(repl, #"place add "1 Elm St" --pack "Quad Lawn""#).hasPrefix("added place "))
        }
    }

    /// Tab inserts words the tokenizer reads back (no `Quad\ Lawn`).
    @Test func tabCompletionQuotesNamesWithSpaces() throws {
        let words = CompletionWords(packs: ["Quad Lawn", "Quad Park", "Oakland", "Say \"hi\""], ops: ["f5473a"])
        func insert(_ line: String, _ replaced: String) -> [String] { Completion.insertions(line: line, replaced: replaced, words: words) }
        #expect(insert("feed Oa", "Oa") == ["Oakland"])
        #expect(insert("feed Quad L", "L").isEmpty)  // `Quad` is a whole word: no pack starts with `L`
        #expect(insert("feed Qu", "Qu") == [#""Quad Lawn""#, #""Quad Park""#])
        #expect(insert(#"feed "Quad L"#, "L") == [#"Lawn""#])
        #expect(insert(#"feed "qu"#, "qu") == [#"Quad Lawn""#, #"Quad Park""#])
        #expect(insert("feed Sa", "Sa") == [#""Say \"hi\"""#])
        #expect(insert("show f5", "f5") == ["f5473a"])
        #expect(insert("", "").contains("feed"))
        // What libedit inserts (the common start of several, else the one) reads back as the name.
        let store = CompletionStore()
        store.set(words)
        #expect(store.matches(line: "feed Qu", replaced: "Qu") == [#""Quad "#, #""Quad Lawn""#, #""Quad Park""#])
        #expect(store.matches(line: #"feed "Quad P"#, replaced: "P") == [#"Park""#, #"Park""#])
        for (line, replaced) in [("feed Qu", "Qu"), (#"feed "Quad P"#, "P"), ("feed Sa", "Sa")] {
            for m in store.matches(line: line, replaced: replaced).dropFirst() {
                let typed = String(line.dropLast(replaced.count)) + m
                let parsed = try Tokenizer.split(typed)
                #expect(parsed.count == 2 && words.packs.contains(parsed[1]), "\(typed)")
            }
        }
    }

    /// A place nobody reviewed has no rating: shown as such, sorted last, none in compare.
    @Test func aPlaceWithoutAReviewHasNoRating() async throws {
        try await withREPL { repl, _, _ in
            _ = await run(repl, "create Hill")
            let a = String(await run(repl, #"place add "1 Oak St" --rent 600"#).dropFirst("added place ".count))
            let b = String(await run(repl, #"place add "2 Oak St" --rent 700"#).dropFirst("added place ".count))
            _ = await run(repl, "review \(b) --overall 2 --location 2 --management 2 --amenities 2 --again no")
            let list = await run(repl, "places").split(separator: "\n")
            #expect(list.count == 2 && list[0].hasPrefix("\(b)  ★2.0 (1 review)") && list[1].hasPrefix("\(a)  no reviews  1 Oak St"))
            let rating = try #require(await run(repl, "compare \(a) \(b)").split(separator: "\n").first { $0.hasPrefix("rating") })
            #expect(rating.split(separator: " ", omittingEmptySubsequences: true) == ["rating", "–", "2.0"])
        }
    }

    /// `profile --about` is shown: in the reply, under a named post in `show`, and in JSON.
    @Test func theAboutLineIsShown() async throws {
        try await withREPL { repl, _, _ in
            _ = await run(repl, "create Quad")
            let profiled = await run(repl, #"profile Quad --name Sam --about "3rd year, looking for a room""#)
            #expect(profiled.hasPrefix(#"you are "Sam" (anon·"#) && profiled.contains(", about: 3rd year, looking for a room; post Quad"))
            let posted = await run(repl, #"post Quad "Room wanted" "two months from June" --named"#)
            let id = String(posted.dropFirst("posted ".count))
            #expect(await run(repl, "show \(id)").contains("\n    \"Sam\": 3rd year, looking for a room"))
            let anon = String(await run(repl, #"post Quad "Anonymous" "x""#).dropFirst("posted ".count))
            #expect(!(await run(repl, "show \(anon)")).contains("3rd year"))
        }
        try await withREPL(.json) { repl, _, _ in
            _ = await run(repl, "create Quad")
            #expect(await run(repl, #"profile Quad --name Sam --about "hi there""#).contains(#""name":"Sam","about":"hi there""#))
            _ = await run(repl, #"post Quad "Room" "x" --named"#)
            #expect(await run(repl, "feed").contains(#""displayName":"Sam","displayAbout":"hi there""#))
        }
    }

    /// `open` writes `DATA/pictures/ID.EXT` with the id as printed; an empty `feed --within`
    /// says that no post lies within the distance.
    @Test func openNamesTheFileByThePrintedIdAndFeedWithinSaysWhyItIsEmpty() async throws {
        try await withREPL { repl, _, dir in
            _ = await run(repl, "locate 40.4433,-79.9436")
            _ = await run(repl, "create Food --radius 300")
            try Data(TestPictures.jpeg).write(to: URL(fileURLWithPath: dir + "/ramen.jpg"))
            let posted = await run(repl, #"post Food "Free ramen" "kitchen" --here --image \#(dir)/ramen.jpg"#)
            let id = String(posted.dropFirst("posted ".count))
            #expect(id.count >= 6)
            #expect(await run(repl, "open \(id)").hasPrefix("\(dir)/pictures/\(id).jpg  jpeg, "))
            #expect(FileManager.default.fileExists(atPath: "\(dir)/pictures/\(id).jpg"))
            _ = await run(repl, "locate 40.4833,-79.9436")  // about 4.4 km north
            #expect(await run(repl, "feed --within 500") == "no post lies within 500 m of you (try a larger distance)")
            #expect(await run(repl, "feed --within 5000").hasPrefix(id))
        }
    }
}
