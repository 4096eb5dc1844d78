import Foundation
import SkwadNode
import SkwadTestKit
import Testing

/// The post screen's own buttons in Chromium: the asker picks a caption, edits the ask and
/// deletes a comment of theirs; the Alpha hides another's post; favourites are compared in a
/// table. Clicks are the page's buttons (found by their text), results read from the page and
/// checked against the node.
extension BrowserTests {
    /// Clicks the first button under `scope` whose text is `text`; "clicked" or "".
    static func click(_ page: WebDriverSession, _ scope: String, _ text: String) async -> String {
        await page.evaluate(
            "(function(){const b=[...document.querySelectorAll(\(WebDriverSession.quoted(scope + " button")))]"
                + ".find(b => b.textContent === \(WebDriverSession.quoted(text)));if(!b)return '';b.click();return 'clicked';})()")
    }

    /// Polls until `click` finds its button (the screen is still loading), at most 30 s.
    static func clickWhenThere(_ page: WebDriverSession, _ scope: String, _ text: String) async -> Bool {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if await click(page, scope, text) == "clicked" { return true }
            try? await Task.sleep(nanoseconds: 50_000_000)
        }
        return false
    }

    @Test func theAskerPicksEditsAndDeletesOnThePostScreen() async throws {
        guard Self.needsChromium() else { return }
        let n = try await WebNodes("browserpost", second: true)
        var browser: Browser?
        do {
            let c = n.client
            let b = try #require(n.b)
            #expect(try await c.post("create", "{\"name\":\"capt\",\"radius\":\(Int(WebNodes.radius))}").status == 200)
            #expect(await n.eventually { await b.packs().contains { $0.pack.name == "capt" } })
            _ = try await b.join("capt")
            let asked = try await c.post("ask", #"{"pack":"capt","prompt":"caption this","body":"a cat"}"#)
            let ask = try #require(asked.json?["id"] as? String)
            #expect(await n.eventually { (try? await b.comment(on: ask, text: "the cat from B")) != nil })
            #expect(try await n.eventually { (try await c.post("show", "{\"post\":\"\(ask)\"}").json?["comments"] as? [Any])?.count == 1 })
            let remark = try await c.post("comment", "{\"target\":\"\(ask)\",\"text\":\"my own remark\"}")
            let mine = try #require(remark.json?["id"] as? String)
            browser = try await Browser.start()
            let page = try await browser!.open(n.server.url)
            #expect(await page.wait(for: "document.getElementById('live').textContent", toBe: "live") == "live")
            _ = await page.evaluate("Skwad.openPost(\(WebDriverSession.quoted(ask)))")
            #expect(await page.wait(for: "document.getElementById('comments-title').textContent", toBe: "Captions") == "Captions")
            // Pick: only B's caption has the button (a caption of one's own is not offered).
            #expect(await Self.clickWhenThere(page, "#comments li", "Pick"))
            let picked = "String([...document.querySelectorAll('#comments li .meta')].some(m => m.textContent.includes('★ picked')))"
            #expect(await page.wait(for: picked, toBe: "true") == "true")
            let shown = try await c.post("show", "{\"post\":\"\(ask)\"}")
            #expect((shown.json?["post"] as? [String: Any])?["picked"] as? String != nil)
            // Edit the ask's body through its form.
            #expect(await Self.click(page, "#post-own", "Edit") == "clicked")
            _ = await page.evaluate(
                "(function(){const f=document.querySelector('#post-own form');f.elements.body.value='a black cat';f.requestSubmit();})()")
            #expect(await page.wait(for: "document.getElementById('post-body').textContent", toBe: "a black cat") == "a black cat")
            let edited = "String(document.getElementById('post-meta').textContent.endsWith('edited'))"
            #expect(await page.wait(for: edited, toBe: "true") == "true")
            // Delete my comment: asked in the page, then done.
            let scope = "#comments li[data-id=\"\(mine)\"]"
            #expect(await Self.click(page, scope, "Delete") == "clicked")
            #expect(await Self.clickWhenThere(page, scope, "Yes, delete"))
            let removed = "(document.querySelector('\(scope) .body')||{}).textContent||'gone'"
            let after = await page.wait(for: "String(['(removed)','gone'].includes(\(removed)))", toBe: "true")
            #expect(after == "true", "the comment was not deleted on the page")
            let comments = try await c.post("show", "{\"post\":\"\(ask)\"}").json?["comments"] as? [[String: Any]] ?? []
            #expect(!comments.contains { $0["id"] as? String == mine && $0["removed"] as? Bool == false })
        } catch {
            Issue.record(error)
        }
        await browser?.close()
        await n.shutdown()
    }

    @Test func theAlphaHidesAPostAndFavouritesAreCompared() async throws {
        guard Self.needsChromium() else { return }
        let n = try await WebNodes("browsermod", second: true)
        var browser: Browser?
        do {
            let c = n.client
            let b = try #require(n.b)
            #expect(try await c.post("create", "{\"name\":\"modded\",\"radius\":\(Int(WebNodes.radius))}").status == 200)
            #expect(await n.eventually { await b.packs().contains { $0.pack.name == "modded" } })
            _ = try await b.join("modded")
            let spam = try await b.post(pack: "modded", title: "buy now", body: "spam", tags: [])
            #expect(try await n.eventually { try await c.post("show", "{\"post\":\"\(spam.hex)\"}").status == 200 })
            for (address, rent) in [("1 Elm St", 900), ("2 Elm St", 500)] {
                let added = try await c.post(
                    "place-add", "{\"address\":\"\(address)\",\"pack\":\"modded\",\"rent\":\"\(rent)\",\"beds\":1}")
                let id = try #require(added.json?["id"] as? String)
                #expect(try await c.post("swipe-key", "{\"key\":\"y\",\"place\":\"\(id)\"}").status == 200)
            }
            browser = try await Browser.start()
            let page = try await browser!.open(n.server.url, width: 1280, height: 800)
            #expect(await page.wait(for: "document.getElementById('live').textContent", toBe: "live") == "live")
            // The Alpha hides B's post from its screen.
            _ = await page.evaluate("Skwad.openPost(\(WebDriverSession.quoted(spam.hex)))")
            #expect(await Self.clickWhenThere(page, "#post-own", "Hide"))
            #expect(await page.wait(for: "document.querySelector('#post-own .mod').textContent", toBe: "hidden") == "hidden")
            let hidden = try await c.post("show", "{\"post\":\"\(spam.hex)\"}").json?["post"] as? [String: Any]
            #expect(hidden?["hidden"] as? String == "moderated")
            // Both favourites compared: a column each, the cheaper rent marked best.
            _ = await page.evaluate("Skwad.go('favs')")
            #expect(await page.wait(for: "String(document.querySelectorAll('#favs-list input').length)", toBe: "2") == "2")
            try await page.execute(
                "document.querySelectorAll('#favs-list input').forEach(i => { i.checked = true; });"
                    + "document.getElementById('compare-button').click()")
            let best =
                "(function(){const r=[...document.querySelectorAll('#compare-table tr')]"
                + ".find(r => r.cells[0].textContent === 'rent per person');"
                + "return r ? [...r.cells].slice(1).map(c => c.textContent).sort().join('|') : '';})()"
            let cells = await page.wait(for: best, toBe: "$500 best|$900")
            #expect(cells == "$500 best|$900", "the compare table: \(cells)")
            #expect(await page.evaluate("String(document.querySelectorAll('#compare-table thead th').length)") == "3")
        } catch {
            Issue.record(error)
        }
        await browser?.close()
        await n.shutdown()
    }

    /// A member who is not the Alpha gets what the REPL lets them do: Report and Block on
    /// another's post (no Hide), and on the moderation screen the pseudonyms blocked and packs
    /// muted (unblock, mute), a joined pack's log, and no ban form.
    @Test func aMemberReportsBlocksAndMutesOnThePage() async throws {
        guard Self.needsChromium() else { return }
        let n = try await WebNodes("browsermember", second: true, pageOnB: true)
        await Self.withBrowser(n) { browser in
            try await Self.sharedPack(n, "members")
            let posted = try await n.client.post("post", #"{"pack":"members","title":"from the alpha","body":"hi"}"#)
            let post = try #require(posted.json?["id"] as? String)
            let shown = try await n.client.post("show", "{\"post\":\"\(post)\"}")
            let tag = try #require((shown.json?["post"] as? [String: Any])?["author"] as? String)
            let b = try #require(n.b)
            let clientB = try #require(n.clientB)
            #expect(try await n.eventually { try await clientB.post("show", "{\"post\":\"\(post)\"}").status == 200 })
            let page = try await browser.open(try #require(n.serverB).url, width: 1280, height: 800)
            #expect(await page.wait(for: "document.getElementById('live').textContent", toBe: "live") == "live")
            _ = await page.evaluate("Skwad.openPost(\(WebDriverSession.quoted(post)))")
            let buttons = "[...document.querySelectorAll('#post-own .mod button')].map(b => b.textContent).join('|')"
            #expect(await page.wait(for: buttons, toBe: "Report|Block \(tag)") == "Report|Block \(tag)")
            // Report, with a reason typed into the page's form.
            #expect(await Self.click(page, "#post-own .mod", "Report") == "clicked")
            try await page.type("#post-own .mod input", "off topic")
            try await page.click("#post-own .mod form button[type=submit]")
            let said = "(document.querySelector('#post-own .mod span')||{}).textContent||''"
            #expect(await page.wait(for: said, toBe: "reported to the moderators") == "reported to the moderators")
            // The Alpha's node can read it.
            #expect(try await n.eventually { (try await n.client.post("reports").json?["reports"] as? [Any])?.count == 1 })
            // Block the author: for B only.
            _ = await page.evaluate("Skwad.openPost(\(WebDriverSession.quoted(post)))")
            #expect(await Self.clickWhenThere(page, "#post-own .mod", "Block \(tag)"))
            #expect(await n.eventually { await b.blocks().authors.count == 1 })
            // The moderation screen: the block listed with its undo, a mute form, the log, no ban form.
            try await page.click("[data-screen=moderation]")
            let listed = "[...document.querySelectorAll('#blocks-list li')].map(l => l.textContent).join('|')"
            #expect(await page.wait(for: listed, toBe: "\(tag) (blocked) Unblock") == "\(tag) (blocked) Unblock")
            #expect(await page.evaluate("String(document.getElementById('ban-form').hidden)") == "true")
            #expect(await page.evaluate("String(document.getElementById('mod-none').hidden)") == "false")
            let logShown = await page.wait(for: "String(document.querySelectorAll('#log-list li').length > 0)", toBe: "true")
            let state = await page.evaluate(
                "document.getElementById('error').textContent + ' | ' + document.getElementById('mod-pack').value + ' | '"
                    + " + document.getElementById('log-list').outerHTML")
            #expect(logShown == "true", "\(state)")
            try await page.click("#mute-form button[type=submit]")
            #expect(await n.eventually { await b.blocks().packs.count == 1 })
            #expect(await page.wait(for: "String(document.querySelectorAll('#blocks-list li').length)", toBe: "2") == "2")
            #expect(await Self.clickWhenThere(page, "#blocks-list", "Unblock"))
            #expect(await n.eventually { await b.blocks().authors.isEmpty })
            #expect(await b.blocks().packs.count == 1)
        }
    }
}
