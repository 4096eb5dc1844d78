import Foundation
import SkwadTestKit
import Testing
import SkwadModel
import SkwadReplica
@testable import SkwadNode
@testable import SkwadREPL

/// search, inbox, map, colours, help width, plurals and error quoting in the REPL (issue 11, part B).
@Suite struct FindingREPLTests {
    func withNode(_ body: (Node) async throws -> Void) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-find-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var config = NodeConfig(dataDir: dir)
        config.powBits = 2
        try await body(try Node(config: config))
    }

    func repl(_ node: Node, _ mode: Renderer.Mode) -> REPL {
        REPL(executor: Executor(node: node), reader: LineReader(interactive: false, historyPath: nil), mode: mode)
    }

    @Test func parsesTheNewCommands() throws {
        #expect(
            try Registry.parse("search free pizza --pack Quad") as? SearchCommand
                == SearchCommand(pack: "Quad", limit: 20, text: "free pizza"))
        #expect(
            try Registry.parse(#"search "free pizza" --limit 3"#) as? SearchCommand
                == SearchCommand(pack: nil, limit: 3, text: "free pizza"))
        #expect(
            try Registry.parse("feed --tag food --within 500") as? FeedCommand
                == FeedCommand(sort: .new, limit: 20, tag: "food", within: 500, pack: nil))
        #expect(try Registry.parse("map --radius 2000 --json") as? MapCommand == MapCommand(radius: 2000, json: true))
        #expect(try Registry.parse("inbox") as? InboxCommand == InboxCommand())
        #expect(throws: CommandError.self) { try Registry.parse("search") }
        #expect(throws: CommandError.self) { try Registry.parse("feed --within -3") }
        #expect(throws: CommandError.self) { try Registry.parse("map --radius 1") }
    }

    @Test func helpFitsEightyColumnsAndCreateListsThePalette() async throws {
        try await withNode { node in
            let r = repl(node, .plain)
            var outputs = [await r.handle("help", nowMs: 0).output ?? ""]
            for name in Registry.helpNames { outputs.append(await r.handle("help \(name)", nowMs: 0).output ?? "") }
            for out in outputs {
                for line in out.split(separator: "\n") { #expect(line.count <= 80, "too wide: \(line)") }
            }
            let create = await r.handle("help create", nowMs: 0).output ?? ""
            #expect(Palette.names.allSatisfy { create.contains($0) })
        }
    }

    @Test func pluralsAndColoursAsChosen() async throws {
        try await withNode { node in
            let plain = repl(node, .plain), term = repl(node, .terminal)
            _ = await plain.handle("create Quad --color red", nowMs: wallClockMs())
            #expect((await plain.handle("packs", nowMs: wallClockMs()).output ?? "").contains("0 people, 0 posts"))
            _ = await plain.handle(#"post Quad "One" "x""#, nowMs: wallClockMs())
            #expect((await plain.handle("packs", nowMs: wallClockMs()).output ?? "").contains("0 people, 1 post "))
            #expect((await plain.handle("whoami", nowMs: wallClockMs()).output ?? "").contains("1 pack joined, 2 ops stored"))
            let red = try #require(Palette.color(named: "red"))
            let feed = await term.handle("feed", nowMs: wallClockMs()).output ?? ""
            #expect(feed.contains("\u{1B}[\(red.sgr)mQuad\u{1B}[0m"))
            let bad = await plain.handle("create Other --color octarine", nowMs: wallClockMs()).output ?? ""
            #expect(bad.hasPrefix("error: unknown colour 'octarine': choose one of red, orange"))
            // Two packs named alike: shown with an id prefix, accepted as shown.
            _ = await plain.handle("create quad", nowMs: wallClockMs())
            let packs = await plain.handle("packs", nowMs: wallClockMs()).output ?? ""
            let labels = packs.split(separator: "\n").compactMap { $0.split(separator: " ").dropFirst().first.map(String.init) }
            #expect(labels.count == 2 && labels.allSatisfy { $0.lowercased().hasPrefix("quad·") })
            for l in labels { #expect((await plain.handle("feed \(l)", nowMs: wallClockMs()).output ?? "").hasPrefix("error") == false) }
        }
    }

    @Test func errorsQuoteAtMostEightyCharactersOfAHugeInput() async throws {
        try await withNode { node in
            let r = repl(node, .plain)
            let huge = String(repeating: "x", count: 1 << 20)
            for line in [
                huge, "locate \(huge)", "feed --limit \(huge)", "up \(huge)", "join \(huge)", "help \(huge)", "feed --sort \(huge)"
            ] {
                let out = await r.handle(line, nowMs: wallClockMs()).output ?? ""
                #expect(out.hasPrefix("error: ") && out.count < 300, "\(out.prefix(120))… (\(out.count) characters)")
                #expect(!out.contains(String(repeating: "x", count: 81)))
            }
            #expect((await r.handle("up 0", nowMs: 0).output ?? "").contains("too short for an id"))
            #expect(
                await r.handle("delete 0000000000", nowMs: 0).output
                    == "error: no post, comment or pack with id '0000000000' (see: feed, packs)")
        }
    }

    @Test func searchShowsThePostAndTheCommentThatMatched() async throws {
        try await withNode { node in
            let r = repl(node, .plain)
            _ = await r.handle("create Quad", nowMs: wallClockMs())
            let posted = await r.handle(#"post Quad "Free pizza" "Gates 4th floor""#, nowMs: wallClockMs()).output ?? ""
            let id = String(posted.dropFirst("posted ".count))
            _ = await r.handle(#"comment \#(id) "the quesadillas are gone""#, nowMs: wallClockMs())
            let out = (await r.handle("search quesadillas", nowMs: wallClockMs()).output ?? "").split(separator: "\n")
            #expect(
                out.count == 2 && out[0].hasPrefix(id) && out[0].contains("Free pizza") && out[1].contains("↳")
                    && out[1].contains("quesadillas"))
            #expect(await r.handle("search nothinglikethis", nowMs: 0).output?.hasPrefix("nothing found") == true)
        }
    }

    @Test func mapPutsYouInTheMiddleAndEachPackWhereItLies() async throws {
        try await withNode { node in
            let r = repl(node, .plain)
            _ = await r.handle("locate 40.4433,-79.9436", nowMs: wallClockMs())
            _ = await r.handle("create Here --radius 100 --color green", nowMs: wallClockMs())
            _ = await r.handle("locate 40.4523,-79.9436", nowMs: wallClockMs())  // ≈ 1 km north
            _ = await r.handle("create North --radius 200", nowMs: wallClockMs())
            _ = await r.handle("create Everywhere", nowMs: wallClockMs())
            _ = await r.handle("locate 40.4433,-79.9436", nowMs: wallClockMs())
            let text = await r.handle("map --radius 2000", nowMs: wallClockMs()).output ?? ""
            #expect(!text.contains("\u{1B}["))
            let json = await r.handle("map --radius 2000 --json", nowMs: wallClockMs()).output ?? ""
            let obj = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
            let grid = try #require(obj["grid"] as? [String])
            let cols = try #require(obj["cols"] as? Int), rows = try #require(obj["rows"] as? Int)
            #expect(grid.count == rows && cols <= 80 && rows <= 24)
            #expect(Array(grid[rows / 2])[cols / 2] == "@")
            let packs = try #require(obj["packs"] as? [[String: Any]])
            let north = try #require(packs.first { $0["name"] as? String == "North" })
            let (x, y) = (try #require(north["x"] as? Int), try #require(north["y"] as? Int))
            // 1 km north with 2 km to the edge: half-way up, same column.
            #expect(x == cols / 2 && abs(y - rows / 4) <= 1)
            let letter = try #require(north["letter"] as? String)
            #expect(String(Array(grid[y])[x]) == letter)
            #expect(packs.first { $0["name"] as? String == "Everywhere" }?["x"] is NSNull)
            #expect(packs.first { $0["name"] as? String == "Here" }?["color"] as? String == "green")
            // The text map is the same grid, then a legend line per pack.
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            #expect(lines.count == 1 + rows + 3)
            for (i, row) in grid.enumerated() {
                #expect(lines[1 + i] == row.replacingOccurrences(of: #"\s+$"#, with: "", options: .regularExpression))
            }
            #expect(text.contains("North") && text.contains("no fence: everywhere"))
            // Without a location: a one-line error.
            try await withNode { other in
                #expect((await repl(other, .plain).handle("map", nowMs: 0).output ?? "").hasPrefix("error: map is drawn around you"))
            }
        }
    }

    @Test func eventTimesAreRelativeToNowAndPeersShowOnlyWhenVerbose() async throws {
        try await withNode { node in
            _ = try await node.createPack(name: "Quad", radiusMeters: nil, locked: false, tags: [], color: "")
            let id = try await node.post(pack: "Quad", title: "Hi", body: "x", tags: [])
            let post = try await node.show(id.hex).post
            let nowMs = post.hlc.physicalMs + 2_000
            let line = try #require(REPL.eventLine(.newPost(post), mode: .terminal, verbose: false, styles: [:], nowMs: nowMs))
            #expect(line.contains("now") && !line.contains("in "))
            #expect(REPL.eventLine(.peerJoined("127.0.0.1:9"), mode: .terminal, verbose: false, styles: [:], nowMs: nowMs) == nil)
            #expect(REPL.eventLine(.peerLeft("127.0.0.1:9"), mode: .json, verbose: false, styles: [:], nowMs: nowMs) == nil)
            #expect(
                REPL.eventLine(.peerJoined("127.0.0.1:9"), mode: .plain, verbose: true, styles: [:], nowMs: nowMs)
                    == "* peer joined 127.0.0.1:9")
        }
    }

    /// Every key of every JSON object appears once.
    func duplicateKeys(_ j: JSON, path: String = "") -> [String] {
        switch j {
        case .object(let kv):
            var seen: Set<String> = [], dups: [String] = []
            for (k, v) in kv {
                if !seen.insert(k).inserted { dups.append(path + "." + k) }
                dups += duplicateKeys(v, path: path + "." + k)
            }
            return dups
        case .array(let xs): return xs.flatMap { duplicateKeys($0, path: path + "[]") }
        default: return []
        }
    }

    @Test func everyJSONReplyHasUniqueKeys() async throws {
        try await withNode { node in
            _ = try await node.goOnline(over: MemoryDatagramNetwork().binder, listen: "127.0.0.1:0", peers: [])
            var executor = Executor(node: node)
            executor.peers = { [PeerInfo(address: "127.0.0.1:1", state: "active", cell: nil)] }
            var renderer = Renderer(mode: .json)
            renderer.styles = await node.packStyles()
            let lines = [
                "help", "help create", "whoami", "locate 40.4433,-79.9436", "create Quad --radius 500 --color red --tags a",
                "create quad", "packs"
            ]
            for line in lines { _ = try await executor.run(try #require(Registry.parse(line))) }
            let styles = await node.packStyles()
            let label = try #require(styles.values.first { $0.label.hasPrefix("Quad·") }?.label)
            let post = try await node.post(pack: label, title: "Free pizza", body: "b", tags: ["food"])
            let comment = try await node.comment(on: post.hex, text: "pizza reply")
            let all =
                lines + [
                    "comment \(post.hex) \"x\"", "up \(post.hex)", "unvote \(comment.hex)", "feed", "feed --tag food --within 900",
                    "show \(post.hex)", "den", "peers", "stats", "search pizza", "inbox", "map", "map --json",
                    "join \(label)", "leave \(label)", "quit"
                ]
            for line in all {
                let reply = try await executor.run(try #require(Registry.parse(line)))
                renderer.styles = await node.packStyles()
                let json = renderer.json(reply)
                #expect(duplicateKeys(json).isEmpty, "\(line): \(duplicateKeys(json))")
                if let stats = reply as? StatsReply { #expect(stats.pairs.filter { $0.0 == "ops.duplicate" }.count == 1) }
            }
            #expect(duplicateKeys(Renderer.error("x")).isEmpty)
            await node.goOffline()
        }
    }
}
