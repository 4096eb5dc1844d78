import Foundation
import Testing
import SkwadModel
import SkwadNode
@testable import SkwadREPL

/// Issue 26 in the REPL: the grammar of dm, chat and verify, and what they print of network
/// text (a message with escapes, bidi overrides and a fake line) made safe in every mode,
/// in replies and in the live line.
@Suite(.serialized) struct ConversationREPLTests {
    static let hostile = "hi\u{1B}]0;owned\u{07}\u{202E}\nfake line"

    @Test func grammar() throws {
        #expect(
            try Registry.parse(#"dm anon·3f2a9c01 "hello there""#) as? DMCommand == DMCommand(to: "anon·3f2a9c01", text: "hello there"))
        #expect(try Registry.parse(#"msg ab12 "x""#) as? DMCommand == DMCommand(to: "ab12", text: "x"))
        #expect(try Registry.parse("chat") as? ChatCommand == ChatCommand(with: nil))
        #expect(try Registry.parse("chat ab12") as? ChatCommand == ChatCommand(with: "ab12"))
        #expect(try Registry.parse("verify anon·3f2a --confirm") as? VerifyCommand == VerifyCommand(author: "anon·3f2a", confirm: true))
        #expect(try Registry.parse("verify anon·3f2a --undo") as? VerifyCommand == VerifyCommand(author: "anon·3f2a", undo: true))
        #expect(try Registry.parse("verify anon·3f2a") as? VerifyCommand == VerifyCommand(author: "anon·3f2a", confirm: false, undo: false))
        #expect(try Registry.parse("follow anon·3f2a") as? FollowCommand == FollowCommand(author: "anon·3f2a"))
        #expect(try Registry.parse("unfollow ab12") as? UnfollowCommand == UnfollowCommand(author: "ab12"))
        #expect(try Registry.parse("following") as? FollowingCommand == FollowingCommand())
        #expect(try Registry.parse("feed --following --limit 5") as? FeedFollowingCommand == FeedFollowingCommand(limit: 5))
        #expect(try Registry.parse("feed --following") as? FeedFollowingCommand == FeedFollowingCommand(limit: 20))
        #expect(throws: CommandError.self) { try Registry.parse("feed --following Quad") }
        #expect(throws: CommandError.self) { try Registry.parse("dm anon·3f2a") }
        #expect(throws: CommandError.self) { try Registry.parse("verify x --confirm --undo") }
        #expect(throws: CommandError.self) { try Registry.parse("chat a b") }
    }

    @Test(arguments: [Renderer.Mode.plain, .terminal, .json])
    func messagesAreRenderedSafely(mode: Renderer.Mode) async throws {
        let net = try await NodePair("dmrender")
        let (a, b) = (net.a, net.b)
        let events = EventBox()
        await a.setEventSink { events.append($0) }
        #expect(try await net.packOnBoth("Quad"))
        let post = try await a.post(pack: "Quad", title: "ask me", body: "", tags: [])
        #expect(await net.eventually { (try? await b.show(post.hex)) != nil })
        _ = try await b.dm(to: post.short(8), text: Self.hostile)
        #expect(await net.eventually { events.all.contains { if case .conversation(.message) = $0 { true } else { false } } })
        let replA = NodePair.repl(a, mode: mode)
        func run(_ line: String) async -> String { await replA.handle(line, nowMs: wallClockMs()).output ?? "" }
        let list = await run("chat")
        let msg = try #require(events.all.compactMap { if case .conversation(.message(let e, _, _)) = $0 { e } else { nil } }.first)
        let thread = await run("chat \(msg.id.short(8))")
        let verify = await run("verify \(msg.peer.hex)")
        let live =
            REPL.eventLine(
                events.all.first { if case .conversation = $0 { true } else { false } }!, mode: mode, verbose: false,
                styles: [:], nowMs: wallClockMs()) ?? ""
        for out in [list, thread, live] {
            let stripped = out.replacingOccurrences(of: #"\u{1B}\[[0-9;]*m"#, with: "", options: .regularExpression)
            for bad in ["\u{1B}]", "\u{07}", "\u{202E}", "\nfake line"] {
                #expect(!stripped.contains(bad), "\(out.debugDescription)")
            }
        }
        if mode == .json {
            #expect(list.hasPrefix(#"{"ok":true,"conversations":[{"peer":"anon·"#))
            #expect(thread.contains(#""messages":[{"id":""#) && live.hasPrefix(#"{"event":"dm""#))
            #expect(verify.contains(#""safetyNumber":""#))
        } else {
            #expect(list.contains("in Quad") && list.contains("1 message"))
            #expect(thread.hasPrefix("conversation with anon·") && live.hasPrefix("* message from anon·"))
            #expect(verify.contains("safety number of you"))
        }
        await net.shutdown()
    }
}

final class EventBox: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [NodeEvent] = []
    func append(_ e: NodeEvent) { lock.withLock { items.append(e) } }
    var all: [NodeEvent] { lock.withLock { items } }
}
