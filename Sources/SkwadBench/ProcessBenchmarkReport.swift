import Foundation

/// What `bench procs` measured, as one JSON object; a run that failed says why
/// (`"converged": false`, `"reason"`) and keeps what it measured before.
struct Report {
    let count: Int, testbed: Bool
    var converged = false
    var reason: String?
    var herdJoinSeconds: Double?
    var packSpreadSeconds: Double?
    /// Seconds from killing one node until no other node lists it as active (nil: not seen).
    var deadPeerSeconds: Double?
    var idleBytesPerSecond: [Double] = []
    /// CPU milliseconds per second per node over the idle window (/proc, 10 ms ticks).
    var idleCPUMsPerSecond: [Double] = []
    /// CPU milliseconds per post per node over the post window, less the idle rate: with every
    /// node on one machine, the post's spread is bounded below by their sum over the cores.
    var extraCPUMsPerPost: [Double] = []
    /// Idle window, mean per node per second: messages (`sent.KIND`) and their plaintext
    /// bytes (`sent_bytes.KIND`) by kind.
    var idleByKind: [String: Double] = [:]
    /// The same over the post window, per post per node, less the idle rate: what a post costs.
    var perPostByKind: [String: Double] = [:]
    var rssIdle: [Int] = []
    /// The anonymous part of that (the node's own heap and stacks) and the proportional
    /// share (pages shared among the nodes, such as the binary's, divided among them).
    var anonIdle: [Int] = []
    var pssIdle: [Int] = []
    var rssAfterPosts: [Int] = []
    var postCommitMs: [Double] = []
    var extraBytesPerPost: [Double] = []
    var lastNodeMs: [Double] = []
    /// Per post, in order (nil: it did not reach every node): shows slow first posts.
    var lastNodeMsByPost: [Double?] = []
    /// Per post that reached every node: from writing the `post` command to the last node's
    /// event. Never negative, unlike `lastNodeMs`: node 0 sends the op before it writes its
    /// reply, and the reply and the events are read from separate pipes, so on a loaded
    /// machine (or when delivery takes less than the reply) an event can be read first.
    var lastNodeEndToEndMs: [Double] = []
    var everyNodeMs: [Double] = []
    var lostPosts = 0
    /// Drop and rejection counters summed over the nodes at the end.
    var drops: [String: Int] = [:]
    var lostDeliveries = 0
    /// Direct messages (`--dms`): commit time, latency to the recipient, and the posts'
    /// latency to the same node for comparison; how many never arrived.
    var dmCommitMs: [Double] = []
    var dmMs: [Double] = []
    /// From writing the `dm` command to the recipient's event: sealing and the carrier's stamp
    /// included, and never negative (the commit reply and the recipient's event are read from
    /// two pipes, so on a loaded machine the event can be read first: `dm_ms` below 0).
    var dmEndToEndMs: [Double] = []
    var postToRecipientMs: [Double] = []
    var lostDMs = 0

    mutating func fail(_ why: String) { converged = false; reason = why }

    /// The value at quantile `q` (nearest rank), nil when empty.
    static func quantile(_ xs: [Double], _ q: Double) -> Double? {
        guard !xs.isEmpty else { return nil }
        let s = xs.sorted()
        return s[min(s.count - 1, max(0, Int((Double(s.count) * q).rounded(.up)) - 1))]
    }

    private static func round(_ x: Double?, _ digits: Int = 1) -> Any {
        guard let x, x.isFinite else { return NSNull() }
        let p = pow(10, Double(digits))
        return (x * p).rounded() / p
    }

    private static func summary(_ xs: [Double], digits: Int = 1) -> [String: Any] {
        [
            "p50": round(quantile(xs, 0.5), digits), "p90": round(quantile(xs, 0.9), digits),
            "max": round(xs.max(), digits), "mean": round(xs.isEmpty ? nil : xs.reduce(0, +) / Double(xs.count), digits)
        ]
    }

    func json() -> String {
        let mib = { (xs: [Int]) in Self.summary(xs.map { Double($0) / 1_048_576 }) }
        var o: [String: Any] = [
            "bench": "procs", "nodes": count, "testbed": testbed, "converged": converged,
            "herd_join_s": Self.round(herdJoinSeconds, 2), "pack_spread_s": Self.round(packSpreadSeconds, 2),
            "dead_peer_detected_s": Self.round(deadPeerSeconds, 2),
            "posts": postCommitMs.count, "lost_posts": lostPosts, "lost_deliveries": lostDeliveries,
            "last_node_ms": Self.summary(lastNodeMs), "last_node_ms_by_post": lastNodeMsByPost.map { Self.round($0) },
            "last_node_end_to_end_ms": Self.summary(lastNodeEndToEndMs), "every_node_ms": Self.summary(everyNodeMs),
            "post_commit_ms": Self.summary(postCommitMs), "drops": drops,
            "idle_ip_bytes_per_s_per_node": Self.summary(idleBytesPerSecond),
            "idle_per_s_per_node_by_kind": idleByKind.mapValues { Self.round($0, 2) },
            "extra_per_post_per_node_by_kind": perPostByKind.mapValues { Self.round($0, 2) },
            "extra_ip_bytes_per_post_per_node": Self.summary(extraBytesPerPost),
            "idle_cpu_ms_per_s_per_node": Self.summary(idleCPUMsPerSecond, digits: 2),
            "extra_cpu_ms_per_post_per_node": Self.summary(extraCPUMsPerPost, digits: 2),
            "rss_idle_mib": mib(rssIdle), "rss_anon_idle_mib": mib(anonIdle), "pss_idle_mib": mib(pssIdle),
            "rss_after_posts_mib": mib(rssAfterPosts)
        ]
        if !dmCommitMs.isEmpty {
            o["dms"] = dmCommitMs.count; o["lost_dms"] = lostDMs
            o["dm_commit_ms"] = Self.summary(dmCommitMs); o["dm_ms"] = Self.summary(dmMs)
            o["dm_end_to_end_ms"] = Self.summary(dmEndToEndMs)
            o["post_to_dm_recipient_ms"] = Self.summary(postToRecipientMs)
            o["dm_over_post_p50"] = Self.round(
                Self.quantile(dmMs, 0.5).flatMap { d in Self.quantile(postToRecipientMs, 0.5).map { d / max($0, 0.001) } }, 2)
        }
        if let reason { o["reason"] = reason }
        guard let data = try? JSONSerialization.data(withJSONObject: o, options: [.sortedKeys]) else {
            return #"{"bench":"procs","converged":false,"reason":"report not encodable"}"#
        }
        return String(decoding: data, as: UTF8.self)
    }
}
