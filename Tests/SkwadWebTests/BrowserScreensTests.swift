import Foundation
import SkwadModel
import SkwadNode
import SkwadTestKit
import Testing

/// The page's screens in a real headless Chromium over WebDriver (`Browser.swift`):
/// pictures across two nodes' pages, the swipe deck on a phone with touch, a direct message
/// between two pages. Without the browser each test fails with one line saying so.
extension BrowserTests {
    /// Runs `body` with two nodes (both pages served) and a browser; everything is stopped and
    /// removed on every path.
    static func withTwoPages(_ name: String, _ body: (WebNodes, Browser) async throws -> Void) async throws {
        let n = try await WebNodes(name, second: true, pageOnB: true)
        await withBrowser(n) { try await body(n, $0) }
    }

    /// A pack A made that B has joined.
    static func sharedPack(_ n: WebNodes, _ name: String) async throws {
        #expect(try await n.client.post("create", "{\"name\":\"\(name)\",\"radius\":\(Int(WebNodes.radius))}").status == 200)
        let b = try #require(n.b)
        #expect(await n.eventually { await b.packs().contains { $0.pack.name == name } })
        let joined = try await #require(n.clientB).post("join", "{\"pack\":\"\(name)\"}")
        #expect(joined.status == 200, "\(joined.text)")
    }

