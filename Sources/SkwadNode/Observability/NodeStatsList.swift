import Foundation

extension Node {
    /// What `stats` shows: the node's counters and, online, the gossip engine's, one key
    /// each (a name both keep, such as `ops.duplicate`, is summed).
    public func counters() -> [(String, Int)] {
        let s = stats
        var local: [(String, Int)] = [
            ("ops.local", s.localOps), ("ops.in_replica", whoami().ops),
            ("ops.admitted_remote", s.admitted), ("ops.duplicate", s.duplicates),
            ("ops.pending", s.pending), ("store.errors", s.storeErrors),
            ("store.rows_skipped", s.storeRowsSkipped), ("packs.purged", s.packsPurged),
            ("dm.receipts_not_sent", s.receiptsNotSent), ("private.held", s.heldOps),
            ("private.resealed", s.heldResealed), ("private.held_dropped", s.heldDropped),
            ("private.late_handouts", s.lateHandouts), ("private.handouts_failed", s.handoutsFailed)
        ]
        local += s.rejected.sorted { $0.key < $1.key }.map { ("ops.rejected.\($0.key)", $0.value) }
        return Self.merged(local, networkStats())
    }

    /// Every counter of this node as one flat list (`counters`, plus peers and the
    /// process's resident memory): the source of the metrics and of the drop summary.
    public func statsPairs() -> [(String, Int)] {
        var out = counters()
        let peers = peerSummaries()
        out += [
            ("peers.active", peers.filter { $0.state == "active" }.count),
            ("peers.passive", peers.filter { $0.state == "passive" }.count)
        ]
        if let rss = ProcessMemory.residentBytes() { out.append(("process.resident_memory_bytes", rss)) }
        return out
    }

    /// Two counter lists as one, a key both hold summed, in first-seen order.
    static func merged(_ a: [(String, Int)], _ b: [(String, Int)]) -> [(String, Int)] {
        var out = a
        var at: [String: Int] = [:]
        for (i, kv) in out.enumerated() where at[kv.0] == nil { at[kv.0] = i }
        for (k, v) in b {
            if let i = at[k] { out[i].1 += v } else { at[k] = out.count; out.append((k, v)) }
        }
        return out
    }
}

/// This process's memory, from /proc (Linux); nil elsewhere.
public enum ProcessMemory {
    public static func residentBytes() -> Int? { bytes("VmRSS:", in: "status") }

    /// A `Key:  N kB` line of `/proc/PID/FILE` (`status`, `smaps_rollup`), in bytes; nil when
    /// the file or the key is missing.
    public static func bytes(_ key: String, in file: String, pid: String = "self") -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/\(file)", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix(key) }),
            let kb = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap({ Int($0) })
        else { return nil }
        return kb * 1024
    }
}
