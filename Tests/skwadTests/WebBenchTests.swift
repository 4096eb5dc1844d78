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
        #expect((page["runs"] as? [Double])?.count == 2)
        #expect((page["p50"] as? Double ?? 0) > 0)
        // C's REPL event against A's commit reply: two pipes read by two threads, so a number
        // that may be just below 0 when the two lines are read in the other order.
        #expect((o["repl_ms"] as? [String: Any])?["p50"] is Double)
        #expect(((o["socket_ms"] as? [String: Any])?["runs"] as? [Double])?.count == 2)
        #expect(o["page_over_repl_p50"] is Double)
        #expect((o["page_minus_repl_ms"] as? [String: Any])?["p50"] is Double)
        #expect(o["goal_page_over_repl"] as? Double == 1.2)
    }
}
