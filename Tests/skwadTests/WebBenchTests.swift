import Foundation
import SkwadTestKit
import Testing

/// `skwad bench web` at a tiny size: three real node processes, C's page in headless Chromium
/// over WebDriver. Checks the JSON's shape and that the times are positive numbers; the ratio
/// against the goal is reported by the bench, never asserted here.
@Suite(.serialized) struct WebBenchTests {
    @Test func theWebBenchReportsLoadAndDeliveryTimes() throws {
        if let why = ChromeDriver.missing {
            print("WebBenchTests: \(why); the bench was not run")
            Issue.record("\(why): the web bench was not run")
            return
        }
        let r = try BinaryTests.run(
            ["bench", "web", "--loads", "2", "--posts", "2", "--gap-ms", "200", "--settle", "30"], input: "", seconds: 240)
        #expect(r.status == 0, "stderr: \(r.err)")
        let line = try #require(r.out.split(separator: "\n").last)
        let o = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(o["bench"] as? String == "web")
        #expect(o["converged"] as? Bool == true, "\(o)")
        #expect(o["lost_posts"] as? Int == 0)
        let load = try #require(o["first_feed_ms"] as? [String: Any])
        #expect((load["runs"] as? [Double])?.count == 2)
        #expect((load["p50"] as? Double ?? 0) > 0)
        let page = try #require(o["page_ms"] as? [String: Any])
        let pageRuns = try #require(page["runs"] as? [Double])
        #expect(pageRuns.count == 2)
        #expect(page["p50"] is Double)
        // From A's reply a post may reach the page first when the reply is read late (a loaded
        // machine); from its request it cannot: the page shows each post after it was asked for.
        let replyRuns = try #require((o["reply_ms"] as? [String: Any])?["runs"] as? [Double])
        #expect(replyRuns.count == 2 && replyRuns.allSatisfy { $0 > 0 })
        #expect(zip(pageRuns, replyRuns).allSatisfy { $0 + $1 > 0 }, "page \(pageRuns), reply \(replyRuns)")
        // C's REPL event against A's commit reply: two pipes read by two threads, so a number
        // that may be just below 0 when the two lines are read in the other order.
        #expect((o["repl_ms"] as? [String: Any])?["p50"] is Double)
        #expect(((o["socket_ms"] as? [String: Any])?["runs"] as? [Double])?.count == 2)
        #expect(o["page_over_repl_p50"] is Double)
        #expect((o["page_minus_repl_ms"] as? [String: Any])?["p50"] is Double)
        #expect(o["goal_page_over_repl"] as? Double == 1.2)
    }
}
