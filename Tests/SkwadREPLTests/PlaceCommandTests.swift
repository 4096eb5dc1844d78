import Foundation
import Testing
import SkwadModel
import SkwadNode
@testable import SkwadREPL

/// Issue 27 in the REPL: place, places, review, reply, swipe, favs and compare over a real node
/// (plain mode, as when piped).
@Suite struct PlaceCommandTests {
    func withREPL(_ mode: Renderer.Mode, _ body: (REPL, Node) async throws -> Void) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-places-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var config = NodeConfig(dataDir: dir)
        config.powBits = 2
        let node = try Node(config: config)
        try await body(REPL(executor: Executor(node: node), reader: LineReader(interactive: false, historyPath: nil), mode: mode), node)
    }

    @Test func parsingChecksRatingsAndRanges() throws {
        for bad in [
            "--overall 5.2 --location 3 --management 3 --amenities 3 --again yes",
            "--overall 4 --location 0 --management 3 --amenities 3 --again yes",
            "--overall 4 --location 3 --management 3 --amenities 3 --again maybe"
        ] {
            #expect(throws: CommandError.self) { try Registry.parse("review ab " + bad) }
        }
        #expect(throws: CommandError.self) { try Registry.parse("review ab --overall 4 --location 3 --management 3 --amenities 3") }
        #expect(throws: CommandError.self) { try Registry.parse(#"place add "1 Elm" --rent 9-x"#) }
        #expect(throws: CommandError.self) { try Registry.parse("compare ab") }
        #expect(throws: CommandError.self) { try Registry.parse("places --sort cheapest") }
        let add = try #require(try Registry.parse(#"place add "1 Elm St" --pack Quad --rent 700-900 --baths 1.5"#) as? PlaceAddCommand)
        let input = try add.input()
        #expect(add.pack == "Quad" && add.address == "1 Elm St" && input.rentMin == 700 && input.rentMax == 900 && input.bathsHalf == 3)
        let review = try #require(
            try Registry.parse(#"review ab --overall 3.5 --location 4 --management 2 --amenities 5 --again no "cold""#) as? ReviewCommand)
        #expect(review.place == "ab")
        #expect(try review.input() == ReviewInput(overallHalf: 7, location: 4, management: 2, amenities: 5, again: false, text: "cold"))
    }

    @Test func aCribbSession() async throws {
        try await withREPL(.plain) { repl, node in
            func run(_ line: String) async -> String { await repl.handle(line, nowMs: wallClockMs()).output ?? "" }
            #expect(await run("locate 43.0392,-76.1351").hasPrefix("location set"))
            #expect(await run("create Hill --radius 3000 --tags housing").hasPrefix("created pack Hill "))
            let added = await run(
                #"place add "12 Elm St" --city Syracuse --zip 13210 --landlord Acme --rent 700-900 --beds 3"#
                    + " --baths 1.5 --term 12 --at 43.0400,-76.1300 --landlord-key me")
            #expect(added.hasPrefix("added place "))
            let id = String(added.dropFirst("added place ".count))
            let other = String(await run(#"place add "12 elm st." --zip 13210 --rent 650 --beds 2"#).dropFirst("added place ".count))
            // The landlord's own review would not count: refused.
            #expect(await run("review \(id) --overall 5 --location 5 --management 5 --amenities 5 --again yes").contains("landlord"))
            let reviewed = await run(#"review \#(other) --overall 2.5 --location 4 --management 1 --amenities 2 --again no "mold""#)
            #expect(reviewed.hasPrefix("reviewed \(other)"))
            let edit = await run(#"review \#(other) --overall 3.5 --location 4 --management 3 --amenities 2 --again yes "fixed""#)
            #expect(edit.hasPrefix("reviewed \(other)"))
            let page = await run("place \(other)")
            #expect(page.contains("12 elm st., 13210") && page.contains("possible duplicate of \(id)"))
            #expect(page.contains("rating 3.5 (Bayesian: pack mean 3.5 over 1 review, weight 5)  average 3.5 of 5 from 1 review"))
            #expect(page.contains("location 4.0  management 3.0  amenities 2.0  would live here again: 100% (1 of 1)"))
            #expect(page.contains("  3★ ██████████████████████████████ 1") && page.contains("fixed") && !page.contains("mold"))
            #expect(page.contains("(edited)"))
            // places: text search over address and landlord, filters, sorts.
            #expect(
                await run("places acme")
                    .hasPrefix("\(id)  no reviews  12 Elm St, Syracuse, 13210  $700–900  3 bd  1.5 ba  12 mo  Acme  Hill"))
            #expect(await run("places nowhere") == "no places found (add one: place add \"ADDRESS\" --pack PACK)")
            #expect(await run("places --max-rent 680").hasPrefix(other))
            #expect(await run("places --min-reviews 1").split(separator: "\n").count == 1)
            #expect(await run("places --sort rent").hasPrefix(other))
            #expect(await run("places --sort distance").hasPrefix(id))  // the other place has no cell
            // Reply: only the landlord of the place (here: the place without a landlord refuses).
            let rid = String(try #require(await node.placePage(other).detail.reviews.first).id.hex.prefix(8))
            #expect(
                await run(#"reply \#(rid) "thanks""#)
                    == "error: only the place's landlord can reply to its reviews (comment on posts instead)")
            // Delete the review: the place has none again.
            #expect(await run("delete \(rid)").hasPrefix("deleted"))
            #expect(await run("place \(other)").contains("no reviews yet"))
        }
    }

    @Test func jsonShapes() async throws {
        try await withREPL(.json) { repl, _ in
            func run(_ line: String) async -> String { await repl.handle(line, nowMs: wallClockMs()).output ?? "" }
            _ = await run("create Hill")
            let added = await run(#"place add "1 Ash St" --rent 500 --beds 1"#)
            #expect(added.hasPrefix(#"{"ok":true,"id":""#))
            let list = await run("places")
            #expect(list.hasPrefix(#"{"ok":true,"places":[{"id":""#))
            for key in [
                #""address":"1 Ash St""#, #""rentMin":500"#, #""beds":1"#, #""duplicates":[]"#,
                #""summary":{"count":0,"overall":null"#, #""distribution":[0,0,0,0,0,0]"#, #""bayesian":null"#
            ] {
                #expect(list.contains(key), "\(key)")
            }
        }
    }

    @Test func hostileStringsArePrintedSafely() async throws {
        try await withREPL(.plain) { repl, _ in
            func run(_ line: String) async -> String { await repl.handle(line, nowMs: wallClockMs()).output ?? "" }
            _ = await run("create Hill")
            _ = await run("place add \"1 Elm\u{1B}]0;pwned\u{07}\nSt\" --landlord \"\u{202E}emca\"")
            let out = await run("places")
            #expect(!out.contains("\u{1B}") && !out.contains("\u{202E}") && !out.contains("\u{07}") && !out.contains("\n"))
        }
    }

    /// Swipe on piped input: one line per key; favs and compare give the documented output.
    @Test func swipeUndoFavsAndCompareOnPipedInput() async throws {
        try await withREPL(.plain) { repl, _ in
            func run(_ line: String) async -> String { await repl.handle(line, nowMs: wallClockMs()).output ?? "" }
            _ = await run("create Hill")
            var ids: [String] = []
            for (i, rent) in [900, 600, 750].enumerated() {
                ids.append(
                    String(
                        await run(#"place add "\#(i + 1) Oak St" --rent \#(rent) --beds \#(i + 1) --term \#(6 * (i + 1))"#)
                            .dropFirst("added place ".count)))
            }
            let first = await run("swipe --sort rent")
            #expect(first.hasPrefix("swipe: y favourite, n pass, u undo, q quit\n\(ids[1])  no reviews"))
            #expect(first.hasSuffix("(2 more) y/n/u/q?"))
            let y = await run("y")
            #expect(y.hasPrefix("favourite\n\(ids[2])") && y.hasSuffix("(1 more) y/n/u/q?"))
            #expect(await run("n").hasPrefix("passed\n\(ids[0])"))
            #expect(await run("u").hasPrefix("undone: pass on \(ids[2])\n\(ids[2])"))
            #expect(await run("maybe") == "error: in swipe mode: y favourite, n pass, u undo, q quit")
            #expect(await run("y").hasPrefix("favourite\n\(ids[0])"))
            #expect(await run("q") == "swipe ended (favs lists your favourites)")
            // Out of swipe mode, "y" is no command.
            #expect(await run("y").hasPrefix("error: unknown command"))
            let favs = await run("favs --sort term")
            #expect(favs.split(separator: "\n").map { String($0.prefix(ids[1].count)) } == [ids[1], ids[2]])
            #expect(await run("swipe --sort rent").hasPrefix("swipe: y favourite, n pass, u undo, q quit\n\(ids[0])"))
            #expect(await run("q").hasPrefix("swipe ended"))
            let table = await run("compare \(ids[0]) \(ids[1]) \(ids[2])")
            let lines = table.split(separator: "\n")
            #expect(lines.allSatisfy { $0.count <= 80 })
            // Rent per person: 900/1, 600/2, 750/3: the third is best; the longest term is the third's.
            let rent = try #require(lines.first { $0.hasPrefix("rent/person") })
            #expect(rent.contains("$900 ") && rent.contains("$300 ") && rent.contains("$250 *"))
            #expect(try #require(lines.first { $0.hasPrefix("term (months)") }).contains("18 *"))
        }
    }

    /// Places, reviews, the search index and swipe marks come back after a restart.
    @Test func placesReviewsAndFavouritesSurviveARestart() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-places-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var config = NodeConfig(dataDir: dir)
        config.powBits = 2
        func session(_ lines: [String]) async throws -> [String] {
            let node = try Node(config: config)
            let repl = REPL(executor: Executor(node: node), reader: LineReader(interactive: false, historyPath: nil), mode: .plain)
            var out: [String] = []
            for l in lines { out.append(await repl.handle(l, nowMs: wallClockMs()).output ?? "") }
            await node.close()
            return out
        }
        let first = try await session(["create Hill", #"place add "7 Birch Rd" --rent 640 --landlord Maple"#])
        let place = String(first[1].dropFirst("added place ".count))
        _ = try await session([
            #"review \#(place) --overall 4.5 --location 4 --management 5 --amenities 4 --again yes "quiet""#,
            "swipe", "y"
        ])
        let after = try await session(["places maple", "favs", "place \(place)"])
        #expect(after[0].hasPrefix("\(place)  ★4.5 (1 review)  7 Birch Rd  $640"))
        #expect(after[1].hasPrefix("\(place)  ★4.5"))
        #expect(after[2].contains("average 4.5 of 5 from 1 review") && after[2].contains("quiet"))
    }
}
