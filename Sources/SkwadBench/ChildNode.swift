import Foundation
import SkwadNode

/// Monotonic seconds (the clock every process benchmark time is read on).
func monotonicSeconds() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

/// One `skwad --json` child process, driven through its stdin and timed from outside: every
/// line of its stdout is stamped when this process reads it (one blocking reader thread per
/// child). Replies (`{"ok":...}`) answer requests in order; `{"event":"post"}` lines record
/// the first arrival of each title. Its stdin closing (this process ending, however it ends)
/// makes the child quit at end of input.
final class ChildNode: @unchecked Sendable {
    let index: Int
    let process = Process()
    private let stdin: FileHandle
    private let lock = NSLock()
    private var pending: CheckedContinuation<Reply?, Never>?
    private var pendingID = 0
    private var arrivals: [String: Double] = [:]
    private var stderrTail: [String] = []
    private var exitStatus: Int32?
    private var web: String?

    /// `launcher` goes before the binary (e.g. `ip netns exec NAME`).
    init(index: Int, binary: String, args: [String], launcher: [String]) throws {
        self.index = index
        if launcher.isEmpty {
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = args
        } else {
            process.executableURL = URL(fileURLWithPath: launcher[0])
            process.arguments = Array(launcher.dropFirst()) + [binary] + args
        }
        let inPipe = Pipe(), outPipe = Pipe(), errPipe = Pipe()
        // This process's ends are close-on-exec: a child started later (another node, a
        // browser) must not hold this one's stdin open after this process is gone.
        for end in [inPipe.fileHandleForWriting, outPipe.fileHandleForReading, errPipe.fileHandleForReading] {
            _ = fcntl(end.fileDescriptor, F_SETFD, FD_CLOEXEC)
        }
        process.standardInput = inPipe
        process.standardOutput = outPipe
        process.standardError = errPipe
        stdin = inPipe.fileHandleForWriting
        process.terminationHandler = { [weak self] p in
            guard let self else { return }
            self.lock.withLock { self.exitStatus = p.terminationStatus }
            self.answer(nil)
        }
        try process.run()
        let outFD = outPipe.fileHandleForReading.fileDescriptor, errFD = errPipe.fileHandleForReading.fileDescriptor
        Thread.detachNewThread { [self] in readLines(outFD) { self.stdoutLine($0, at: monotonicSeconds()) } }
        Thread.detachNewThread { [self] in readLines(errFD) { self.stderrLine($0) } }
    }

    var pid: Int32 { process.processIdentifier }
    var exited: Int32? { lock.withLock { exitStatus } }
    var lastStderr: String { lock.withLock { stderrTail.joined(separator: " | ") } }
    func arrival(_ title: String) -> Double? { lock.withLock { arrivals[title] } }
    /// The web page's URL (with its token) once the child printed it (`run --web`).
    var webURL: String? { lock.withLock { web } }
    func arrivalCount(_ titles: [String]) -> Int { lock.withLock { titles.filter { arrivals[$0] != nil }.count } }

    /// Sends one command and waits for its reply (nil: timeout, the child ended, or a reply
    /// that is not JSON). One request at a time per child.
    func request(_ line: String, timeout: Double = 10) async -> [String: Any]? {
        if exited != nil { return nil }
        let id: Int = lock.withLock {
            pendingID += 1; return pendingID
        }
        let timer = Task { [weak self] in
            try? await Task.sleep(nanoseconds: UInt64(timeout * 1e9))
            self?.answer(nil, id: id)
        }
        defer { timer.cancel() }
        let reply = await withCheckedContinuation { (c: CheckedContinuation<Reply?, Never>) -> Void in
            let gone: Bool = lock.withLock {
                pending = c; return exitStatus != nil
            }
            if gone { answer(nil, id: id); return }
            do { try stdin.write(contentsOf: Data((line + "\n").utf8)) } catch { answer(nil, id: id) }
        }
        return reply?.object
    }

    /// Closes stdin: the child quits at end of input.
    func closeInput() { try? stdin.close() }

