// libFuzzer target: REPL lines into a node. One node per fuzzing process, opened fresh
// (new temporary data directory, offline, proof-of-work 4 bits) at start; each input is
// split into at most 8 lines, each handled as typed. Built only with SKWAD_FUZZ=1
// (scripts/fuzz.sh).
import Foundation
import SkwadNode
import SkwadREPL

final class Box<T>: @unchecked Sendable { var value: T?; init() {} }

let repl: REPL = {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-fuzz-\(getpid())").path
    try? FileManager.default.removeItem(atPath: dir)
    var c = NodeConfig(dataDir: dir)
    c.powBits = 4
    let node = try! Node(config: c)
    return REPL(executor: Executor(node: node), reader: LineReader(interactive: false, historyPath: nil), mode: .plain)
}()

/// Runs async work to completion from libFuzzer's synchronous callback.
func block(_ work: @escaping @Sendable () async -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task { await work(); done.signal() }
    done.wait()
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzREPL(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).prefix(8).map(String.init)
    let r = repl
    block {
        for line in lines { _ = await r.handle(line, nowMs: 1_790_000_000_000) }
    }
    return 0
}
