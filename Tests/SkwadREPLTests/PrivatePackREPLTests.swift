import Foundation
import Testing
import SkwadModel
import SkwadNode
@testable import SkwadREPL

/// The invite-only pack verbs (issue 26): their grammar, and a hostile pack name in what they
/// print, through the REPL on a loopback pair.
@Suite(.serialized) struct PrivatePackREPLTests {
    @Test func theVerbsParse() throws {
        #expect(
            try Registry.parse("create Flat --private --radius 300 --tags home") as? CreatePrivateCommand
                == CreatePrivateCommand(name: "Flat", radius: 300, tags: ["home"], color: ""))
        #expect(
            try Registry.parse("create Flat --radius 300") as? CreateCommand
                == CreateCommand(name: "Flat", radius: 300, locked: false, tags: [], color: ""))
        #expect(throws: CommandError.self) { try Registry.parse("create Flat --private --locked --radius 300") }
        let code = JoinCode(pack: OpID.of(body: [1]), epoch: 0, key: [UInt8](repeating: 2, count: 32), address: "127.0.0.1:9").encoded()
        #expect(try Registry.parse("join \(code)") as? JoinCommand == JoinCommand(pack: code))
        #expect(try Registry.parse("join Quad") as? JoinCommand == JoinCommand(pack: "Quad"))
        // Anything written like a join code is one: a malformed one is refused at once, in one
        // line, never looked up as a pack name.
        for bad in ["skw-garbage", "SKW-1", "skw-" + String(code.dropFirst(4).dropLast(3)) + "zzz"] {
            do {
                _ = try Registry.parse("join \(bad)")
                Issue.record("'\(bad)' parsed")
            } catch {
                #expect("\(error)".contains("join code") && !"\(error)".contains("\n"), "\(error)")
            }
        }
        // The contact code's verb; of an invite-only pack, it prints the join code (InviteCommand.run).
        #expect(try Registry.parse("invite Flat") as? InviteCommand == InviteCommand(qr: false, pack: "Flat"))
        #expect(
            try Registry.parse("remove Flat anon·3f2a9c01") as? RemoveCommand == RemoveCommand(pack: "Flat", author: "anon·3f2a9c01"))
        #expect(throws: CommandError.self) { try Registry.parse("remove Flat") }
        #expect(Registry.helpNames.contains("invite") && Registry.helpNames.contains("remove"))
    }

    @Test func aJoinedPacksHostileNameIsPrintedSafely() async throws {
        let net = try await NodePair("private")
        let hostile = "Fl\u{1B}]0;owned\u{07}at\u{202E}"
        _ = try await net.a.createPack(name: hostile, radiusMeters: NodePair.radius, locked: false, tags: [], color: "", inviteOnly: true)
        let ra = REPL(executor: Executor(node: net.a), reader: LineReader(interactive: false, historyPath: nil), mode: .plain)
        let rb = REPL(executor: Executor(node: net.b), reader: LineReader(interactive: false, historyPath: nil), mode: .plain)
        let id = try #require(await net.a.packs().first?.pack.id)
        let invite = await ra.handle("invite \(id.hex)", nowMs: wallClockMs()).output ?? ""
        let code = try #require(invite.split(whereSeparator: \.isWhitespace).first { $0.hasPrefix("skw-") }.map(String.init))
        let joined = await rb.handle("join \(code)", nowMs: wallClockMs()).output ?? ""
        #expect(joined.contains("joined invite-only pack"))
        for out in [invite, joined] {
            for bad in ["\u{1B}", "\u{07}", "\u{202E}"] { #expect(!out.contains(bad), "\(out.debugDescription)") }
        }
        await net.shutdown()
    }
    /// A join code (about 125 characters) or a contact code is never broken by the terminal's
    /// wrapping: on its own line when it does not fit after the words before it.
    @Test func codesAreNeverBrokenWhenRepliesAreWrapped() throws {
        let key = [UInt8](repeating: 2, count: 32)
        let code = JoinCode(pack: OpID.of(body: [1]), epoch: 3, key: key, genesisKey: key, address: "127.0.0.1:9").encoded()
        #expect(code.count > 100)
        for text in [
            "join code for Flat 4B (whoever has it can read the pack; give it privately):\n  \(code)",
            "a friend types: connect \(code) and then waits for the link to come up, which takes a moment"
        ] {
            for width in [40, 80, 100] {
                let lines = TerminalOutput.wrap(text, width: width).split(separator: "\n")
                #expect(lines.contains { $0.trimmingCharacters(in: .whitespaces) == code }, "\(lines)")
                for line in lines where !line.contains(code) { #expect(TerminalOutput.columns(line) <= width, "\(line)") }
            }
        }
        // Words around a code still wrap as before.
        #expect(TerminalOutput.wrap("short words only here and there", width: 20).split(separator: "\n").count == 2)
    }
    /// A member's post written offline is held, and the REPL says so; once back online and
    /// key-synced it is sent, and the Alpha reads it.
    @Test func aPostWrittenBeforeAKeySyncSaysItIsHeld() async throws {
        let net = try await NodePair("held")
        let p = try await net.a.createPack(
            name: "Flat", radiusMeters: NodePair.radius, locked: false, tags: [], color: "", inviteOnly: true)
        _ = try await net.b.joinInvite(try await net.a.invite(p.id.hex))
        await net.b.goOffline()
        let rb = NodePair.repl(net.b)
        let out = await NodePair.run(rb, "post Flat \"back at six\" \"\"")
        #expect(out.hasPrefix("posted ") && out.contains("held until this node has synced the pack's key"), "\(out)")
        #expect(await net.b.heldCount == 1)
        _ = try await net.b.goOnline(over: net.memory.binder, listen: "127.0.0.1:0", peers: [try #require(await net.a.listenAddress)])
        #expect(try await net.eventually { try await net.a.feed(pack: "Flat", sort: .new, limit: 10).map(\.title) == ["back at six"] })
        #expect(await net.b.heldCount == 0)
        await net.shutdown()
    }
}
