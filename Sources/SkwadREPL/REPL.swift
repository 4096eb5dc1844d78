import Foundation
import SkwadModel
import SkwadNode

/// The read-eval-print loop. Every line gets exactly one reply (one JSON object in JSON
/// mode); nothing typed can stop the node but `quit` or end of input.
public final class REPL: Sendable {
    let executor: Executor
    let reader: LineReader
    let mode: Renderer.Mode

    public init(executor: Executor, reader: LineReader, mode: Renderer.Mode) {
        self.executor = executor; self.reader = reader; self.mode = mode
    }

    /// Handles one line; returns the text to print and whether to stop.
    public func handle(_ line: String, nowMs: UInt64) async -> (output: String?, quit: Bool) {
        var r = Renderer(mode: mode)
        r.nowMs = nowMs
        r.idLength = await executor.node.displayIDLength()
        do {
            guard let cmd = try Command.parse(line) else { return (nil, false) }
            let reply = try await executor.run(cmd)
            r.idLength = await executor.node.displayIDLength()
            let out = mode == .json ? r.json(reply).render() : r.text(reply)
            if case .bye = reply { return (out, true) }
            return (out, false)
        } catch {
            let msg = "\(error)".split(separator: "\n").first.map(String.init) ?? "error"
            return (mode == .json ? Renderer.error(msg).render() : "error: \(SafeText.line(msg))", false)
        }
    }

    public func run() async {
        let renderer = Renderer(mode: mode)
        await executor.node.setEventSink { [reader] e in reader.printAbove(renderer.event(e)) }
        if reader.interactive { print("skwad: type help for commands, quit to leave") }
        while true {
            let line = await Self.readOffThread(reader, prompt: mode == .terminal ? "skwad> " : "")
            guard let line else { break }
            let (out, quit) = await handle(line, nowMs: wallClockMs())
            if let out { reader.printAbove(out) }
            if quit { break }
        }
        await executor.node.setEventSink(nil)
    }

    /// libedit blocks: read on a plain thread, not on the cooperative pool.
    static func readOffThread(_ reader: LineReader, prompt: String) async -> String? {
        await withCheckedContinuation { cont in
            Thread.detachNewThread { cont.resume(returning: reader.next(prompt: prompt)) }
        }
    }
}