    @Test func aPicturePostedOnOnePageShowsOnAnotherNodesPage() async throws {
        guard Self.needsChromium() else { return }
        try await Self.withTwoPages("browserpicture") { n, browser in
            try await Self.sharedPack(n, "pics")
            let pageA = try await browser.open(n.server.url)
            let pageB = try await browser.open(try #require(n.serverB).url)
            for page in [pageA, pageB] {
                #expect(await page.wait(for: "document.getElementById('live').textContent", toBe: "live") == "live")
            }
            // A fills the post form: kind, pack, title, and a picture file (a PNG made here,
            // handed to the file input as a user's pick would be).
            let png = TestPictures.png(width: 24, height: 16).map(String.init).joined(separator: ",")
            let fill = """
                (async function(){
                  document.querySelector('[data-screen=compose]').click();
                  const pack = document.getElementById('compose-pack');
                  const has = () => [...pack.options].some(o => o.textContent === 'pics');
                  for (let i = 0; i < 100 && !has(); i++) await new Promise(r => setTimeout(r, 50));
                  pack.value = [...pack.options].find(o => o.textContent === 'pics').value;
                  document.getElementById('compose-title-input').value = 'a picture <b>from A</b>';
                  const dt = new DataTransfer();
                  dt.items.add(new File([new Uint8Array([\(png)])], 'p.png', { type: 'image/png' }));
                  document.getElementById('compose-picture').files = dt.files;
                  document.getElementById('compose-form').requestSubmit();
                  return 'sent';
                })()
                """
            #expect(await pageA.evaluate(fill) == "sent")
            // On B's page the post arrives live, and its picture is shown from a blob: URL at
            // its size once its blocks are fetched.
            let shown = """
                (function(){
                  const li = [...document.querySelectorAll('#feed-list li')]
                    .find(l => l.querySelector('.title')?.textContent === 'a picture <b>from A</b>');
                  const img = li && li.querySelector('figure img');
                  return img && img.src.startsWith('blob:') && img.complete ? img.naturalWidth + 'x' + img.naturalHeight : '';
                })()
                """
            #expect(await pageB.wait(for: shown, toBe: "24x16") == "24x16", "A's picture was not shown on B's page")
            // The title stayed text: no <b> element came from it.
            #expect(await pageB.evaluate("String(document.querySelectorAll('#feed-list b').length)") == "0")
            // A's own page shows it too, after the form went back to the feed.
            #expect(await pageA.wait(for: shown, toBe: "24x16") == "24x16")
        }
    }

    @Test func aSwipeDeckOnAPhoneFavouritesAndUndoesWithTouch() async throws {
        guard Self.needsChromium() else { return }
        let n = try await WebNodes("browserswipe")
        var browser: Browser?
        do {
            let c = n.client
            #expect(try await c.post("create", #"{"name":"housing","radius":500}"#).status == 200)
            for (address, rent) in [("1 Oak St", 600), ("2 Oak St", 700)] {
                let added = try await c.post(
                    "place-add", "{\"address\":\"\(address)\",\"pack\":\"housing\",\"rent\":\"\(rent)\",\"beds\":2}")
                #expect(added.status == 200, "\(added.text)")
            }
            browser = try await Browser.start()
            let page = try await browser!.open(n.server.url, width: 375, height: 812, touch: true)
            #expect(await page.wait(for: "document.getElementById('live').textContent", toBe: "live") == "live")
            #expect(await page.evaluate("String(window.innerWidth)") == "375")
            try await page.tap("[data-screen=swipe]")
            let cardTitle = "(document.querySelector('#swipe-card h3')||{}).textContent||''"
            // Neither place has a review: the newest comes first.
            let first = await page.wait(for: cardTitle, toBe: "2 Oak St", seconds: 30)
            #expect(first == "2 Oak St", "the deck did not show the first place (by rating, then newest)")
            // Swipe right: a favourite.
            let card = try await page.centre(of: "#swipe-card")
            try await page.swipe(from: (card.x - 100, card.y), to: (card.x + 120, card.y))
            #expect(await page.wait(for: "document.getElementById('swipe-status').textContent", toBe: "favourite") == "favourite")
            let favs = { (try? await c.post("favs", "{}").json?["favs"] as? [[String: Any]])?.compactMap { $0["address"] as? String } }
            #expect(await favs() == [first])
            #expect(await page.evaluate(cardTitle) != first)
            // A tap on Undo brings it back and unmarks it.
            try await page.tap("#swipe-undo")
            let shownAfterUndo = await page.wait(for: cardTitle, toBe: first)
            let said = "document.getElementById('swipe-status').textContent + ' | ' + document.getElementById('error').textContent"
            let afterUndo = await page.evaluate(said)
            #expect(shownAfterUndo == first, "after the tap on Undo: \(afterUndo)")
            #expect(await favs() == [])
            // The keyboard does the same: ← passes, → keeps.
            try await page.press(WebDriverSession.arrowLeft)
            #expect(await page.wait(for: "document.getElementById('swipe-status').textContent", toBe: "passed") == "passed")
            try await page.press(WebDriverSession.arrowRight)
            #expect(await page.wait(for: "document.getElementById('swipe-status').textContent", toBe: "favourite") == "favourite")
            #expect(await favs()?.count == 1)
            #expect(await page.evaluate("String(document.getElementById('swipe-card').textContent.includes('No place left'))") == "true")
        } catch {
            Issue.record(error)
        }
        await browser?.close()
        await n.shutdown()
    }

    @Test func aMessageBetweenTwoPagesShowsDelivered() async throws {
        guard Self.needsChromium() else { return }
        try await Self.withTwoPages("browserdm") { n, browser in
            try await Self.sharedPack(n, "talk")
            // B posts; A opens it on its page and messages its author.
            let posted = try await #require(n.clientB).post("post", #"{"pack":"talk","title":"ask me","body":""}"#)
            let post = try #require(posted.json?["id"] as? String)
            let pageA = try await browser.open(n.server.url)
            let pageB = try await browser.open(try #require(n.serverB).url)
            for page in [pageA, pageB] {
                #expect(await page.wait(for: "document.getElementById('live').textContent", toBe: "live") == "live")
            }
            let title = "(document.querySelector('#feed-list li[data-id=\"\(post)\"] .title')||{}).textContent||''"
            #expect(await pageA.wait(for: title, toBe: "ask me") == "ask me")
            try await pageA.click("#feed-list li[data-id=\"\(post)\"] .title")
            let messageButton = "(document.querySelector('#post-own button')||{}).textContent||''"
            #expect(await pageA.wait(for: "String((\(messageButton)).startsWith('Message anon'))", toBe: "true") == "true")
            try await pageA.click("#post-own button")
            #expect(await pageA.wait(for: "String(!document.getElementById('screen-chat').hidden)", toBe: "true") == "true")
            try await pageB.click("[data-screen=chats]")
            let text = "hello <i>B</i>"
            try await pageA.type("#chat-text", text)
            try await pageA.click("#chat-form button[type=submit]")
            // Sent at once, delivered when B's node acknowledges it (the `delivered` event).
            let mark = "(document.querySelector('#chat-list li.mine .mark')||{}).textContent||''"
            #expect(await pageA.wait(for: mark, toBe: "delivered") == "delivered", "A's message was not marked delivered")
            #expect(await pageA.evaluate("document.querySelector('#chat-list li.mine .body').textContent") == text)
            // B's page lists the conversation with A's message, as text.
            let last = "[...document.querySelectorAll('#chats-list .meta')].some(p => p.textContent === \(WebDriverSession.quoted(text)))"
            #expect(await pageB.wait(for: "String(\(last))", toBe: "true") == "true", "B's page did not list A's message")
            // Both see the same safety number.
            try await pageB.click("#chats-list button")
            #expect(await pageB.wait(for: "String(!document.getElementById('screen-chat').hidden)", toBe: "true") == "true")
            for page in [pageA, pageB] { try await page.click("#safety-button") }
            let number = "(document.querySelector('#safety .safety-number')||{}).textContent||''"
            let digits = "/^\\d{5} \\d{5} \\d{5} \\d{5}$/.test(\(number))"
            #expect(await pageA.wait(for: "String(\(digits))", toBe: "true") == "true")
            #expect(await pageB.wait(for: "String(\(digits))", toBe: "true") == "true")
            #expect(await pageA.evaluate(number) == (await pageB.evaluate(number)))
        }
    }

    /// The map draws the pack's fence; the browser's location is asked only when the button is
    /// pressed, and then sets the node's (`locate`).
    @Test func theMapSetsTheNodesLocationOnlyOnAPress() async throws {
        guard Self.needsChromium() else { return }
        let n = try await WebNodes("browsermap")
        var browser: Browser?
        do {
            #expect(try await n.client.post("create", #"{"name":"near","radius":300}"#).status == 200)
            browser = try await Browser.start()
            let page = try await browser!.open(n.server.url)
            #expect(await page.wait(for: "document.getElementById('live').textContent", toBe: "live") == "live")
            // The browser would answer with this place, if asked.
            try await page.grant("geolocation")
            try await page.setLocation(latitude: 40.45, longitude: -79.95)
            try await page.click("[data-screen=map]")
            #expect(await page.wait(for: "String(document.querySelectorAll('#map svg .fence circle').length)", toBe: "1") == "1")
            // Showing the map asked nothing: the node is where it was.
            #expect(await n.a.location == WebNodes.here)
            try await page.click("#locate-button")
            let moved = await n.eventually(seconds: 30) {
                guard let l = await n.a.location else { return false }
                return abs(l.lat - 40.45) < 1e-6 && abs(l.lon + 79.95) < 1e-6
            }
            #expect(moved, "the node's location was not set from the browser's")
            let meta = "document.getElementById('map-meta').textContent.startsWith('you at 40.45')"
            #expect(await page.wait(for: "String(\(meta))", toBe: "true") == "true")
        } catch {
            Issue.record(error)
        }
        await browser?.close()
        await n.shutdown()
    }
}