    /// Ends the child: closes stdin, waits until `deadline`, then SIGTERM, then SIGKILL.
    func stop(deadline: Double) {
        closeInput()
        while process.isRunning && monotonicSeconds() < deadline { usleep(20_000) }
        if process.isRunning { kill(pid, SIGTERM) }
        let hard = monotonicSeconds() + 1
        while process.isRunning && monotonicSeconds() < hard { usleep(20_000) }
        if process.isRunning { kill(pid, SIGKILL); process.waitUntilExit() }
    }

    /// CPU seconds used so far (user + system, /proc/PID/stat at 100 ticks a second; nil when
    /// the process is gone).
    var cpuSeconds: Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / 100
    }

    /// Resident set size in bytes, from /proc (nil when the process is gone).
    var rssBytes: Int? { memory?.rss }

    /// Resident memory from /proc: all of it (VmRSS), its anonymous part (RssAnon: the
    /// node's own heap and stacks) and its proportional share (Pss, smaps_rollup: pages
    /// shared with the other nodes, such as the binary's, divided among them).
    struct Memory { let rss: Int; let anon: Int; let pss: Int? }
    var memory: Memory? {
        let id = String(pid)
        guard let rss = ProcessMemory.bytes("VmRSS:", in: "status", pid: id),
            let anon = ProcessMemory.bytes("RssAnon:", in: "status", pid: id)
        else { return nil }
        return Memory(rss: rss, anon: anon, pss: ProcessMemory.bytes("Pss:", in: "smaps_rollup", pid: id))
    }

    /// The key a reply carries its read time under (`monotonicSeconds`).
    static let readAtKey = "_readAt"

    /// A parsed reply (JSON objects are not Sendable; this one is read once, by the requester).
    struct Reply: @unchecked Sendable { let object: [String: Any] }

    private func answer(_ reply: Reply?, id: Int? = nil) {
        let c: CheckedContinuation<Reply?, Never>? = lock.withLock {
            if let id, id != pendingID { return nil }
            defer { pending = nil }
            return pending
        }
        c?.resume(returning: reply)
    }

    private func stdoutLine(_ line: Substring, at t: Double) {
        if line.hasPrefix("skwad: web page at ") {
            lock.withLock { web = String(line.dropFirst("skwad: web page at ".count)) }
        } else if line.hasPrefix("{\"ok\"") {
            var obj =
                (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? ["ok": false, "error": "unparsable reply"]
            // When the line was read, as arrivals are stamped: the requester may resume later.
            obj[Self.readAtKey] = t
            answer(Reply(object: obj))
        } else if line.hasPrefix("{\"event\":\"post\""),
            let obj = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any],
            let post = obj["post"] as? [String: Any], let title = post["title"] as? String
        {
            lock.withLock { if arrivals[title] == nil { arrivals[title] = t } }
        } else if line.hasPrefix("{\"event\":\"dm\""),
            let obj = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any],
            let m = obj["message"] as? [String: Any], let text = m["text"] as? String
        {
            // A direct message's arrival, under its text with a prefix no post title takes here.
            lock.withLock { if arrivals["dm:" + text] == nil { arrivals["dm:" + text] = t } }
        }
    }

    private func stderrLine(_ line: Substring) {
        lock.withLock {
            stderrTail.append(String(line.prefix(300)))
            if stderrTail.count > 3 { stderrTail.removeFirst() }
        }
    }
}

/// Reads `fd` to its end, calling `body` with each line (without its newline).
private func readLines(_ fd: Int32, _ body: (Substring) -> Void) {
    var buffer = [UInt8](repeating: 0, count: 65_536)
    var partial: [UInt8] = []
    while true {
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { break }
        partial.append(contentsOf: buffer[0..<n])
        while let nl = partial.firstIndex(of: 10) {
            body(Substring(String(decoding: partial[..<nl], as: UTF8.self)))
            partial.removeSubrange(...nl)
        }
        if partial.count > 1 << 20 { partial.removeAll() }  // a runaway line: drop it
    }
}
