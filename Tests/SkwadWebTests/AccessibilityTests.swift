import Foundation
import SkwadTestKit
import Testing

/// axe-core in the browser on every screen, at phone and laptop width: no serious or critical
/// violation (and the Den, shown here only, lists the post, the place and the review made).
/// axe-core comes from PyPI (the npm registry is not reachable from the project's machines):
/// the wheel of `axe-playwright-python` 0.1.8 ships `axe.min.js` (axe 4.12.1), downloaded at
/// test time into a temporary directory; `SKWAD_AXE_JS=PATH` names a copy instead.
extension BrowserTests {
    /// axe-core's script, or a one-line reason it could not be had.
    static func axeScript() -> Result<String, RawError> {
        if let path = ProcessInfo.processInfo.environment["SKWAD_AXE_JS"] {
            guard let s = try? String(contentsOfFile: path, encoding: .utf8) else { return .failure(RawError("cannot read \(path)")) }
            return .success(s)
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-axe-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        func python(_ args: [String]) -> Bool {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            p.arguments = ["python3"] + args
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            guard (try? p.run()) != nil else { return false }
            let deadline = Date().addingTimeInterval(120)
            while p.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
            if p.isRunning {
                p.terminate()
                p.waitUntilExit()
                return false
            }
            return p.terminationStatus == 0
        }
        guard python(["-m", "pip", "download", "--no-deps", "-q", "axe-playwright-python==0.1.8", "-d", dir]),
            let wheel = (try? FileManager.default.contentsOfDirectory(atPath: dir))?.first(where: { $0.hasSuffix(".whl") }),
            python(["-m", "zipfile", "-e", dir + "/" + wheel, dir + "/x"]),
            let s = try? String(contentsOfFile: dir + "/x/axe_playwright_python/axe.min.js", encoding: .utf8)
        else { return .failure(RawError("axe-core could not be had: pip download axe-playwright-python==0.1.8 failed")) }
        return .success(s)
    }

    @Test func axeFindsNoSeriousViolationOnAnyScreen() async throws {
        guard Self.needsChromium() else { return }
        let axe: String
        switch await Task.detached(operation: { Self.axeScript() }).value {
        case .success(let s): axe = s
        case .failure(let why):
            print("BrowserTests: \(why)")
            Issue.record("\(why)")
            return
        }
        let n = try await WebNodes("browseraxe")
        var browser: Browser?
        do {
            let c = n.client
            #expect(try await c.post("create", #"{"name":"axepack","radius":500}"#).status == 200)
            let place = try #require(
                try await c.post("place-add", #"{"address":"1 Oak St","pack":"axepack","rent":"600","beds":2}"#).json?["id"] as? String)
            let review =
                "{\"place\":\"\(place)\",\"overall\":4,\"location\":3,\"management\":4,\"amenities\":2,\"again\":\"yes\","
                + "\"text\":\"quiet <b>street</b>\"}"
            let reviewed = try await c.post("review", review)
            #expect(reviewed.status == 200, "\(reviewed.text)")
            let posted = try await c.post("post", #"{"pack":"axepack","title":"hello","body":"world"}"#)
            let post = try #require(posted.json?["id"] as? String)
            #expect(try await c.post("comment", "{\"target\":\"\(post)\",\"text\":\"a comment\"}").status == 200)
            browser = try await Browser.start()
            for (width, height) in [(375, 812), (1280, 800)] {
                let page = try await browser!.open(n.server.url, width: width, height: height)
                #expect(await page.wait(for: "document.getElementById('live').textContent", toBe: "live") == "live")
                try await page.execute(axe)
                #expect(await page.evaluate("typeof axe") == "object", "axe-core did not load")
                let screens = [
                    "feed", "packs", "compose", "post", "places", "swipe", "favs", "chats", "inbox", "den", "search", "map", "moderation"
                ]
                for screen in screens {
                    let open =
                        screen == "post"
                        ? "Skwad.openPost(\(WebDriverSession.quoted(post)))" : "Skwad.go(\(WebDriverSession.quoted(screen)))"
                    _ = await page.evaluate(open)
                    #expect(await page.wait(for: "String(!document.getElementById('screen-\(screen)').hidden)", toBe: "true") == "true")
                    if screen == "den" {
                        let title = "(document.querySelector('#den-posts .title')||{}).textContent||''"
                        #expect(await page.wait(for: title, toBe: "hello") == "hello", "the Den lists your post")
                        // Your place and your review, the review's text as text.
                        let placeTitle = "(document.querySelector('#den-places li[data-id=\"\(place)\"] .title')||{}).textContent||''"
                        #expect(await page.evaluate(placeTitle) == "1 Oak St", "the Den lists your place")
                        let reviewLine = "[...document.querySelectorAll('#den-reviews li')].map(l => l.textContent).join('|')"
                        let shown = await page.evaluate(reviewLine)
                        #expect(
                            shown.hasPrefix("4/5 on 1 Oak St") && shown.hasSuffix("quiet <b>street</b>"),
                            "the Den lists your review: \(shown)")
                        #expect(await page.evaluate("String(document.querySelectorAll('#den-reviews b').length)") == "0")
                    }
                    let found = await page.evaluate(
                        "axe.run(document).then(r => JSON.stringify(r.violations"
                            + ".filter(v => v.impact === 'serious' || v.impact === 'critical')"
                            + ".map(v => v.id + ' (' + v.impact + '): ' + v.nodes.map(n => n.target.join(' ')).join(', '))))")
                    #expect(found == "[]", "\(screen) at \(width) px: \(found)")
                }
            }
        } catch {
            Issue.record(error)
        }
        await browser?.close()
        await n.shutdown()
    }
}
