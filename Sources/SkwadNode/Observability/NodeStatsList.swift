import Foundation

extension Node {
    /// Every counter of this node as one flat list (what `stats` shows, plus peers and the
    /// process's resident memory): the source of the metrics and of the drop summary.
    public func statsPairs() -> [(String, Int)] {
        let s = stats
        var out: [(String, Int)] = [("ops.local", s.localOps), ("ops.in_replica", whoami().ops),
                                    ("ops.admitted_remote", s.admitted), ("ops.duplicate_remote", s.duplicates),
                                    ("ops.pending", s.pending), ("store.errors", s.storeErrors),
                                    ("store.rows_skipped", s.storeRowsSkipped), ("packs.purged", s.packsPurged)]
        out += s.rejected.sorted { $0.key < $1.key }.map { ("ops.rejected.\($0.key)", $0.value) }
        let peers = peerSummaries()
        out += [("peers.active", peers.filter { $0.state == "active" }.count),
                ("peers.passive", peers.filter { $0.state == "passive" }.count)]
        out += networkStats()
        if let rss = ProcessMemory.residentBytes() { out.append(("process.resident_memory_bytes", rss)) }
        return out
    }
}

/// This process's memory, from /proc (Linux); nil elsewhere.
public enum ProcessMemory {
    public static func residentBytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kb = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return nil }
        return kb * 1024
    }
}
