import Foundation
import Testing
import SkwadModel
import SkwadNode
@testable import SkwadREPL

@Suite struct CommandParseTests {
    @Test func everyCommandParses() throws {
        #expect(try Registry.parse("") == nil)
        #expect(try Registry.parse("help post") as? HelpCommand == HelpCommand(topic: "post"))
        #expect(
            try Registry.parse("create Quad --radius 800 --locked --tags a,b --color green") as? CreateCommand
                == CreateCommand(name: "Quad", radius: 800, locked: true, tags: ["a", "b"], color: "green"))
        #expect(try Registry.parse("packs --sort popular --tag food") as? PacksCommand == PacksCommand(sort: .popular, tag: "food"))
        #expect(
            try Registry.parse(#"post Quad "T" "B" --tags x"#) as? PostCommand
                == PostCommand(pack: "Quad", title: "T", body: "B", tags: ["x"]))
        #expect(try Registry.parse(#"comment ab12 "nice""#) as? CommentCommand == CommentCommand(target: "ab12", text: "nice"))
        #expect(try Registry.parse("up ab") as? UpCommand == UpCommand(target: "ab"))
        #expect(try Registry.parse("down ab") as? DownCommand == DownCommand(target: "ab"))
        #expect(try Registry.parse("unvote ab") as? UnvoteCommand == UnvoteCommand(target: "ab"))
        #expect(try Registry.parse("feed Quad --sort top --limit 5") as? FeedCommand == FeedCommand(sort: .top, limit: 5, pack: "Quad"))
        #expect(try Registry.parse("feed") as? FeedCommand == FeedCommand(sort: .new, limit: 20, pack: nil))
        #expect(try (Registry.parse("locate 40.5,-79.9") as? LocateCommand)?.point() == GeoPoint(lat: 40.5, lon: -79.9))
        #expect(try Registry.parse("QUIT") as? QuitCommand == QuitCommand())
        #expect(try Registry.parse("invite") as? InviteCommand == InviteCommand(qr: false, pack: nil))
        #expect(try Registry.parse("invite Quad --qr") as? InviteCommand == InviteCommand(qr: true, pack: "Quad"))
        #expect(try Registry.parse("connect skn-abcde") as? ConnectCommand == ConnectCommand(code: "skn-abcde"))
        #expect(error("connect").contains("missing CODE; usage: connect CODE"))
        #expect(error("invite a b").contains("unexpected 'b'"))
    }

    func error(_ line: String) -> String {
        do { _ = try Registry.parse(line); return "" } catch { return "\(error)" }
    }

    /// The hint measures only names within 2 characters of the verb's length; that gives the
    /// answer of measuring every name (the first nearest, if at most 2 edits away).
    @Test func nearestCommandMatchesMeasuringEveryName() {
        func everyName(_ verb: String) -> String? {
            guard verb.count <= 32 else { return nil }
            let guess = Registry.helpNames.map { ($0, editDistance($0, verb)) }.min { $0.1 < $1.1 }
            return guess.flatMap { $0.1 <= 2 ? $0.0 : nil }
        }
        let verbs = [
            "psot", "blokc", "pst", "poster", "feeds", "x", "", "he", "hlep", "joinn", "lev", "searc", "unblokc",
            "reprots", "zzzzzz", "é", "mapp", "qq", String(repeating: "a", count: 33), "whoamii", "locat", "dne"
        ]
        for verb in verbs + Registry.helpNames { #expect(nearestCommand(to: verb) == everyName(verb), "\(verb)") }
        #expect(nearestCommand(to: "psot") == "post" && nearestCommand(to: "zzzzzz") == nil)
    }

    @Test func typosGetOneLineReasons() {
        #expect(error("psot x") == "unknown command 'psot' (did you mean 'post'?); type help")
        #expect(error("post Quad \"only title\"").hasPrefix("missing \"BODY\"; usage: post PACK"))
        #expect(error("post Quad free pizza now").hasPrefix("unexpected 'now'"))
        #expect(error("feed --sort sideways").contains("--sort must be one of new|top"))
        #expect(error("feed --limit lots").contains("--limit expects a whole number"))
        #expect(error("feed --limit 0").contains("--limit must be 1...1000"))
        #expect(error("create X --radius").contains("--radius needs a value"))
        #expect(error("packs --colour red").hasPrefix("unknown option --colour"))
        #expect(error("locate north").contains("expected LAT,LON"))
        for e in ["psot x", "feed --sort sideways", "locate 99,0"] { #expect(!error(e).contains("\n") && !error(e).isEmpty) }
    }

    @Test func helpCoversEveryCommand() throws {
        let all = try Executor.help(nil)
        for h in Registry.helped { #expect(all.contains("  \(h.verbs[0]) ")) }  // the overview names them; help CMD gives the usage
        for h in Registry.helped { #expect(try Executor.help(h.verbs[0]).hasPrefix((h.usage ?? "-").prefix(60))) }
        #expect(throws: CommandError.self) { try Executor.help("nope") }
    }
}

/// The edit distance of two strings in Characters, measured in full: the reference
/// `nearestCommand` must agree with.
private func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    var row = Array(0...b.count)
    for i in 1...max(1, a.count) where !a.isEmpty {
        var prev = row[0]; row[0] = i
        for j in 1...max(1, b.count) where !b.isEmpty {
            let cur = row[j]
            row[j] = min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] == b[j - 1] ? 0 : 1))
            prev = cur
        }
    }
    return row[b.count]
}
