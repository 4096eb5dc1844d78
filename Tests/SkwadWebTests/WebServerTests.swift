import Foundation
import SkwadModel
import SkwadNode
import SkwadREPL
import SkwadWeb
import SkwadTestKit
import Testing

/// The local web page over real HTTP on 127.0.0.1 (SECURITY.md, "Local web page").
@Suite struct WebServerTests {
    /// Runs `body` with fresh nodes and page; shuts them down on every path.
    func withNodes(_ name: String, second: Bool = false, _ body: (WebNodes) async throws -> Void) async throws {
        let n = try await WebNodes(name, second: second)
        do { try await body(n) } catch {
            await n.shutdown()
            throw error
        }
        await n.shutdown()
    }

    @Test func theTokenIsRequiredOnEveryAPIRequest() async throws {
        try await withNodes("token") { n async throws in
            let c = n.client
            #expect(n.server.token.count == 64 && n.server.token.allSatisfy(\.isHexDigit))
            #expect(n.server.url == "http://127.0.0.1:\(n.server.port)/#token=\(n.server.token)")
            let none = try await c.post("whoami", auth: .some(nil))
            #expect(none.status == 401)
            #expect(none.json?["ok"] as? Bool == false)
            let wrong = String(repeating: "0", count: 64)
            #expect(try await c.post("whoami", auth: "Authorization: Bearer \(wrong)").status == 401)
            #expect(try await c.post("whoami", auth: "X-Skwad-Token: \(wrong)").status == 401)
            // One character short of the token: the comparison is of the whole token.
            #expect(try await c.post("whoami", auth: "Authorization: Bearer \(n.server.token.dropLast())").status == 401)
            // A cookie is not a way in.
            #expect(try await c.post("whoami", auth: "Cookie: token=\(n.server.token)").status == 401)
            let bearer = try await c.post("whoami")
            #expect(bearer.status == 200)
            #expect(bearer.json?["ok"] as? Bool == true)
            #expect(try await c.post("whoami", auth: "X-Skwad-Token: \(n.server.token)").status == 200)
        }
    }

    @Test func aHostOtherThanTheBoundAddressGets421() async throws {
        try await withNodes("host") { n async throws in
            let c = n.client
            #expect(try await c.post("whoami", host: "evil.example:\(n.server.port)").status == 421)
            #expect(try await c.post("whoami", host: "evil.example").status == 421)
            #expect(try await c.post("whoami", host: "127.0.0.1:\(n.server.port == 1 ? 2 : n.server.port - 1)").status == 421)
            #expect(try await c.request("GET", "/", host: "rebound.example:\(n.server.port)").status == 421)
            #expect(try await c.post("whoami", host: "localhost:\(n.server.port)").status == 200)
            #expect(try await c.request("GET", "/").status == 200)
        }
    }

    @Test func anotherOriginIsRefused() async throws {
        try await withNodes("origin") { n async throws in
            let c = n.client
            #expect(try await c.post("whoami", extra: ["Origin: http://evil.example"]).status == 403)
            #expect(try await c.post("whoami", extra: ["Origin: http://127.0.0.1:\(n.server.port)"]).status == 200)
        }
    }

    @Test func anOversizedBodyGets413() async throws {
        try await withNodes("body") { n async throws in
            let title = String(repeating: "a", count: WebServer.maxBody + 1024)
            let r = try await n.client.post("post", "{\"pack\":\"x\",\"title\":\"\(title)\",\"body\":\"\"}")
            #expect(r.status == 413)
            #expect(r.json?["ok"] as? Bool == false)
        }
    }

