import Foundation
import Testing

/// The page in a real headless Chromium (Debian `chromium`; scripts/setup.sh installs it as
/// root): the page loads with the token from the URL's `#`, calls the API and shows the feed,
/// a hostile title as text. Without the browser the test fails with one line saying so. One
/// browser at a time: CI runs every suite at once on 2 cores.
@Suite(.serialized) struct BrowserTests {
    static let chromium = "/usr/bin/chromium"

    /// Runs Chromium on `url` and returns the DOM after its scripts ran (at most `seconds`).
    static func dumpDOM(_ url: String, wait: [String] = ["--virtual-time-budget=5000"], seconds: Double = 90) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-chromium-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { Chromium.removeProfile(dir) }
        let out = dir + "/dom.html"
        FileManager.default.createFile(atPath: out, contents: nil)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: chromium)
        p.arguments =
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=\(dir)/profile",
                "--window-size=375,812"
            ] + wait + ["--dump-dom", url]
        p.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
        p.standardError = FileHandle.nullDevice
        try p.run()
        let deadline = Date().addingTimeInterval(seconds)
        while p.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if p.isRunning {
            p.terminate()
            p.waitUntilExit()
            throw RawError("chromium did not finish within \(Int(seconds)) s")
        }
        return try String(contentsOfFile: out, encoding: .utf8)
    }

    @Test func theFeedShowsAHostileTitleAsText() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.chromium) else {
            print("BrowserTests: \(Self.chromium) is not installed (scripts/setup.sh installs chromium as root); the page was not run")
            Issue.record("chromium is not installed: the page was not run in a browser")
            return
        }
        let n = try await WebNodes("browser")
        do {
            let c = n.client
            #expect(try await c.post("create", #"{"name":"browserpack","radius":500}"#).status == 200)
            let posted = try await c.post(
                "post", #"{"pack":"browserpack","title":"<img src=x onerror=alert(1)>","body":"<b>not bold</b>"}"#)
            let id = try #require(posted.json?["id"] as? String)
            let url = n.server.url
            let dom = try await withCheckedThrowingContinuation { cont in
                Thread.detachNewThread { cont.resume(with: Result { try Self.dumpDOM(url) }) }
            }
            // The post is in the feed the script built, its title and body as text.
            #expect(dom.contains("data-id=\"\(id)\""), "the feed was not shown: \(dom.prefix(400))")
            #expect(dom.contains("&lt;img src=x onerror=alert(1)&gt;"))
            #expect(dom.contains("&lt;b&gt;not bold&lt;/b&gt;"))
            #expect(!dom.contains("<img src=\"x\"") && !dom.contains("<b>not bold</b>"))
            // No error was shown (the token from the URL was accepted).
            #expect(dom.contains("<p id=\"error\" role=\"alert\" hidden=\"\">"))
        } catch {
            await n.shutdown()
            throw error
        }
        await n.shutdown()
    }

    /// A post made on node B while A's page is open is put in A's feed by the WebSocket event,
    /// with no reload: Chromium keeps the page open and is asked over its DevTools protocol.
    @Test func aPostFromAnotherNodeAppearsWithoutAReload() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.chromium) else {
            print("BrowserTests: \(Self.chromium) is not installed (scripts/setup.sh installs chromium as root); the page was not run")
            Issue.record("chromium is not installed: the page was not run in a browser")
            return
        }
        let n = try await WebNodes("browserlive", second: true)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-chromium-\(UUID().uuidString)").path
        let p = Process()
        do {
            let b = try #require(n.b)
            _ = try await b.createPack(name: "liveroom", radiusMeters: WebNodes.radius, locked: false, tags: [], color: "")
            #expect(await n.eventually { await n.a.packs().contains { $0.pack.name == "liveroom" } })
            #expect(try await n.client.post("join", #"{"pack":"liveroom"}"#).status == 200)
            p.executableURL = URL(fileURLWithPath: Self.chromium)
            p.arguments = [
                "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=\(dir)",
                "--remote-debugging-port=0", "--window-size=375,812", n.server.url
            ]
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            // Chromium writes the DevTools port it bound into the profile directory.
            var devPort: Int?
            _ = await n.eventually(seconds: 60) {
                devPort = (try? String(contentsOfFile: dir + "/DevToolsActivePort", encoding: .utf8))?
                    .split(separator: "\n").first.flatMap { Int($0) }
                return devPort != nil
            }
            let devtools = RawClient(port: try #require(devPort, "chromium gave no DevTools port"), token: "")
            let list = try await devtools.request("GET", "/json/list")
            let pages = try #require(try JSONSerialization.jsonObject(with: list.body) as? [[String: Any]])
            let target = try #require(pages.first { $0["type"] as? String == "page" }?["webSocketDebuggerUrl"] as? String)
            let path = String(target.drop { $0 != "/" }.dropFirst(2).drop { $0 != "/" })
            let (socket, upgraded) = try await devtools.webSocket(path, headers: [])
            let page = try #require(socket, "DevTools refused the socket: \(upgraded.status)")
            var calls = 0
            /// Evaluates `js` in the page and returns its string value.
            func evaluate(_ js: String) async -> String? {
                calls += 1
                let call: [String: Any] = ["id": calls, "method": "Runtime.evaluate", "params": ["expression": js, "returnByValue": true]]
                await page.writeText(String(decoding: try! JSONSerialization.data(withJSONObject: call), as: UTF8.self))
                let deadline = Date().addingTimeInterval(30)
                while Date() < deadline, let frame = await page.readFrame(seconds: deadline.timeIntervalSinceNow) {
                    guard let reply = try? JSONSerialization.jsonObject(with: Data(frame.payload)) as? [String: Any],
                        reply["id"] as? Int == calls
                    else { continue }
                    return ((reply["result"] as? [String: Any])?["result"] as? [String: Any])?["value"] as? String
                }
                return nil
            }
            // The page is live and its first feed is in (the "No posts yet." line).
            #expect(
                await n.eventually(seconds: 60) {
                    await evaluate("document.getElementById('live').textContent + '|' + document.getElementById('feed-list').textContent")
                        == "live|No posts yet."
                })
            let title = "live from B <i>"
            let id = try await b.post(pack: "liveroom", title: title, body: "no reload", tags: [])
            let js =
                "(function(){const li=document.querySelector('#feed-list li.new[data-id=\"\(id.hex)\"]');"
                + "return li ? li.querySelector('.title').textContent : '';})()"
            var shown = ""
            _ = await n.eventually(seconds: 60) {
                shown = await evaluate(js) ?? ""
                return !shown.isEmpty
            }
            #expect(shown == title, "B's post was not inserted live on A's page")
        } catch {
            Issue.record(error)
        }
        if p.isRunning {
            p.terminate()
            p.waitUntilExit()
        }
        Chromium.removeProfile(dir)
        await n.shutdown()
    }
}
