// libFuzzer target: REPL lines into a fresh node. Each input is split into at most 8 lines,
// each handled as typed by the production REPL and Executor, against a node opened fresh for
// that input (offline, proof-of-work 4 bits, a fixed clock), so an input's outcome does not
// depend on the inputs before it and a crash reproduces from its file alone. The node's
// store is in memory (`NodeConfig.store = .memory`, an option no config file or flag can
// set) and its data directory (master key, lock) on tmpfs when there is one: a commit then
// costs no fsync. Its proof-of-work floors are off (`NodeConfig.powFloors = .none`, again not
// settable from outside): minting the 18-bit genesis stamp of a `create` takes about a second
// in this sanitizer build. The rest of an input's cost is in opening the node (a new GRDB connection and five empty reads per input: a
// `.memory` store now takes over the connection of the previous input's, restored from the
// template by SQLite backup, and the node reads nothing back from it) and in the REPL's
// "did you mean" guess for unknown verbs (an edit distance to every command name; now only
// names within 2 of the verb's length, bounded): ≈ 210 → ≈ 850 executions/s (docs/BENCHMARKS.md).
// Built only with SKWAD_FUZZ=1 (scripts/fuzz.sh).
import Foundation
import SkwadNode
import SkwadREPL

let nowMs: UInt64 = 1_790_000_000_000

let config: NodeConfig = {
    let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : FileManager.default.temporaryDirectory.path
    let dir = base + "/skwad-fuzz-repl-\(getpid())"
    try? FileManager.default.removeItem(atPath: dir)
    var c = NodeConfig(dataDir: dir)
    c.powBits = 4
    c.store = .memory
    c.powFloors = .none
    atexit { try? FileManager.default.removeItem(atPath: config.dataDir) }
    return c
}()

/// Runs async work to completion from libFuzzer's synchronous callback.
func block(_ work: @escaping @Sendable () async -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task {
        await work(); done.signal()
    }
    done.wait()
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzREPL(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).prefix(8).map(String.init)
    let c = config
    block {
        let node = try! Node(config: c, now: { nowMs })
        let repl = REPL(executor: Executor(node: node), reader: LineReader(interactive: false, historyPath: nil), mode: .plain)
        for line in lines { _ = await repl.handle(line, nowMs: nowMs) }
        await node.close()
    }
    return 0
}
