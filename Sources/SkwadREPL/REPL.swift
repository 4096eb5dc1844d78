import Foundation
import SkwadModel
import SkwadNode

/// The read-eval-print loop. Every line gets exactly one reply (one JSON object in JSON
/// mode); nothing typed can stop the node but `quit` or end of input.
public final class REPL: Sendable {
    let executor: Executor
    let reader: LineReader
    let mode: Renderer.Mode
    /// Print peer joins and leaves too (`--verbose`).
    let verbose: Bool
    /// Pack labels and colours as of the last command, for activity printed on its own.
    let styleCache = StyleCache()
    /// Swipe mode (REPLSwipe.swift): while on, lines are keys (y, n, u, q).
    let swipeMode = SwipeMode()
    /// Also told every node event while the REPL runs (the node has one sink, which the REPL
    /// holds): the local web page's live lines.
    let alsoEvents: (@Sendable (NodeEvent) -> Void)?

    public init(
        executor: Executor, reader: LineReader, mode: Renderer.Mode, verbose: Bool = false,
        alsoEvents: (@Sendable (NodeEvent) -> Void)? = nil
    ) {
        var executor = executor
        executor.drawsPictures = executor.drawsPictures && mode == .terminal
        self.executor = executor; self.reader = reader; self.mode = mode; self.verbose = verbose
        self.alsoEvents = alsoEvents
    }

    /// Handles one line; returns the text to print and whether to stop.
    public func handle(_ line: String, nowMs: UInt64) async -> (output: String?, quit: Bool) {
        var r = Renderer(mode: mode)
        r.nowMs = nowMs
        r.idLength = await executor.node.displayIDLength()
        if mode == .terminal { r.screen = TerminalSize.current() }
        r.joinedCount = await executor.node.joinedPackIDs.count
        r.here = await executor.node.location
        do {
            if let swiped = try await swipeLine(line) { return (render(swiped, &r), false) }
            guard let cmd = try Registry.parse(line) else { return (nil, false) }
            let reply = try await executor.run(cmd)
            startSwipeMode(after: reply)
            r.idLength = await executor.node.displayIDLength()
            r.styles = await executor.node.packStyles()
            styleCache.set(r.styles, idLength: r.idLength)
            r.joinedCount = await executor.node.joinedPackIDs.count
            var out = mode == .json ? r.json(reply).render() : r.text(reply)
            // `map --json` prints one JSON object: never broken into lines.
            if mode == .terminal && !reply.printsJSON { out = TerminalOutput.wrap(out, width: r.screen.cols) }
            return (out, reply.quits)
        } catch {
            let msg = Wording.clipError("\(error)".split(separator: "\n").first.map(String.init) ?? "error")
            switch mode {
            case .json: return (Renderer.error(msg).render(), false)
            // Red on a terminal only: a script or a pipe reads the plain word.
            case .terminal: return (TerminalOutput.wrap("\u{1B}[31merror:\u{1B}[0m \(SafeText.line(msg))", width: r.screen.cols), false)
            case .plain: return ("error: \(SafeText.line(msg))", false)
            }
        }
    }

