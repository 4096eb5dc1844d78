#if canImport(Glibc)
    import Glibc
#endif

/// The process's code pages after start-up (Linux).
///
/// Parsing arguments and config, opening and migrating the store, and the first
/// handshakes run code an idle node never runs again; each page fault maps the 64 KiB
/// fault-around window around the page, so an idle node kept
/// ~15 MiB of file pages it does not use (docs/BENCHMARKS.md, "Memory"). `trimStartupCode` unmaps
/// them once: the pages stay in the shared
/// page cache, and whatever the node runs again faults back in. Only file mappings that
/// are executable or read-only and hold no anonymous page are touched: no page of theirs
/// differs from the file, so dropping them loses nothing (relocated RELRO data, written
/// pages and writable mappings are left alone).
public enum WorkingSet {
    /// Unmaps this process's unmodified read-only and executable file pages; returns the
    /// bytes of mappings advised (0 where unsupported).
    @discardableResult
    public static func trimStartupCode() -> Int {
        #if os(Linux)
            guard let f = fopen("/proc/self/smaps", "r") else { return 0 }
            defer { fclose(f) }
            // Candidates: executable or read-only file mappings, kept only if `Anonymous: 0 kB`
            // (no page of theirs was ever copied on write: relocated RELRO data is left alone).
            var ranges: [(UInt, UInt)] = []
            var candidate: (UInt, UInt)?
            var buf = [CChar](repeating: 0, count: 4096)
            while fgets(&buf, Int32(buf.count), f) != nil {
                let line = String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                if fields.count >= 5, fields[0].contains("-"), fields[1].count == 4 {
                    // A mapping's header: address perms offset dev inode [path]
                    candidate = nil
                    let bounds = fields[0].split(separator: "-")
                    guard fields.count >= 6, fields[1] == "r-xp" || fields[1] == "r--p", fields[5].hasPrefix("/"),
                        bounds.count == 2, let lo = UInt(bounds[0], radix: 16), let hi = UInt(bounds[1], radix: 16), hi > lo
                    else { continue }
                    candidate = (lo, hi)
                } else if fields.first == "Anonymous:", let c = candidate {
                    if fields.count >= 2, fields[1] == "0" { ranges.append(c) }
                    candidate = nil
                }
            }
            var advised = 0
            for (lo, hi) in ranges {
                if madvise(UnsafeMutableRawPointer(bitPattern: lo), Int(hi - lo), MADV_DONTNEED) == 0 { advised += Int(hi - lo) }
            }
            return advised
        #else
            return 0
        #endif
    }
}
