import Foundation
import Testing
import SkwadModel
import SkwadNode
@testable import SkwadREPL

/// Issue 11, part A: the moderation verbs parse, and say what is wrong in one line.
@Suite struct ModerationCommandTests {
    func error(_ line: String) -> String {
        do { _ = try Command.parse(line); return "" } catch { return "\(error)" }
    }

    @Test func everyModerationVerbParses() throws {
        #expect(try Command.parse("hide ab12") == .moderation(.hide(target: "ab12", reason: "")))
        #expect(try Command.parse(#"hide ab12 "off topic""#) == .moderation(.hide(target: "ab12", reason: "off topic")))
        #expect(try Command.parse("unhide ab12") == .moderation(.unhide(target: "ab12", reason: "")))
        #expect(try Command.parse("log Quad") == .moderation(.log(pack: "Quad")))
        #expect(try Command.parse(#"report ab12 "spam""#) == .moderation(.report(target: "ab12", reason: "spam")))
        #expect(try Command.parse("reports") == .moderation(.reports(pack: nil)))
        #expect(try Command.parse("reports Quad") == .moderation(.reports(pack: "Quad")))
        #expect(try Command.parse("dismiss cd34") == .moderation(.dismiss("cd34")))
        #expect(try Command.parse("block anon·3f2a9c01") == .moderation(.block("anon·3f2a9c01")))
        #expect(try Command.parse("unblock 3f2a9c01") == .moderation(.unblock("3f2a9c01")))
        #expect(try Command.parse("mute Quad") == .moderation(.mute("Quad")))
        #expect(try Command.parse("unmute Quad") == .moderation(.unmute("Quad")))
        #expect(try Command.parse("blocks") == .moderation(.blocks))
        #expect(try Command.parse("ban Quad anon·3f2a9c01") == .moderation(.ban(pack: "Quad", author: "anon·3f2a9c01", reason: "")))
        #expect(
            try Command.parse(#"ban Quad 3f2a9c01 "report abuse""#)
                == .moderation(.ban(pack: "Quad", author: "3f2a9c01", reason: "report abuse")))
        #expect(try Command.parse("unban Quad 3f2a9c01") == .moderation(.unban(pack: "Quad", author: "3f2a9c01", reason: "")))
    }

    /// `ban PACK AUTHOR`: Tab offers packs for the first argument and pseudonyms for the second.
    @Test func banCompletesAPackThenAPseudonym() {
        let words = CompletionWords(packs: ["Quad"], ops: ["ab12cd"], pseudonyms: ["anon·3f2a9c01"])
        #expect(Completion.candidates(before: "ban ", word: "Q", words: words) == ["Quad"])
        #expect(Completion.candidates(before: "ban Quad ", word: "anon", words: words) == ["anon·3f2a9c01"])
        #expect(Completion.candidates(before: "unban Quad ", word: "", words: words) == ["anon·3f2a9c01"])
        #expect(Completion.candidates(before: "", word: "unba", words: words) == ["unban"])
    }

    @Test func editIsOneVerbForPacksAndPosts() throws {
        #expect(try Command.parse(#"edit ab12 "new text""#) == .moderation(.edit(ref: "ab12", EditRequest(text: "new text"))))
        #expect(
            try Command.parse(#"edit ab12 --title "T" --body "B""#) == .moderation(.edit(ref: "ab12", EditRequest(title: "T", body: "B"))))
        #expect(
            try Command.parse("edit Quad --name Quad2 --color red --tags a,b")
                == .moderation(.edit(ref: "Quad", EditRequest(name: "Quad2", color: "red", tags: ["a", "b"]))))
        // --tags "" clears the tags (present but empty), unlike no --tags at all.
        #expect(try Command.parse(#"edit Quad --tags """#) == .moderation(.edit(ref: "Quad", EditRequest(tags: []))))
    }

    @Test func mistakesGetOneLineReasons() {
        #expect(error("hide").hasPrefix("missing ID; usage: hide ID [REASON]"))
        #expect(error("report ab12").hasPrefix("missing \"REASON\"; usage: report ID"))
        #expect(error("edit").hasPrefix("missing ID or PACK"))
        #expect(error("edit Quad --name").hasPrefix("--name needs a value"))
        #expect(error("edit Quad --bogus x").hasPrefix("unknown option --bogus"))
        #expect(error("block a b").hasPrefix("unexpected 'b'"))
        #expect(error("ban Quad").hasPrefix("missing AUTHOR; usage: ban PACK AUTHOR"))
        #expect(error("blokc x") == "unknown command 'blokc' (did you mean 'block'?); type help")
    }

    @Test func helpListsTheNewVerbs() throws {
        let h = try Executor.help(nil)
        let verbs = Set(
            h.split(separator: "\n").compactMap {
                $0.hasPrefix("  ") && !$0.hasPrefix("   ") ? $0.split(separator: " ").first.map(String.init) : nil
            })
        for verb in [
            "hide", "unhide", "edit", "log", "report", "reports", "dismiss", "block", "unblock", "mute", "unmute", "blocks", "ban", "unban"
        ] {
            #expect(verbs.contains(verb), "help lacks \(verb)")
        }
        #expect(try Executor.help("edit").contains("edit ID"))
        #expect(try Executor.help("report").contains("moderators"))
    }
}
