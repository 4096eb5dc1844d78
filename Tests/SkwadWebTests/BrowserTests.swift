import Foundation
import SkwadTestKit
import Testing

/// The page in a real headless Chromium (Debian `chromium`), driven over W3C WebDriver by a
/// chromedriver process (Debian `chromium-driver`; scripts/setup.sh installs both as root):
/// the page loads with the token from the URL's `#`, calls the API and shows the feed, a
/// hostile title as text. Without the browser each test fails with one line saying so. One
/// test at a time: CI runs every suite at once on 2 cores.
@Suite(.serialized) struct BrowserTests {
    static func needsChromium() -> Bool {
        guard let why = ChromeDriver.missing else { return true }
        print("BrowserTests: \(why); the page was not run")
        Issue.record("\(why): the page was not run in a browser")
        return false
    }

    /// Runs `body` with `n` and a browser; the browser and the nodes are stopped on every path.
    static func withBrowser(_ n: WebNodes, _ body: (Browser) async throws -> Void) async {
        var browser: Browser?
        do {
            browser = try await Browser.start()
            try await body(browser!)
        } catch {
            Issue.record(error)
        }
        await browser?.close()
        await n.shutdown()
    }

    @Test func theFeedShowsAHostileTitleAsText() async throws {
        guard Self.needsChromium() else { return }
        let n = try await WebNodes("browser")
        await Self.withBrowser(n) { browser in
            let c = n.client
            #expect(try await c.post("create", #"{"name":"browserpack","radius":500}"#).status == 200)
            let posted = try await c.post(
                "post", #"{"pack":"browserpack","title":"<img src=x onerror=alert(1)>","body":"<b>not bold</b>"}"#)
            let id = try #require(posted.json?["id"] as? String)
            let page = try await browser.open(n.server.url)
            // The post is in the feed the script built, its title and body as text.
            let shown = "String(!!document.querySelector('#feed-list li[data-id=\"\(id)\"]'))"
            #expect(await page.wait(for: shown, toBe: "true") == "true", "the feed was not shown")
            let dom = await page.evaluate("document.documentElement.outerHTML")
            #expect(dom.contains("&lt;img src=x onerror=alert(1)&gt;"))
            #expect(dom.contains("&lt;b&gt;not bold&lt;/b&gt;"))
            #expect(!dom.contains("<img src=\"x\"") && !dom.contains("<b>not bold</b>"))
            // No error was shown (the token from the URL was accepted).
            #expect(dom.contains("<p id=\"error\" role=\"alert\" hidden=\"\">"))
            // WebDriver's screenshot is a PNG of the page.
            #expect(try await page.screenshot().starts(with: [0x89, 0x50, 0x4E, 0x47]))
        }
    }

    /// A post made on node B while A's page is open is put in A's feed by the WebSocket event,
    /// with no reload.
    @Test func aPostFromAnotherNodeAppearsWithoutAReload() async throws {
        guard Self.needsChromium() else { return }
        let n = try await WebNodes("browserlive", second: true)
        await Self.withBrowser(n) { browser in
            let b = try #require(n.b)
            _ = try await b.createPack(name: "liveroom", radiusMeters: WebNodes.radius, locked: false, tags: [], color: "")
            #expect(await n.eventually { await n.a.packs().contains { $0.pack.name == "liveroom" } })
            #expect(try await n.client.post("join", #"{"pack":"liveroom"}"#).status == 200)
            let page = try await browser.open(n.server.url)
            // The page is live and its first feed is in (the "No posts yet." line).
            let ready = "document.getElementById('live').textContent + '|' + document.getElementById('feed-list').textContent"
            #expect(await page.wait(for: ready, toBe: "live|No posts yet.", seconds: 60) == "live|No posts yet.")
            let title = "live from B <i>"
            let id = try await b.post(pack: "liveroom", title: title, body: "no reload", tags: [])
            let js =
                "(function(){const li=document.querySelector('#feed-list li.new[data-id=\"\(id.hex)\"]');"
                + "return li ? li.querySelector('.title').textContent : '';})()"
            #expect(await page.wait(for: js, toBe: title, seconds: 60) == title, "B's post was not inserted live on A's page")
        }
    }
}
