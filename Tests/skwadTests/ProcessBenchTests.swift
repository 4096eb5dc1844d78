import Foundation
import Testing

/// `skwad bench procs`: real processes, and failure reported as JSON rather than an exit.
@Suite(.serialized) struct ProcessBenchTests {
    func report(_ args: [String]) throws -> [String: Any] {
        let r = try BinaryTests.run(["bench", "procs"] + args, input: "", seconds: 120)
        #expect(r.status == 0, "stderr: \(r.err)")
        let line = try #require(r.out.split(separator: "\n").last)
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test func threeProcessesDeliverEveryPostAndReportTheirCosts() throws {
        let o = try report(["--nodes", "3", "--idle", "1", "--posts", "3", "--gap-ms", "200", "--settle", "10"])
        #expect(o["converged"] as? Bool == true, "\(o)")
        #expect(o["lost_posts"] as? Int == 0)
        #expect(o["posts"] as? Int == 3)
        #expect((o["herd_join_s"] as? Double ?? -1) >= 0)
        // From node 0's commit reply: a number, which may be just below 0 (an event read before
        // the reply); from writing the command: above 0 whatever order the pipes are read in.
        let last = try #require(o["last_node_ms"] as? [String: Any])
        #expect(last["p50"] is Double)
        let endToEnd = try #require(o["last_node_end_to_end_ms"] as? [String: Any])
        #expect((endToEnd["p50"] as? Double ?? -1) > 0)
        #expect((o["last_node_ms_by_post"] as? [Any])?.count == 3)
        let idle = try #require(o["idle_ip_bytes_per_s_per_node"] as? [String: Any])
        #expect((idle["p50"] as? Double ?? 0) > 0)
        let rss = try #require(o["rss_idle_mib"] as? [String: Any])
        #expect((rss["p50"] as? Double ?? 0) > 1)
        let extra = try #require(o["extra_ip_bytes_per_post_per_node"] as? [String: Any])
        #expect(extra["mean"] is Double)
        // The last node is killed at the end: the others stop listing it as active.
        #expect((o["dead_peer_detected_s"] as? Double ?? -1) > 0, "\(o["dead_peer_detected_s"] ?? "nil")")
    }

    @Test func directMessagesAreTimedBesideThePosts() throws {
        let o = try report([
            "--nodes", "3", "--idle", "0", "--posts", "2", "--gap-ms", "200", "--settle", "10", "--dms", "3",
            "--dead-peer-timeout", "0"
        ])
        #expect(o["converged"] as? Bool == true, "\(o)")
        #expect(o["dms"] as? Int == 3 && o["lost_dms"] as? Int == 0)
        // From typing to arrival: positive whatever order the parent reads the two pipes in.
        let dm = try #require(o["dm_end_to_end_ms"] as? [String: Any])
        #expect((dm["p50"] as? Double ?? -1) > 0)
        #expect((o["dm_ms"] as? [String: Any])?["p50"] is Double)
        #expect(o["dm_over_post_p50"] is Double)
    }

    @Test func aNodeThatNeverStartsIsReportedNotThrown() throws {
        let o = try report(["--nodes", "2", "--binary", "/bin/false"])
        #expect(o["converged"] as? Bool == false)
        #expect((o["reason"] as? String ?? "").contains("node 0"))
    }
}