    public func run() async {
        let (mode, verbose, cache) = (mode, verbose, styleCache)
        cache.set(await executor.node.packStyles(), idLength: await executor.node.displayIDLength())
        await executor.node.setEventSink { [reader, alsoEvents] e in
            alsoEvents?(e)
            let (styles, idLength) = cache.get()
            guard let line = Self.eventLine(e, mode: mode, verbose: verbose, styles: styles, idLength: idLength, nowMs: wallClockMs())
            else { return }
            reader.printAbove(line)
        }
        // The node went online before the sink was set: links that came up in between are
        // told now (a repeat of one that also raced in is harmless).
        if verbose {
            let (styles, idLength) = cache.get()
            for p in await executor.node.peerSummaries() where p.state == "active" {
                if let line = Self.eventLine(
                    .peerJoined(p.address), mode: mode, verbose: verbose, styles: styles, idLength: idLength, nowMs: wallClockMs())
                {
                    reader.printAbove(line)
                }
            }
        }
        if reader.interactive {
            print("skwad: type help for commands, quit to leave")
            if let n = try? await executor.node.inbox(peek: true).items.count, n > 0 {
                print("skwad: \(Wording.count(n, "thing")) new in your inbox since you last looked (type inbox)")
            }
        }
        while true {
            let line =
                swipeMode.get() != nil && mode == .terminal
                ? await Self.readKeyOffThread(reader, prompt: "swipe> ")  // one key, no Enter (REPLSwipe.swift)
                : await Self.readOffThread(reader, prompt: mode == .terminal ? "skwad> " : "")
            guard let line else { break }
            let (out, quit) = await handle(line, nowMs: wallClockMs())
            if let out { await show(out) }
            if reader.interactive { CompletionStore.shared.set(await completionWords()) }
            if quit { break }
        }
        await executor.node.setEventSink(nil)
    }

    /// Prints a reply: a page at a time when it is taller than the screen and both ends are a
    /// terminal (never piped: `mode` is `.terminal` only then).
    func show(_ out: String) async {
        guard mode == .terminal, reader.interactive else { reader.printAbove(out); return }
        let pages = TerminalOutput.pages(out, rows: TerminalSize.current().rows)
        for (i, page) in pages.enumerated() {
            reader.printAbove(page)
            guard i < pages.count - 1 else { break }
            let answer = await Self.readOffThread(reader, prompt: TerminalOutput.more, history: false)
            if answer == nil || answer!.trimmingCharacters(in: .whitespaces).lowercased().hasPrefix("q") { break }
        }
    }

    /// What Tab offers after a command: pack names and ids, post ids and authors of the feed.
    func completionWords() async -> CompletionWords {
        let node = executor.node
        let len = await node.displayIDLength()
        var w = CompletionWords()
        let styles = await node.packStyles()
        for l in await node.packs() {
            w.packs.append(styles[l.pack.id]?.label ?? l.pack.name)
            w.packs.append(String(l.pack.id.hex.prefix(len)))
        }
        let posts = (try? await node.feed(pack: nil, sort: .new, limit: 200)) ?? []
        w.ops = posts.map { $0.id.short(len) }
        w.pseudonyms = Array(Set(posts.map { pseudonymTag($0.author) })).sorted()
        return w
    }

    /// How activity that arrived on its own is printed: times relative to `nowMs` (the
    /// moment it is printed), peer joins and leaves only when `verbose`.
    static func eventLine(
        _ e: NodeEvent, mode: Renderer.Mode, verbose: Bool, styles: [PackID: PackStyle], idLength: Int = 8,
        nowMs: UInt64
    ) -> String? {
        switch e {
        case .peerJoined, .peerLeft: if !verbose { return nil }
        default: break
        }
        var r = Renderer(mode: mode)
        r.nowMs = nowMs
        r.styles = styles
        r.idLength = idLength
        return r.event(e)
    }

    /// libedit blocks: read on a plain thread, not on the cooperative pool.
    static func readOffThread(_ reader: LineReader, prompt: String, history: Bool = true) async -> String? {
        await withCheckedContinuation { cont in
            Thread.detachNewThread { cont.resume(returning: reader.next(prompt: prompt, history: history)) }
        }
    }
}

/// The pack styles and id length the event printer uses (set after each command, read from
/// the node's actor).
final class StyleCache: @unchecked Sendable {
    private let lock = NSLock()
    private var styles: [PackID: PackStyle] = [:]
    private var idLength = 8
    func set(_ s: [PackID: PackStyle], idLength n: Int) {
        lock.withLock {
            styles = s; idLength = n
        }
    }
    func get() -> ([PackID: PackStyle], Int) { lock.withLock { (styles, idLength) } }
}
