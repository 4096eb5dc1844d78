import Foundation
import Testing

/// Issue 27 with real processes on loopback (three localnet nodes, OS-picked ports): a place
/// and reviews made on different nodes give the same figures everywhere; a second review
/// edits the first everywhere; the landlord's reply converges and anyone else's is refused;
/// the inbox and the Den tell of them; swipe, undo, favs and compare on piped input.
@Suite(.serialized) struct PlaceLocalnetTests {
    func threeNodes() async throws -> Localnet {
        let net = try Localnet()
        #expect(try await net.startThree())
        return net
    }

    /// The lines of the last `place` page printed after `mark` that start with one of `prefixes`.
    func figures(_ node: RunningNode, after mark: Int, _ prefixes: [String]) -> [String] {
        let lines = String(node.text.dropFirst(mark)).split(separator: "\n").map(String.init)
        guard let start = lines.lastIndex(where: { $0.contains("  in Hill") }) else { return [] }
        return lines[start...].filter { l in prefixes.contains { l.hasPrefix($0) } }
    }

    @Test func placesReviewsAndTheLandlordsReplyConvergeOnThreeNodes() async throws {
        let net = try await threeNodes()
        defer { net.stop() }
        #expect(await net.packOnAll("Hill"))
        net["a"].send(#"place add "12 Elm St" --pack Hill --rent 700 --beds 2 --landlord-key me"#)
        #expect(await net["a"].waitFor("added place "))
        let place = try #require(net["a"].id(after: "added place "))
        for n in ["b", "c"] { #expect(await net[n].waitFor("12 Elm St", poll: "places")) }
        net["b"].send(#"review \#(place) --overall 4 --location 5 --management 3 --amenities 4 --again yes "warm in winter""#)
        #expect(await net["b"].waitFor("reviewed \(place) ("))
        let reviewLine = try #require(net["b"].line(startingWith: "reviewed \(place) ("))
        let review = String(reviewLine.prefix { $0 != ")" })
        net["c"].send(#"review \#(place) --overall 3 --location 2 --management 2 --amenities 3 --again no "noisy street""#)
        #expect(await net["c"].waitFor("reviewed \(place) ("))

        // The same figures on every node.
        let expected = [
            "  rating 3.5 (Bayesian: pack mean 3.5 over 2 reviews, weight 5)  average 3.5 of 5 from 2 reviews",
            "  location 3.5  management 2.5  amenities 3.5  would live here again: 50% (1 of 2)",
            "  4★ ██████████████████████████████ 1",
            "  3★ ██████████████████████████████ 1"
        ]
        for n in ["a", "b", "c"] {
            let mark = net[n].text.count
            #expect(await net[n].waitFor("from 2 reviews", after: mark, poll: "place \(place)"), "\(n) did not get both reviews")
            try? await Task.sleep(nanoseconds: 300_000_000)
            #expect(figures(net[n], after: mark, ["  rating", "  location", "  4★", "  3★"]) == expected, "\(n)")
        }

        // b's second review edits its first everywhere.
        let before = net["b"].text.count
        net["b"].send(#"review \#(place) --overall 1 --location 5 --management 1 --amenities 4 --again no "changed my mind""#)
        #expect(await net["b"].waitFor("reviewed \(place) (", after: before))
        for n in ["a", "b", "c"] {
            let mark = net[n].text.count
            #expect(
                await net[n].waitFor("average 2.0 of 5 from 2 reviews", after: mark, poll: "place \(place)"),
                "\(n) kept the first review")
            #expect(await net[n].waitFor("changed my mind", after: mark))
        }

        // The landlord (a's pseudonym, named when the place was added) replies; c may not.
        net["c"].send(#"reply \#(review) "I am the landlord""#)
        #expect(await net["c"].waitFor("error: only the place's landlord can reply to its reviews"))
        net["a"].send(#"reply \#(review) "We fixed the boiler""#)
        #expect(await net["a"].waitFor("replied "))
        for n in ["a", "b", "c"] {
            let mark = net[n].text.count
            #expect(await net[n].waitFor("↳ landlord anon·", after: mark, poll: "place \(place)"), "\(n) did not get the reply")
            #expect(await net[n].waitFor("We fixed the boiler", after: mark))
        }
        #expect(!net["a"].text.contains("I am the landlord") && !net["b"].text.contains("I am the landlord"))

        // The inbox: a hears of the reviews of its place, b of the landlord's reply; the Den.
        var mark = net["a"].text.count
        net["a"].send("inbox")
        #expect(await net["a"].waitFor("reviewed your place \(place) \"12 Elm St\" in Hill: 1.0/5", after: mark))
        #expect(String(net["a"].text.dropFirst(mark)).contains("reviewed your place \(place) \"12 Elm St\" in Hill: 3.0/5"))
        mark = net["b"].text.count
        net["b"].send("inbox")
        #expect(await net["b"].waitFor("the landlord anon·", after: mark))
        #expect(String(net["b"].text.dropFirst(mark)).contains("replied to your review of \(place) \"12 Elm St\" in Hill"))
        mark = net["b"].text.count
        net["b"].send("den")
        #expect(await net["b"].waitFor("places added: 0  reviews: 1", after: mark))
        #expect(await net["b"].waitFor("1.0/5 on \(place)  (the landlord replied)  changed my mind", after: mark))
    }

    @Test func swipeUndoFavsAndCompareOnPipedInput() async throws {
        let net = try await threeNodes()
        defer { net.stop() }
        net["a"].send("create Hill --radius 1000")
        #expect(await net["a"].waitFor("created pack Hill"))
        net["a"].send(#"place add "12 Elm St" --pack Hill --rent 700 --beds 2 --term 12"#)
        #expect(await net["a"].waitFor("added place "))
        let elm = try #require(net["a"].id(after: "added place "))
        var mark = net["a"].text.count
        net["a"].send(#"place add "3 Oak St" --pack Hill --rent 500 --beds 1 --term 9"#)
        #expect(await net["a"].waitFor("added place ", after: mark))
        let added = try #require(String(net["a"].text.dropFirst(mark)).split(separator: "\n").first { $0.hasPrefix("added place ") })
        let oak = String(added.dropFirst("added place ".count))
        let c = net["c"]
        #expect(await c.waitFor("3 Oak St", poll: "places"))
        #expect(await c.waitFor("12 Elm St", poll: "places"))
        mark = c.text.count
        c.send("swipe --sort rent")
        #expect(await c.waitFor("swipe: y favourite, n pass, u undo, q quit\n\(oak)", after: mark))
        c.send("y")
        #expect(await c.waitFor("favourite\n\(elm)", after: mark))
        mark = c.text.count
        c.send("u")
        #expect(await c.waitFor("undone: favourite on \(oak)\n\(oak)", after: mark))
        mark = c.text.count
        c.send("y")
        #expect(await c.waitFor("favourite\n\(elm)", after: mark))
        c.send("n")
        #expect(await c.waitFor("passed\nno more places: swipe ended (favs lists your favourites)", after: mark))
        c.send("swipe")
        #expect(await c.waitFor("nothing to swipe", after: mark))
        mark = c.text.count
        c.send("favs")
        #expect(await c.waitFor("\(oak)  no reviews", after: mark))
        #expect(!String(c.text.dropFirst(mark)).contains("\(elm)  no reviews"))
        mark = c.text.count
        c.send("compare \(elm) \(oak)")
        #expect(await c.waitFor("reviews", after: mark))
        let table = String(c.text.dropFirst(mark))
        #expect(table.contains("rent/person   $350 *") && table.contains("term (months) 12 *"))
        #expect(table.split(separator: "\n").allSatisfy { $0.count <= 80 })
        // Only c swiped: a has no favourites.
        mark = net["a"].text.count
        net["a"].send("favs")
        #expect(await net["a"].waitFor("no favourites yet", after: mark))
    }
}
