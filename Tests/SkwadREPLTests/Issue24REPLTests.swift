import Foundation
import SkwadTestKit
import Testing
import SkwadCrypto
import SkwadModel
import SkwadReplica
@testable import SkwadNode
@testable import SkwadREPL

/// Issue 24 in the REPL: trust, admin marks, help texts, errors and output on a terminal,
/// Tab completion, peers with a seed that does not answer.
@Suite struct Issue24REPLTests {
    func withNode(_ edit: (inout NodeConfig) -> Void = { _ in }, _ body: (Node, String) async throws -> Void) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-i24-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var config = NodeConfig(dataDir: dir)
        config.powBits = 2
        config.location = try GeoPoint(parsing: "40.4433,-79.9436")
        edit(&config)
        let node = try Node(config: config)
        try await body(node, dir)
        await node.close()
    }

    func repl(_ node: Node, _ mode: Renderer.Mode = .plain) -> REPL {
        REPL(executor: Executor(node: node), reader: LineReader(interactive: false, historyPath: nil), mode: mode)
    }

    func run(_ r: REPL, _ line: String) async -> String { await r.handle(line, nowMs: wallClockMs()).output ?? "" }

    @Test func trustCommandsParse() throws {
        #expect(try Registry.parse("trust ab12") as? TrustCommand == TrustCommand(key: "ab12"))
        #expect(try Registry.parse("untrust ab12") as? UntrustCommand == UntrustCommand(key: "ab12"))
        #expect(try Registry.parse("trusted") as? TrustedCommand == TrustedCommand())
        #expect(throws: CommandError.self) { try Registry.parse("trust") }
    }

    @Test func anAdminTagAndPermanentOnlyForATrustedKey() async throws {
        let admin = SigningKeyPair.generate()
        try await withNode { node, dir in
            let r = repl(node)
            // Anyone may tag a pack `admin`: not shown unless its Alpha is a trusted admin key.
            _ = await run(r, "create Quad --tags admin,food")
            let line = await run(r, "packs")
            #expect(line.contains("[food]") && !line.contains("admin") && line.contains("expires in"), "\(line)")
            #expect(await run(r, "trusted").hasPrefix("no admin keys trusted"))
            let said = await run(r, "trust \(admin.publicKey.hex)")
            #expect(said.hasPrefix("trusted admin key \(admin.publicKey.hex.prefix(16))…") && said.contains(dir + "/config.toml"))
            #expect(await run(r, "trusted").hasPrefix(admin.publicKey.hex))
            let json = await repl(node, .json).handle("trusted", nowMs: 0).output ?? ""
            #expect(json.contains("\"keys\":[\"\(admin.publicKey.hex)\"]"))
            #expect(await run(r, "untrust \(admin.publicKey.hex)").hasPrefix("no longer trusted"))
            #expect(await run(r, "trust nothex").hasPrefix("error: 'nothex' is not an admin key"))
        }
    }

    @Test func helpStatesLimitsInCharactersAndThePackLifetime() async throws {
        try await withNode { node, _ in
            let r = repl(node)
            let post = await run(r, "help post")
            #expect(post.contains("title up to 120 characters, body up to 600"), "\(post)")
            let create = await run(r, "help create")
            #expect(create.contains("24 h, up to 48 h") && create.contains("admin packs are permanent"), "\(create)")
            for line in (post + "\n" + create).split(separator: "\n") { #expect(line.count <= 80) }
            _ = await run(r, "create Quad")
            let long = await run(r, "post Quad \"\(String(repeating: "y", count: 121))\" \"b\"")
            #expect(long.hasPrefix("error: title too long: 121 characters") && long.contains("cut 1 character from it"))
        }
    }

    @Test func errorsAreRedOnATerminalOnly() async throws {
        try await withNode { node, _ in
            #expect(await run(repl(node, .terminal), "frobnicate").hasPrefix("\u{1B}[31merror:\u{1B}[0m unknown command"))
            #expect(await run(repl(node, .plain), "frobnicate").hasPrefix("error: unknown command"))
            #expect(await run(repl(node, .json), "frobnicate").hasPrefix("{\"ok\":false"))
        }
    }

    @Test func emptyFeedHintAndBlocksWithoutTrailingSpace() async throws {
        try await withNode { node, _ in
            let r = repl(node)
            #expect(await run(r, "feed").hasPrefix("no posts: join a pack"))
            _ = await run(r, "create Quad")
            #expect(await run(r, "feed").hasPrefix("no posts yet: post one"))
            let blocks = await run(r, "blocks")
            #expect(blocks == "blocked: none\nmuted: none")
            _ = await run(r, "mute Quad")
            for line in await run(r, "blocks").split(separator: "\n") { #expect(!line.hasSuffix(" "), "'\(line)'") }
        }
    }

    @Test func joiningALockedPackFromOutsideSaysHowFar() async throws {
        try await withNode { node, _ in
            let r = repl(node)
            _ = await run(r, "create Lab --radius 200 --locked")
            _ = await run(r, "leave Lab")
            _ = await run(r, "locate 40.4533,-79.9436")  // about 1.1 km north
            let said = await run(r, "join Lab")
            #expect(said.contains("it is locked to 200 m around its centre and you are 1.1 km away ("), "\(said)")
            #expect(said.contains("outside)"))
        }
    }

    @Test func longLinesWrapAtWordsAndTallRepliesPage() {
        let text = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu"
        let wrapped = TerminalOutput.wrap(text, width: 24)
        for line in wrapped.split(separator: "\n") { #expect(line.count <= 24) }
        #expect(wrapped.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ") == text)
        #expect(!wrapped.split(separator: "\n").contains { $0.hasSuffix(" ") })
        // Colour codes take no columns; a word wider than the screen is cut.
        let red = "\u{1B}[31m" + String(repeating: "x", count: 20) + "\u{1B}[0m"
        #expect(TerminalOutput.wrap(red, width: 20) == red)
        #expect(TerminalOutput.wrap(String(repeating: "y", count: 30), width: 20).split(separator: "\n").count == 2)
        let tall = (1...75).map { "line \($0)" }.joined(separator: "\n")
        let pages = TerminalOutput.pages(tall, rows: 24)
        #expect(pages.count == 4 && pages[0].split(separator: "\n").count == 23 && pages.joined(separator: "\n") == tall)
        #expect(TerminalOutput.pages("short", rows: 24) == ["short"])
    }

    @Test func tabCompletesPacksIdsAndPseudonyms() {
        let words = CompletionWords(packs: ["Quad", "Quarry·3f2a", "3f2a91"], ops: ["f5473a", "f5aa01"], pseudonyms: ["anon·3f2a9c01"])
        #expect(Completion.candidates(before: "", word: "jo", words: words) == ["join"])
        #expect(Completion.candidates(before: "join ", word: "Qu", words: words) == ["Quad", "Quarry·3f2a"])
        #expect(Completion.candidates(before: "feed ", word: "3f", words: words) == ["3f2a91"])
        #expect(Completion.candidates(before: "show ", word: "f5", words: words) == ["f5473a", "f5aa01"])
        #expect(Completion.candidates(before: "block ", word: "an", words: words) == ["anon·3f2a9c01"])
        #expect(Completion.candidates(before: "help ", word: "tru", words: words) == ["trust", "trusted"])
        #expect(Completion.candidates(before: "post Quad ", word: "Q", words: words).isEmpty)
    }

    @Test func completionWordsComeFromTheNode() async throws {
        try await withNode { node, _ in
            let r = repl(node)
            _ = await run(r, "create Quad")
            _ = await run(r, "post Quad \"Hi\" \"there\"")
            let w = await r.completionWords()
            #expect(w.packs.contains("Quad") && w.ops.count == 1 && w.pseudonyms.count == 1)
        }
    }

    @Test func peersSaysTheSeedIsNotAnswering() async throws {
        let memory = MemoryDatagramNetwork()
        // A port nobody listens on: bound and closed again.
        let silent = try memory.bind()
        let seed = silent.localAddress.value
        await silent.close()
        try await withNode { node, _ in
            let r = repl(node)
            #expect(await run(r, "peers").hasPrefix("no peers yet: offline") == false)
            #expect(await run(r, "peers").hasPrefix("offline (--offline): start without it"))
            _ = try await node.goOnline(over: memory.binder, listen: "127.0.0.1:0", peers: [seed])
            #expect(await run(r, "peers").hasPrefix("no peers yet: joining through \(seed)"))
            var said = ""
            // Bounded, with room for a loaded machine: the handshake gives up only after its
            // HELLO retries, each on the node's own timer, which a busy machine delays.
            let deadline = Date().addingTimeInterval(150)
            while Date() < deadline {
                said = await run(r, "peers")
                if said.contains("is not answering") { break }
                try await Task.sleep(nanoseconds: 100_000_000)
            }
            #expect(said.hasPrefix("no peers: seed \(seed) is not answering (1 try so far); trying again in"), "\(said)")
            await node.goOffline()
        }
    }
}
