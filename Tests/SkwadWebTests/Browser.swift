import Foundation
import SkwadTestKit
import Testing

/// The browsers of one test: a chromedriver process (SkwadBrowser's `ChromeDriver`) and the
/// pages it opened, each a headless Chromium of its own. `close` ends them all; every wait
/// is bounded.
final class Browser: @unchecked Sendable {
    let driver: ChromeDriver

    private init(_ driver: ChromeDriver) { self.driver = driver }

    static func start() async throws -> Browser { Browser(try await ChromeDriver.start()) }

    /// A new browser showing `url`, its page `width` × `height` (with `touch`, a phone's).
    func open(_ url: String, width: Int = 375, height: Int = 812, touch: Bool = false) async throws -> WebDriverSession {
        let page = try await driver.session(width: width, height: height, touch: touch)
        try await page.navigate(url)
        return page
    }

    func close() async { await driver.close() }
}

extension WebDriverSession {
    /// A tap on the element matching `selector`, once it has stopped moving (a swipe just
    /// before may still be moving the page): two readings 50 ms apart that agree, at most 40
    /// tries, then two frames drawn.
    func tap(_ selector: String) async throws {
        var c = try await centre(of: selector)
        for _ in 0..<40 {
            try? await Task.sleep(nanoseconds: 50_000_000)
            let again = try await centre(of: selector)
            if again == c { break }
            c = again
        }
        _ = await evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r('drawn'))))")
        try await tap(try #require(try await find(selector), "no element \(selector)"))
    }
}

extension WebDriverSession {
    /// A click (WebDriver's: scrolled into view, at its centre) on the element matching `selector`.
    func click(_ selector: String) async throws {
        try await click(try #require(try await find(selector), "no element \(selector)"))
    }

    /// `text` typed into the element matching `selector`.
    func type(_ selector: String, _ text: String) async throws {
        try await sendKeys(try #require(try await find(selector), "no element \(selector)"), text)
    }
}

extension RawClient {
    /// `POST /api/v1/VERB` with `body`; `auth` is the header line to send (nil: none).
    func post(
        _ verb: String, _ body: String = "{}", auth: String?? = .none, host hostHeader: String? = nil, extra: [String] = []
    ) async throws -> RawResponse {
        let authLine: String? =
            switch auth {
            case .none: "Authorization: Bearer \(token)"
            case .some(let given): given
            }
        return try await request(
            "POST", "/api/v1/\(verb)", headers: (authLine.map { [$0] } ?? []) + extra, body: Array(body.utf8), host: hostHeader)
    }

    /// Opens `GET /api/v1/events` as a WebSocket with `headers`.
    func webSocket(headers: [String]) async throws -> (RawConnection?, RawResponse) {
        try await webSocket("/api/v1/events", headers: headers)
    }
}
