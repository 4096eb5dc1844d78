import Foundation
import Testing
import SkwadModel
import SkwadNode
@testable import SkwadREPL

/// Issue 11, part A: the moderation verbs parse, and say what is wrong in one line.
@Suite struct ModerationCommandTests {
    func error(_ line: String) -> String {
        do { _ = try Registry.parse(line); return "" } catch { return "\(error)" }
    }

    @Test func everyModerationVerbParses() throws {
        #expect(try Registry.parse("hide ab12") as? HideCommand == HideCommand(target: "ab12", reason: ""))
        #expect(try Registry.parse(#"hide ab12 "off topic""#) as? HideCommand == HideCommand(target: "ab12", reason: "off topic"))
        #expect(try Registry.parse("unhide ab12") as? UnhideCommand == UnhideCommand(target: "ab12", reason: ""))
        #expect(try Registry.parse("log Quad") as? LogCommand == LogCommand(pack: "Quad"))
        #expect(try Registry.parse(#"report ab12 "spam""#) as? ReportCommand == ReportCommand(target: "ab12", reason: "spam"))
        #expect(try Registry.parse("reports") as? ReportsCommand == ReportsCommand(pack: nil))
        #expect(try Registry.parse("reports Quad") as? ReportsCommand == ReportsCommand(pack: "Quad"))
        #expect(try Registry.parse("dismiss cd34") as? DismissCommand == DismissCommand(report: "cd34"))
        #expect(try Registry.parse("block anon·3f2a9c01") as? BlockCommand == BlockCommand(author: "anon·3f2a9c01"))
        #expect(try Registry.parse("unblock 3f2a9c01") as? UnblockCommand == UnblockCommand(author: "3f2a9c01"))
        #expect(try Registry.parse("mute Quad") as? MuteCommand == MuteCommand(pack: "Quad"))
        #expect(try Registry.parse("unmute Quad") as? UnmuteCommand == UnmuteCommand(pack: "Quad"))
        #expect(try Registry.parse("blocks") as? BlocksCommand == BlocksCommand())
        #expect(
            try Registry.parse("ban Quad anon·3f2a9c01") as? BanCommand == BanCommand(pack: "Quad", author: "anon·3f2a9c01", reason: ""))
        #expect(
            try Registry.parse(#"ban Quad 3f2a9c01 "report abuse""#) as? BanCommand
                == BanCommand(pack: "Quad", author: "3f2a9c01", reason: "report abuse"))
        #expect(try Registry.parse("unban Quad 3f2a9c01") as? UnbanCommand == UnbanCommand(pack: "Quad", author: "3f2a9c01", reason: ""))
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
        func edit(_ line: String) throws -> (ref: String, change: EditRequest)? {
            (try Registry.parse(line) as? EditCommand).map { ($0.ref, $0.change) }
        }
        #expect(try edit(#"edit ab12 "new text""#)! == ("ab12", EditRequest(text: "new text")))
        #expect(try edit(#"edit ab12 --title "T" --body "B""#)! == ("ab12", EditRequest(title: "T", body: "B")))
        #expect(
            try edit("edit Quad --name Quad2 --color red --tags a,b")! == (
                "Quad", EditRequest(name: "Quad2", color: "red", tags: ["a", "b"])
            ))
        // --tags "" clears the tags (present but empty), unlike no --tags at all.
        #expect(try edit(#"edit Quad --tags """#)! == ("Quad", EditRequest(tags: [])))
        #expect(try edit("edit Quad --name Q")!.change.tags == nil)
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
