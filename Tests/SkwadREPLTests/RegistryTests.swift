import Foundation
import Testing
import SkwadModel
import SkwadNode
@testable import SkwadREPL

/// The command registry (issue 48): one list, and every verb callable by its name with a JSON
/// object of arguments, giving what the typed line gives.
@Suite struct RegistryTests {
    @Test func namesAndVerbsAreListedOnce() {
        let names = Registry.all.map { $0.spec.name }
        #expect(Set(names).count == names.count)
        // Each typed word has one plain form (the others are picked by a flag or a first word).
        let plain = Registry.all.map { $0.spec }.filter { $0.selector == nil }.flatMap(\.verbs)
        #expect(Set(plain).count == plain.count, "\(plain)")
        for spec in Registry.all.map({ $0.spec }) {
            let keys = spec.params.map(\.key)
            #expect(Set(keys).count == keys.count, "\(spec.name): \(keys)")
        }
        #expect(
            Registry.helpNames.first == "help" && Registry.helpNames.last == "quit" && Registry.helpNames.count == Registry.helped.count)
    }

    @Test func aJSONObjectOfArgumentsIsTheTypedLine() throws {
        let cases: [(line: String, name: String, json: String)] = [
            (
                #"post Quad "Free pizza" "Gates 4th" --tags food,late --here"#, "post",
                #"{"pack":"Quad","title":"Free pizza","body":"Gates 4th","tags":["food","late"],"here":true}"#
            ),
            ("feed Quad --sort TOP --limit 5", "feed", #"{"pack":"Quad","sort":"Top","limit":5}"#),
            ("feed --following --limit 7", "feed-following", #"{"limit":7}"#),
            ("create Flat --private --radius 300", "create-private", #"{"name":"Flat","radius":300}"#),
            (#"place add "1 Elm" --rent 700-900 --baths 1.5"#, "place-add", #"{"address":"1 Elm","rent":"700-900","baths":1.5}"#),
            ("search free pizza --limit 3", "search", #"{"text":"free pizza","limit":3}"#),
            ("compare a b c", "compare", #"{"places":["a","b","c"]}"#),
            ("verify anon·3f2a --confirm", "verify", #"{"author":"anon·3f2a","confirm":true}"#),
            ("edit Quad --tags a,b", "edit", #"{"ref":"Quad","tags":["a","b"]}"#),
            ("locate 40.4433,-79.9436", "locate", #"{"at":"40.4433,-79.9436"}"#),
            ("whoami", "whoami", "{}")
        ]
        for c in cases {
            let typed = try #require(try Registry.parse(c.line))
            let named = try Registry.command(named: c.name, json: Data(c.json.utf8))
            #expect(type(of: typed) == type(of: named) && "\(typed)" == "\(named)", "\(c.line): \(typed) vs \(named)")
        }
    }

    @Test func aJSONObjectIsCheckedAsALineIs() {
        func error(_ name: String, _ json: String) -> String {
            do { _ = try Registry.command(named: name, json: Data(json.utf8)); return "" } catch { return "\(error)" }
        }
        #expect(error("feed", #"{"limit":0}"#) == "--limit must be 1...1000")
        #expect(error("feed", #"{"sort":"sideways"}"#).hasPrefix("--sort must be one of new|top"))
        #expect(error("packs", #"{"colour":"red"}"#).hasPrefix("packs takes no argument 'colour'"))
        #expect(error("post", #"{"pack":"Quad","title":"T"}"#) == "post: missing argument 'body'")
        #expect(error("post", #"{"pack":"Quad","title":"T","body":"B","here":"yes"}"#) == "post: argument 'here' must be true or false")
        #expect(error("post", #"{"pack":"Quad","title":"T","body":"B","here":true,"named":true}"#).hasPrefix("--named and --here"))
        #expect(error("locate", #"{"at":"north"}"#).contains("expected LAT,LON"))
        #expect(error("nope", "{}") == "no command 'nope'")
        #expect(error("feed", "[1]").hasPrefix("the arguments of feed must be a JSON object"))
    }

    /// Run against a node, a verb called by name with JSON arguments replies as its typed line.
    @Test func aNamedCallRepliesAsTheTypedLine() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-registry-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var config = NodeConfig(dataDir: dir)
        config.powBits = 2
        let node = try Node(config: config)
        let executor = Executor(node: node)
        _ = try await executor.run(try #require(try Registry.parse("locate 40.4433,-79.9436")))
        let pack = try await node.createPack(name: "Quad", radiusMeters: 800, locked: false, tags: ["campus"], color: "green")
        let post = try await node.post(pack: "Quad", title: "Free pizza", body: "Gates 4th floor", tags: ["food"])
        _ = try await node.comment(on: post.hex, text: "still there?")
        var renderer = Renderer(mode: .json)
        renderer.styles = await node.packStyles()
        let cases: [(line: String, name: String, json: String)] = [
            ("feed Quad --sort top", "feed", #"{"pack":"Quad","sort":"top"}"#),
            ("packs --sort distance --tag campus", "packs", #"{"sort":"distance","tag":"campus"}"#),
            ("show \(post.hex)", "show", #"{"post":"\#(post.hex)"}"#),
            ("search pizza --pack Quad", "search", #"{"text":"pizza","pack":"Quad"}"#),
            ("join \(pack.id.hex)", "join", #"{"pack":"\#(pack.id.hex)"}"#),
            ("locate 40.4433,-79.9436", "locate", #"{"at":"40.4433,-79.9436"}"#),
            ("help post", "help", #"{"topic":"post"}"#)
        ]
        for c in cases {
            let typed = renderer.json(try await executor.run(try #require(try Registry.parse(c.line)))).render()
            let named = renderer.json(try await executor.run(try Registry.command(named: c.name, json: Data(c.json.utf8)))).render()
            #expect(typed == named, "\(c.line)")
            #expect(typed.hasPrefix(#"{"ok":true,"#) && typed.count > 20, "\(typed)")
        }
        await node.close()
    }
}
