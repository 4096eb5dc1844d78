import Foundation
import SkwadModel
import SkwadTestKit
import SkwadWeb
import Testing

/// The page's own routes beside the registry's verbs (SECURITY.md, "Local web page"):
/// pictures served and uploaded, and the swipe deck's keys.
extension WebServerTests {
    /// `POST /api/v1/upload/VERB?args=JSON` with the picture as the body.
    static func upload(_ c: RawClient, _ verb: String, _ args: String, _ bytes: [UInt8], auth: Bool = true) async throws -> RawResponse {
        let query = args.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        return try await c.request(
            "POST", "/api/v1/upload/\(verb)?args=\(query)", headers: auth ? ["Authorization: Bearer \(c.token)"] : [], body: bytes)
    }

    @Test func aPictureIsUploadedAndServedWithItsSniffedTypeAndNosniff() async throws {
        try await withNodes("picture") { n async throws in
            let c = n.client
            #expect(try await c.post("create", #"{"name":"picpack","radius":500}"#).status == 200)
            let png = TestPictures.png(width: 24, height: 16, metadata: true)
            let args = #"{"pack":"picpack","title":"a <b>picture</b>","body":"with metadata"}"#
            #expect(try await Self.upload(c, "post", args, png, auth: false).status == 401)
            let posted = try await Self.upload(c, "post", args, png)
            #expect(posted.status == 200, "\(posted.text)")
            let id = try #require(posted.json?["id"] as? String)
            // In the feed as the REPL's JSON gives it: the picture's root, type and size.
            let feed = try await c.post("feed", #"{"pack":"picpack"}"#)
            let post = try #require((feed.json?["posts"] as? [[String: Any]])?.first { $0["id"] as? String == id })
            #expect((post["picture"] as? [String: Any])?["type"] as? String == "png")
            #expect(post["title"] as? String == "a <b>picture</b>")

            #expect(try await c.request("GET", "/api/v1/picture/\(id)").status == 401)
            let wrong = String(repeating: "0", count: 64)
            #expect(try await c.request("GET", "/api/v1/picture/\(id)", headers: ["Authorization: Bearer \(wrong)"]).status == 401)
            let got = try await c.request("GET", "/api/v1/picture/\(id)", headers: ["Authorization: Bearer \(c.token)"])
            #expect(got.status == 200)
            #expect(got.headers["content-type"] == "image/png")
            #expect(got.headers["x-content-type-options"] == "nosniff")
            #expect(got.headers["cache-control"] == "no-store")
            #expect(got.headers["content-security-policy"]?.contains("default-src 'none'") == true)
            // The stripped picture: the PNG signature, and none of the metadata (GPS) it came with.
            #expect(Array(got.body.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
            #expect(got.body.count < png.count)
            #expect(!got.text.contains("GPSLatitude"))

            // A post without a picture, an unknown id, a short id.
            let plain = try #require(try await c.post("post", #"{"pack":"picpack","title":"no picture","body":""}"#).json?["id"] as? String)
            let auth = ["Authorization: Bearer \(c.token)"]
            #expect(try await c.request("GET", "/api/v1/picture/\(plain)", headers: auth).status == 404)
            #expect(try await c.request("GET", "/api/v1/picture/\(wrong)", headers: auth).status == 404)
            #expect(try await c.request("GET", "/api/v1/picture/\(id.prefix(8))", headers: auth).status == 400)
        }
    }

    @Test func uploadsAreBoundedAndNameNoFile() async throws {
        try await withNodes("upload") { n async throws in
            let c = n.client
            #expect(try await c.post("create", #"{"name":"uppack","radius":500}"#).status == 200)
            let png = TestPictures.png(width: 4, height: 4)
            // The page names no file on this machine: `image` in args is refused.
            let named = try await Self.upload(c, "post", #"{"pack":"uppack","title":"t","body":"","image":"/etc/passwd"}"#, png)
            #expect(named.status == 400)
            #expect(try await Self.upload(c, "comment", #"{"target":"x","text":"t"}"#, png).status == 404)
            #expect(try await Self.upload(c, "post", #"{"pack":"uppack","title":"t","body":""}"#, []).status == 400)
            #expect(try await Self.upload(c, "post", "[1]", png).status == 400)
            // Not a picture: the node sniffs the bytes and refuses them with one line.
            let html = Array("<html><script>alert(1)</script></html>".utf8)
            let notPicture = try await Self.upload(c, "post", #"{"pack":"uppack","title":"t","body":""}"#, html)
            #expect(notPicture.status == 400)
            #expect((notPicture.json?["error"] as? String)?.contains("JPEG, PNG or WebP") == true, "\(notPicture.text)")
            // Above the bound, by Content-Length before the body is read (only its start is
            // sent: a server that answers at once need not read the rest).
            let raw = try RawConnection(port: c.port)
            let head =
                "POST /api/v1/upload/post?args=%7B%7D HTTP/1.1\r\nHost: \(c.host)\r\nAuthorization: Bearer \(c.token)\r\n"
                + "Content-Length: \(WebServer.maxPictureBody + 1)\r\n\r\n"
            await raw.write(Array(head.utf8) + png)
            #expect(await raw.readResponse()?.status == 413)
            // The ordinary verbs keep their 64 KiB bound.
            let r = try await c.request(
                "POST", "/api/v1/post", headers: ["Authorization: Bearer \(c.token)"],
                body: [UInt8](repeating: 0x20, count: WebServer.maxBody + 1))
            #expect(r.status == 413)
            // No upload file is left behind.
            let dir = WebPictures.uploadDirectory(await n.a.config.dataDir)
            #expect((try? FileManager.default.contentsOfDirectory(atPath: dir))?.isEmpty ?? true)
        }
    }

    @Test func anAskWithAPictureTakesACaptionAndThePick() async throws {
        try await withNodes("ask") { n async throws in
            let c = n.client
            #expect(try await c.post("create", #"{"name":"askpack","radius":500}"#).status == 200)
            let asked = try await Self.upload(c, "ask", #"{"pack":"askpack","prompt":"caption this","body":"go"}"#, TestPictures.jpeg)
            #expect(asked.status == 200, "\(asked.text)")
            let ask = try #require(asked.json?["id"] as? String)
            let got = try await c.request("GET", "/api/v1/picture/\(ask)", headers: ["Authorization: Bearer \(c.token)"])
            #expect(got.status == 200 && got.headers["content-type"] == "image/jpeg")
            let caption = try #require(try await c.post("comment", "{\"target\":\"\(ask)\",\"text\":\"a cat\"}").json?["id"] as? String)
            let picked = try await c.post("pick", "{\"caption\":\"\(caption)\"}")
            #expect(picked.status == 200, "\(picked.text)")
            let shown = try await c.post("show", "{\"post\":\"\(ask)\"}")
            #expect((shown.json?["post"] as? [String: Any])?["ask"] as? Bool == true)
            #expect((shown.json?["post"] as? [String: Any])?["picked"] as? String == caption)
        }
    }

    @Test func swipeKeysFavouriteAndUndo() async throws {
        try await withNodes("swipe") { n async throws in
            let c = n.client
            #expect(try await c.post("create", #"{"name":"housing","radius":500}"#).status == 200)
            for address in ["1 Oak St", "2 Oak St"] {
                let added = try await c.post("place-add", "{\"address\":\"\(address)\",\"pack\":\"housing\",\"rent\":\"700\",\"beds\":2}")
                #expect(added.status == 200, "\(added.text)")
            }
            let card = try await c.post("swipe", "{}")
            let first = try #require((card.json?["swipe"] as? [String: Any])?["id"] as? String)
            #expect(card.json?["left"] as? Int == 1)
            let keyPath = "swipe-key"
            #expect(try await c.post(keyPath, "{\"key\":\"y\",\"place\":\"\(first)\"}", auth: .some(nil)).status == 401)
            #expect(try await c.post(keyPath, "{\"key\":\"q\",\"place\":\"\(first)\"}").status == 400)
            #expect(try await c.post(keyPath, "{\"key\":\"y\",\"place\":\"\(first.prefix(8))\"}").status == 400)
            let yes = try await c.post(keyPath, "{\"key\":\"y\",\"place\":\"\(first)\"}")
            #expect(yes.status == 200, "\(yes.text)")
            #expect(yes.json?["message"] as? String == "favourite")
            #expect((yes.json?["swipe"] as? [String: Any])?["id"] as? String != first)
            let favs = try await c.post("favs", "{}")
            #expect((favs.json?["favs"] as? [[String: Any]])?.map { $0["id"] as? String } == [first])
            let undo = try await c.post(keyPath, #"{"key":"u"}"#)
            #expect(undo.status == 200)
            #expect((undo.json?["swipe"] as? [String: Any])?["id"] as? String == first)
            #expect((try await c.post("favs", "{}").json?["favs"] as? [[String: Any]])?.isEmpty == true)
        }
    }

    @Test func aJoinCodeIsGivenAsQRModules() async throws {
        try await withNodes("qr") { n async throws in
            let c = n.client
            let created = try await c.post("create-private", #"{"name":"secret club","radius":500}"#)
            #expect(created.status == 200, "\(created.text)")
            let pack = try #require((created.json?["pack"] as? [String: Any])?["id"] as? String ?? created.json?["id"] as? String)
            let invite = try await c.post("invite", "{\"pack\":\"\(pack)\"}")
            #expect(invite.status == 200, "\(invite.text)")
            let code = try #require(invite.json?["code"] as? String)
            #expect(code.hasPrefix("skw-"))
            #expect(try await c.post("qr", "{\"text\":\"\(code)\"}", auth: .some(nil)).status == 401)
            let qr = try await c.post("qr", "{\"text\":\"\(code)\"}")
            #expect(qr.status == 200, "\(qr.text)")
            let size = try #require(qr.json?["size"] as? Int)
            let rows = try #require(qr.json?["rows"] as? [String])
            // A QR symbol is 21 + 4k modules square; finder patterns at three corners.
            #expect(size >= 21 && (size - 21) % 4 == 0 && rows.count == size)
            #expect(rows.allSatisfy { $0.count == size && $0.allSatisfy { $0 == "0" || $0 == "1" } })
            #expect(rows[0].hasPrefix("1111111") && rows[0].hasSuffix("1111111") && rows[size - 1].hasPrefix("1111111"))
            #expect(try await c.post("qr", #"{"text":""}"#).status == 400)
            #expect(try await c.post("qr", "{\"text\":\"\(String(repeating: "a", count: 513))\"}").status == 400)
            // `qr` and `swipe-key` are the page's routes, not verbs: the registry's verbs still answer.
            #expect(try await c.post("swipe").status == 200)
        }
    }

    @Test func theCSPLetsPicturesInOnlyAsBlobs() async throws {
        try await withNodes("csp") { n async throws in
            let csp = try await n.client.request("GET", "/").headers["content-security-policy"] ?? ""
            #expect(csp.contains("img-src 'self' data: blob:;"))
            #expect(csp.contains("connect-src 'self';"))
            // Every screen's script is served, and none writes HTML.
            for name in ["app", "js/feed", "js/pictures", "js/places", "js/messages", "js/finding"] {
                let s = try await n.client.request("GET", "/\(name).js")
                #expect(s.status == 200 && s.headers["content-type"]?.hasPrefix("text/javascript") == true, "\(name)")
                #expect(!s.text.contains("innerHTML") && !s.text.contains("outerHTML") && !s.text.contains("insertAdjacentHTML"))
                #expect(!s.text.contains("document.write") && !s.text.contains("eval("), "\(name)")
            }
        }
    }
}