    @Test func aPostMadeOverTheAPIIsInTheFeedAsAJSONString() async throws {
        try await withNodes("post") { n async throws in
            let c = n.client
            let created = try await c.post("create", #"{"name":"webtest","radius":500}"#)
            #expect(created.status == 200, "\(created.text)")
            let title = "<img src=x onerror=alert(1)>"
            let posted = try await c.post(
                "post", #"{"pack":"webtest","title":"<img src=x onerror=alert(1)>","body":"</script><script>alert(2)</script>"}"#)
            #expect(posted.status == 200, "\(posted.text)")
            #expect(posted.headers["content-type"]?.hasPrefix("application/json") == true)
            let id = try #require(posted.json?["id"] as? String)
            let feed = try await c.post("feed", #"{"pack":"webtest"}"#)
            #expect(feed.status == 200)
            let posts = try #require(feed.json?["posts"] as? [[String: Any]])
            let post = try #require(posts.first { $0["id"] as? String == id })
            #expect(post["title"] as? String == title)
            #expect(post["body"] as? String == "</script><script>alert(2)</script>")
            // The same reply as the REPL's JSON mode gives for `feed webtest`.
            let repl = REPL(
                executor: Executor(node: n.a), reader: LineReader(interactive: false, historyPath: nil), mode: .json)
            let line = await repl.handle("feed webtest", nowMs: wallClockMs()).output ?? ""
            let replPosts = (try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["posts"] as? [[String: Any]]
            #expect(replPosts?.map { $0["id"] as? String } == posts.map { $0["id"] as? String })
        }
    }

    @Test func unknownVerbsAre404AndBadArguments400() async throws {
        try await withNodes("verbs") { n async throws in
            let c = n.client
            let unknown = try await c.post("frobnicate")
            #expect(unknown.status == 404)
            #expect((unknown.json?["error"] as? String)?.contains("frobnicate") == true)
            #expect(try await c.post("quit").status == 404)
            let missing = try await c.post("post", #"{"pack":"nowhere"}"#)
            #expect(missing.status == 400)
            #expect(missing.json?["ok"] as? Bool == false)
            #expect(try await c.post("feed", "[1,2]").status == 400)
            #expect(try await c.post("feed", #"{"colour":"red"}"#).status == 400)
            #expect(try await c.request("GET", "/api/v1/feed", headers: ["Authorization: Bearer \(n.server.token)"]).status == 404)
        }
    }

    @Test func responsesCarryTheSecurityHeaders() async throws {
        try await withNodes("headers") { n async throws in
            let c = n.client
            for r in [try await c.post("whoami"), try await c.post("whoami", auth: .some(nil)), try await c.request("GET", "/")] {
                let csp = r.headers["content-security-policy"] ?? ""
                #expect(csp.contains("default-src 'none'"))
                #expect(csp.contains("script-src 'self'"))
                #expect(csp.contains("frame-ancestors 'none'"))
                #expect(!csp.contains("unsafe-inline") && !csp.contains("unsafe-eval"))
                #expect(r.headers["x-content-type-options"] == "nosniff")
                #expect(r.headers["referrer-policy"] == "no-referrer")
                #expect(r.headers["set-cookie"] == nil)
            }
            #expect(try await c.post("whoami").headers["cache-control"] == "no-store")
            let page = try await c.request("GET", "/")
            #expect(page.headers["content-type"]?.hasPrefix("text/html") == true)
            // The CSP forbids inline script and style: the page has none.
            #expect(page.text.contains("<script src=\"/app.js\""))
            #expect(!page.text.contains("<script>") && !page.text.contains("style=") && !page.text.contains("<style"))
            let script = try await c.request("GET", "/app.js")
            #expect(script.status == 200 && script.headers["content-type"]?.hasPrefix("text/javascript") == true)
            #expect(!script.text.contains("innerHTML") && !script.text.contains("outerHTML") && !script.text.contains("insertAdjacentHTML"))
            #expect(!script.text.contains("localStorage") && !script.text.contains("document.cookie"))
            #expect(try await c.request("GET", "/app.css").status == 200)
        }
    }

    /// A refused upgrade is answered 400 with no body (Hummingbird's answer to an upgrade its
    /// router declines) and never becomes a socket; a plain GET without the token gets 401.
    @Test func theWebSocketNeedsTheToken() async throws {
        try await withNodes("wstoken") { n async throws in
            let c = n.client
            let (none, refused) = try await c.webSocket(headers: [])
            #expect(none == nil && refused.status == 400 && refused.headers["sec-websocket-accept"] == nil)
            let wrong = String(repeating: "f", count: 64)
            let (withWrong, refusedWrong) = try await c.webSocket(headers: ["Sec-WebSocket-Protocol: skwad, skwad.token.\(wrong)"])
            #expect(withWrong == nil && refusedWrong.status == 400 && refusedWrong.headers["sec-websocket-accept"] == nil)
            let (wrongHeader, _) = try await c.webSocket(headers: ["Authorization: Bearer \(wrong)"])
            #expect(wrongHeader == nil)
            #expect(n.server.events.subscriberCount == 0)
            #expect(try await c.request("GET", "/api/v1/events").status == 401)
            let (ok, upgraded) = try await c.webSocket(headers: ["Sec-WebSocket-Protocol: skwad, skwad.token.\(n.server.token)"])
            #expect(ok != nil && upgraded.status == 101)
            #expect(upgraded.headers["sec-websocket-protocol"] == "skwad")
            let (byHeader, _) = try await c.webSocket(headers: ["Authorization: Bearer \(n.server.token)"])
            #expect(byHeader != nil)
            #expect(await n.eventually(seconds: 30) { n.server.events.subscriberCount == 2 })
        }
    }

    @Test func aPostFromAnotherNodeArrivesOverTheWebSocket() async throws {
        try await withNodes("wsevent", second: true) { n async throws in
            let b = try #require(n.b)
            _ = try await b.createPack(name: "wsroom", radiusMeters: WebNodes.radius, locked: false, tags: [], color: "")
            #expect(await n.eventually { await n.a.packs().contains { $0.pack.name == "wsroom" } })
            let joined = try await n.client.post("join", #"{"pack":"wsroom"}"#)
            #expect(joined.status == 200, "\(joined.text)")
            let (socket, upgraded) = try await n.client.webSocket(headers: ["X-Skwad-Token: \(n.server.token)"])
            let ws = try #require(socket, "upgrade answered \(upgraded.status)")
            #expect(await n.eventually { n.server.events.subscriberCount == 1 })
            let title = "from B <b>bold</b>"
            _ = try await b.post(pack: "wsroom", title: title, body: "hello", tags: [])
            var seen: [String: Any]?
            let deadline = Date().addingTimeInterval(60)
            while seen == nil, Date() < deadline, let frame = await ws.readFrame(seconds: deadline.timeIntervalSinceNow) {
                guard frame.opcode == 1, let event = try? JSONSerialization.jsonObject(with: Data(frame.payload)) as? [String: Any]
                else { continue }
                if event["event"] as? String == "post", (event["post"] as? [String: Any])?["title"] as? String == title { seen = event }
            }
            #expect(seen != nil, "no post event within 60 s")
        }
    }

    @Test func aNonLoopbackAddressNeedsTheLANFlag() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-web-lan-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let node = try Node(config: NodeConfig(dataDir: dir))
        await #expect(throws: WebError.self) { _ = try await WebServer.start(executor: Executor(node: node), host: "0.0.0.0") }
        #expect(WebServer.isLoopback("127.0.0.1") && WebServer.isLoopback("localhost") && !WebServer.isLoopback("192.168.1.2"))
        #expect(try WebServer.address(nil) == ("127.0.0.1", 0))
        #expect(try WebServer.address("127.0.0.1:8080") == ("127.0.0.1", 8080))
        #expect(throws: WebError.self) { try WebServer.address("127.0.0.1:99999") }
        await node.close()
    }
}
