import Foundation

/// `bench procs --dms N` (issue 26): node 0 sends N direct messages to the author of a post
/// of the last node, `gapMs` apart, each timed from its commit reply to its `dm` event on the
/// recipient, beside the same posts' latency to that node.
extension ProcessBenchmark {
    func measureDMs(_ nodes: [ChildNode], pack: String, titles: [String], committed: [Double], report: inout Report) async throws {
        guard let first = nodes.first, let last = nodes.last, nodes.count >= 2 else { return }
        for (k, title) in titles.enumerated() {
            if let t = last.arrival(title) { report.postToRecipientMs.append((t - committed[k]) * 1000) }
        }
        // The recipient writes once, so node 0 has someone to write to.
        guard let r = await last.request("post \(pack) \"dm target\" \"write to me\"", timeout: 30), r["ok"] as? Bool == true,
            let target = r["id"] as? String
        else {
            throw Failure(reason: "node \(last.index) could not post the DM target" + detail(last))
        }
        let tTarget = monotonicSeconds()
        while first.arrival("dm target") == nil {
            try checkAlive(nodes)
            if monotonicSeconds() - tTarget > settle + 10 { throw Failure(reason: "node 0 never got the DM target post") }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        let t0 = monotonicSeconds()
        var texts: [String] = [], sentAt: [Double] = [], typedAt: [Double] = []
        for k in 0..<dms {
            let due = t0 + Double(k * gapMs) / 1000
            let wait = due - monotonicSeconds()
            if wait > 0 { try await Task.sleep(nanoseconds: UInt64(wait * 1e9)) }
            let text = "dm \(k)"
            let sent = monotonicSeconds()
            guard let reply = await first.request("dm \(target) \"\(text)\"", timeout: 30), reply["ok"] as? Bool == true else {
                throw Failure(reason: "node 0 could not send a direct message" + detail(first))
            }
            let t = monotonicSeconds()
            texts.append(text); sentAt.append(t); typedAt.append(sent); report.dmCommitMs.append((t - sent) * 1000)
        }
        let keys = texts.map { "dm:" + $0 }
        let end = monotonicSeconds() + settle
        while monotonicSeconds() < end, last.arrivalCount(keys) < keys.count { try await Task.sleep(nanoseconds: 20_000_000) }
        for (k, key) in keys.enumerated() {
            if let t = last.arrival(key) {
                report.dmMs.append((t - sentAt[k]) * 1000)
                report.dmEndToEndMs.append((t - typedAt[k]) * 1000)
            } else {
                report.lostDMs += 1
            }
        }
        if report.lostDMs > 0 && report.reason == nil {
            report.fail("\(report.lostDMs) of \(dms) direct messages did not arrive within \(settle) s of the last")
        }
    }
}
