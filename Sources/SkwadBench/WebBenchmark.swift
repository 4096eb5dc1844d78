import Foundation
import SkwadBrowser

/// `skwad bench web`: three `skwad --json` processes on 127.0.0.1 (A, B, C, joined as the
/// process benchmark joins its herd), C serving its page (`--web`), and one headless Chromium
/// over WebDriver showing C's page. Measured:
/// - the page's load to its first feed (the page's `skwad-first-feed` performance mark, from
///   its navigation start), over `loads` fresh loads;
/// - for each of `posts` posts committed on A: when C's page put it in its feed (a
///   MutationObserver in the page stamps the wall clock to a tenth of a millisecond), when
///   C's REPL printed its `post` event (stamped when this process read the line) and when
///   the event reached a plain WebSocket client of C's page server in this process
///   (`socket_ms`: the server's share of the page's time; the rest is the browser's), each
///   from A's commit reply, on the wall clock of this one machine. `page_over_repl_p50` is the median page time over the
///   median REPL time (the goal is at most 1.2; reported, not enforced); `page_minus_repl_ms`
///   what the page adds to each post (its time on the page less its time to the REPL line,
///   which does not depend on when A's reply was read). `reply_ms`: from writing each post's
///   request to A to reading A's reply, per post in the same order as the other series; a
///   post's time from its request (`reply_ms` + `page_ms`) is positive whatever the load, while
///   a time from the reply may be just below 0 when the reply is read late.
/// Every process (the nodes, chromedriver and its browser) is ended on every path.
struct WebBenchmark {
    let loads: Int, posts: Int, gapMs: Int
    let herdTimeout: Double, settle: Double
    let binary: String

    struct Failure: Error { let reason: String }

    func run() async -> String {
        signal(SIGPIPE, SIG_IGN)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-bench-web-\(UUID().uuidString)").path
        let children = ChildRegistry()
        let driverBox = DriverBox()
        let signals = children.endOnSignals(removing: dir, bench: "web") { driverBox.driver?.kill() }
        var out: String
        do {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            out = try await measure(dir: dir, children: children, driverBox: driverBox)
        } catch let f as Failure {
            out = BenchFailure.json(bench: "web", reason: f.reason)
        } catch {
            out = BenchFailure.json(bench: "web", reason: "\(error)")
        }
        if let d = driverBox.driver { await d.close() }
        signals.forEach { $0.cancel() }
        children.stopAll()
        try? FileManager.default.removeItem(atPath: dir)
        return out
    }

    /// Wall-clock seconds of a `monotonicSeconds` reading (the offset read once, back to back).
    private static let wallOffset: Double = Date().timeIntervalSince1970 - monotonicSeconds()

