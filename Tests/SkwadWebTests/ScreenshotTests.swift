import Foundation
import SkwadTestKit
import Testing

/// The screenshots in docs/ (`web-*.png`), taken over WebDriver at phone (375 × 812, touch)
/// and laptop (1280 × 800) width: run with `SKWAD_SCREENSHOTS=docs swift test --skip-build
/// --filter ScreenshotTests`. Skipped otherwise; the browser tests cover the screens.
extension BrowserTests {
    static let screenshotDir = ProcessInfo.processInfo.environment["SKWAD_SCREENSHOTS"]

    @Test(.enabled(if: BrowserTests.screenshotDir != nil)) func docsScreenshots() async throws {
        guard Self.needsChromium(), let dir = Self.screenshotDir else { return }
        let n = try await WebNodes("screenshots", second: true, pageOnB: false)
        await Self.withBrowser(n) { browser in
            let c = n.client
            let b = try #require(n.b)
            #expect(try await c.post("create", "{\"name\":\"Quad\",\"radius\":\(Int(WebNodes.radius))}").status == 200)
            #expect(try await c.post("create", #"{"name":"Housing","radius":800}"#).status == 200)
            #expect(await n.eventually { await b.packs().count == 2 })
            _ = try await b.join("Quad")
            _ = try await b.join("Housing")
            // A picture for the ask: a gradient the browser draws and photographs.
            let artist = try await browser.open("about:blank", width: 320, height: 200)
            try await artist.navigate(
                "data:text/html,<body style='margin:0;height:200px;background:linear-gradient(135deg,%23f6d365,%23fda085)'>"
                    + "<p style='font:bold 64px sans-serif;color:white;margin:0;padding:60px 40px'>%F0%9F%90%88 cat</p>")
            let picture = try await artist.screenshot()
            await artist.quit()
            let ask = try await WebServerTests.upload(
                c, "ask", #"{"pack":"Quad","prompt":"Caption this","body":"found on the 4th floor"}"#, Array(picture))
            let askID = try #require(ask.json?["id"] as? String, "\(ask.text)")
            _ = try await b.post(pack: "Quad", title: "Free pizza", body: "Gates 4th floor, until 3 pm", tags: ["food"])
            _ = try await b.post(pack: "Quad", title: "<img src=x onerror=alert(1)>", body: "shown as text", tags: [])
            _ = try await c.post("post", #"{"pack":"Quad","title":"Study group for 15-213?","body":"Thursdays at 6"}"#)
            var places: [String] = []
            for (address, rent, beds) in [("12 Oak St", 1800, 3), ("4 Elm Ave", 1100, 2), ("9 Pine Rd", 950, 1)] {
                let added = try await c.post(
                    "place-add", "{\"address\":\"\(address)\",\"pack\":\"Housing\",\"rent\":\"\(rent)\",\"beds\":\(beds)}")
                places.append(try #require(added.json?["id"] as? String))
            }
            for (place, stars) in zip(places, [4, 5, 3]) {
                _ = try await c.post(
                    "review",
                    "{\"place\":\"\(place)\",\"overall\":\(stars),\"location\":4,\"management\":3,\"amenities\":4,"
                        + "\"again\":\"yes\",\"text\":\"quiet\"}"
                )
            }
            for place in places.prefix(2) { _ = try await c.post("swipe-key", "{\"key\":\"y\",\"place\":\"\(place)\"}") }
            #expect(try await n.eventually { (try await c.post("feed").json?["posts"] as? [Any])?.count == 4 })

            func shoot(_ page: WebDriverSession, _ name: String) async throws {
                _ = await page.evaluate("new Promise(r => setTimeout(() => requestAnimationFrame(() => r('drawn')), 300))")
                try await page.screenshot().write(to: URL(fileURLWithPath: "\(dir)/web-\(name).png"))
            }
            let phone = try await browser.open(n.server.url, width: 375, height: 812, touch: true)
            #expect(await phone.wait(for: "document.getElementById('live').textContent", toBe: "live") == "live")
            #expect(await phone.wait(for: "String(document.querySelectorAll('#feed-list figure img').length)", toBe: "1") == "1")
            try await shoot(phone, "feed-phone")
            _ = await phone.evaluate("Skwad.openPost(\(WebDriverSession.quoted(askID)))")
            #expect(await phone.wait(for: "String(!!document.querySelector('#post-picture img'))", toBe: "true") == "true")
            try await shoot(phone, "ask-phone")
            try await phone.tap("[data-screen=swipe]")
            #expect(await phone.wait(for: "String(!!document.querySelector('#swipe-card h3'))", toBe: "true") == "true")
            try await shoot(phone, "swipe-phone")
            try await phone.tap("[data-screen=map]")
            #expect(await phone.wait(for: "String(document.querySelectorAll('#map svg .fence').length)", toBe: "2") == "2")
            try await shoot(phone, "map-phone")
            try await phone.tap("[data-screen=den]")
            #expect(await phone.wait(for: "String(document.querySelectorAll('#den-reviews li').length)", toBe: "3") == "3")
            try await shoot(phone, "den-phone")

            let laptop = try await browser.open(n.server.url, width: 1280, height: 800)
            #expect(await laptop.wait(for: "String(document.querySelectorAll('#feed-list figure img').length)", toBe: "1") == "1")
            try await shoot(laptop, "feed-laptop")
            try await laptop.click("[data-screen=places]")
            #expect(await laptop.wait(for: "String(document.querySelectorAll('#places-list > li').length)", toBe: "3") == "3")
            try await shoot(laptop, "places-laptop")
            try await laptop.click("[data-screen=favs]")
            #expect(await laptop.wait(for: "String(document.querySelectorAll('#favs-list input').length)", toBe: "2") == "2")
            try await laptop.execute(
                "document.querySelectorAll('#favs-list input').forEach(i => { i.checked = true; });"
                    + "document.getElementById('compare-button').click()")
            #expect(await laptop.wait(for: "String(!!document.querySelector('#compare-table table'))", toBe: "true") == "true")
            try await shoot(laptop, "compare-laptop")
            try await laptop.click("[data-screen=moderation]")
            #expect(await laptop.wait(for: "String(document.querySelectorAll('#log-list li').length > 0)", toBe: "true") == "true")
            try await shoot(laptop, "moderation-laptop")
        }
    }
}