    private func measure(dir: String, children: ChildRegistry, driverBox: DriverBox) async throws -> String {
        if let why = ChromeDriver.missing { throw Failure(reason: why) }
        let procs = ProcessBenchmark(
            count: 3, idleSeconds: 0, posts: 0, gapMs: 0, bodyBytes: 1, herdTimeout: herdTimeout, packTimeout: 30, settle: settle,
            deadPeerTimeout: 0, binary: binary, hosts: nil)
        // A, then B and C seeded with A; C serves its page on 127.0.0.1 (a port the OS picks).
        let a = try procs.start(0, seeds: [], dir: dir, children: children)
        guard let seed = await a.request("whoami", timeout: 20)?["listen"] as? String else {
            throw Failure(reason: "node A gave no listen address" + procs.detail(a))
        }
        let b = try procs.start(1, seeds: [seed], dir: dir, children: children)
        let c = try procs.start(2, seeds: [seed], dir: dir, children: children, extra: ["--web"])
        var addresses = [seed]
        for n in [b, c] {
            guard let address = await n.request("whoami", timeout: 30)?["listen"] as? String else {
                throw Failure(reason: "node \(n.index) gave no listen address" + procs.detail(n))
            }
            addresses.append(address)
        }
        let nodes = [a, b, c]
        let t0 = monotonicSeconds()
        while !(await procs.herdJoined(nodes, addresses)) {
            if monotonicSeconds() - t0 > herdTimeout { throw Failure(reason: "no herd join within \(herdTimeout) s") }
            try procs.checkAlive(nodes)
            try await Task.sleep(nanoseconds: 250_000_000)
        }
        guard let url = c.webURL else { throw Failure(reason: "node C printed no web page address" + procs.detail(c)) }

        // One pack from A that B and C join, with a post in it so that the first feed has one.
        guard let created = await a.request("create webbench --radius 1000", timeout: 60), created["ok"] as? Bool == true,
            let pack = created["id"] as? String
        else { throw Failure(reason: "node A could not create the pack" + procs.detail(a)) }
        for n in [b, c] {
            let tPack = monotonicSeconds()
            while await n.request("join \(pack)", timeout: 10)?["ok"] as? Bool != true {
                try procs.checkAlive(nodes)
                if monotonicSeconds() - tPack > 30 { throw Failure(reason: "node \(n.index) never got the pack within 30 s") }
                try await Task.sleep(nanoseconds: 200_000_000)
            }
        }
        guard await a.request("post \(pack) \"first\" \"in the feed\"", timeout: 30)?["ok"] as? Bool == true else {
            throw Failure(reason: "node A could not post" + procs.detail(a))
        }

        let driver = try await ChromeDriver.start()
        driverBox.driver = driver
        let page = try await driver.session(width: 1280, height: 800)
        // (a) Loads: navigation start to the first feed, as the page's own timeline has it.
        var firstFeed: [Double] = []
        for _ in 0..<loads {
            try await page.navigate("about:blank")
            try await page.navigate(url)
            let mark = "performance.getEntriesByName('skwad-first-feed').map(e => e.startTime).join('')"
            let ms = Double(await waitNonEmpty(page, mark, seconds: 30))
            guard let ms, ms > 0 else { throw Failure(reason: "C's page showed no feed within 30 s") }
            firstFeed.append(ms)
        }

        // (b) Posts from A: C's page and C's REPL, each from A's commit.
        let live = "document.getElementById('live').textContent"
        guard await page.wait(for: live, toBe: "live", seconds: 30) == "live" else {
            throw Failure(reason: "C's page did not go live")
        }
        try await page.execute(
            """
            window.__skwadSeen = {};
            new MutationObserver((records) => {
              const now = performance.timeOrigin + performance.now();
              for (const r of records) for (const n of r.addedNodes) {
                const t = n.querySelector && n.querySelector('.title');
                if (t && !(t.textContent in window.__skwadSeen)) window.__skwadSeen[t.textContent] = now;
              }
            }).observe(document.getElementById('feed-list'), { childList: true });
            """)
        let socket = try await SocketWatch(url: url, seconds: settle + Double(posts * gapMs) / 1000 + 120)
        defer { socket.stop() }
        var titles: [String] = [], committed: [Double] = [], asked: [Double] = []
        for k in 0..<posts {
            if k > 0 { try await Task.sleep(nanoseconds: UInt64(gapMs) * 1_000_000) }
            let title = "web \(k)"
            let askedAt = monotonicSeconds() + Self.wallOffset
            guard let r = await a.request("post \(pack) \"\(title)\" \"timed\"", timeout: 30), r["ok"] as? Bool == true else {
                throw Failure(reason: "node A could not post" + procs.detail(a))
            }
            titles.append(title)
            asked.append(askedAt)
            committed.append((r[ChildNode.readAtKey] as? Double ?? monotonicSeconds()) + Self.wallOffset)
        }
        let settleEnd = monotonicSeconds() + settle
        var seen: [String: Double] = [:]
        while monotonicSeconds() < settleEnd {
            let json = await page.evaluate("JSON.stringify(window.__skwadSeen)")
            seen = ((try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Double]) ?? seen
            if titles.allSatisfy({ seen[$0] != nil && c.arrival($0) != nil && socket.arrival($0) != nil }) { break }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        var pageMs: [Double] = [], replMs: [Double] = [], socketMs: [Double] = [], extraMs: [Double] = [], replyMs: [Double] = []
        var lost = 0
        for (k, title) in titles.enumerated() {
            guard let shown = seen[title], let printed = c.arrival(title), let heard = socket.arrival(title) else {
                lost += 1
                continue
            }
            pageMs.append(shown - committed[k] * 1000)
            replMs.append((printed + Self.wallOffset - committed[k]) * 1000)
            socketMs.append((heard + Self.wallOffset - committed[k]) * 1000)
            extraMs.append(pageMs.last! - replMs.last!)
            replyMs.append((committed[k] - asked[k]) * 1000)
        }
        try procs.checkAlive(nodes)
        let pageMedian = Self.median(pageMs), replMedian = Self.median(replMs)
        let ratio = replMedian.map { r in pageMedian.map { $0 / max(r, 0.001) } } ?? nil
        var fields: [(String, String)] = [
            ("bench", "\"web\""), ("nodes", "3"), ("loads", "\(loads)"), ("posts", "\(posts)"),
            ("first_feed_ms", Self.series(firstFeed)), ("page_ms", Self.series(pageMs)), ("repl_ms", Self.series(replMs)),
            ("socket_ms", Self.series(socketMs)), ("page_minus_repl_ms", Self.series(extraMs)),
            ("reply_ms", Self.series(replyMs)),
            ("page_over_repl_p50", ratio.map { Self.number($0) } ?? "null"), ("goal_page_over_repl", "1.2"),
            ("within_goal", ratio.map { $0 <= 1.2 ? "true" : "false" } ?? "null"), ("lost_posts", "\(lost)"),
            ("converged", lost == 0 ? "true" : "false")
        ]
        if lost > 0 {
            fields.append(("reason", "\"\(lost) of \(posts) posts were not shown, printed and heard on the socket within \(settle) s\""))
        }
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    /// Polls `js` until it is not empty (at most `seconds`).
    private func waitNonEmpty(_ page: WebDriverSession, _ js: String, seconds: Double) async -> String {
        let deadline = monotonicSeconds() + seconds
        while monotonicSeconds() < deadline {
            let v = await page.evaluate(js)
            if !v.isEmpty { return v }
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
        return ""
    }

    static func median(_ xs: [Double]) -> Double? {
        guard !xs.isEmpty else { return nil }
        let s = xs.sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }

    static func number(_ x: Double) -> String { String(format: "%.3f", x) }

    /// `{"p50":M,"runs":[…]}` (the median; null when there are none).
    static func series(_ xs: [Double]) -> String {
        "{\"p50\":\(median(xs).map(number) ?? "null"),\"runs\":[\(xs.map(number).joined(separator: ","))]}"
    }
}

/// The driver once started, for the signal handler.
final class DriverBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value: ChromeDriver?
    var driver: ChromeDriver? {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}
