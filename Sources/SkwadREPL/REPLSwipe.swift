import Foundation
import SkwadModel
import SkwadNode

/// Swipe mode: after `swipe` shows a place, every line is one key until the mode ends:
/// y (favourite), n (pass), u (undo), q (quit); a blank line is ignored, anything else is an
/// error that keeps the mode. On a terminal each key is read alone, without Enter
/// (`LineReader.nextKey`); piped, one key per line.
final class SwipeMode: @unchecked Sendable {
    private let lock = NSLock()
    private var state: (current: OpID?, query: PlaceQuery)?
    func get() -> (current: OpID?, query: PlaceQuery)? { lock.withLock { state } }
    func set(_ s: (current: OpID?, query: PlaceQuery)?) { lock.withLock { state = s } }
}

extension REPL {
    /// In swipe mode, the reply to a key (nil: not in swipe mode, or a blank line).
    func swipeLine(_ line: String) async throws -> (any REPLReply)? {
        guard let s = swipeMode.get() else { return nil }
        guard line.contains(where: { !$0.isWhitespace }) else { return nil }
        let (reply, goOn) = try await executor.swipeKey(line, current: s.current, query: s.query)
        if case let .swiped(_, next, _) = reply, goOn { swipeMode.set((next?.id, s.query)) } else { swipeMode.set(nil) }
        return reply
    }

    /// `swipe` with a place to show turns swipe mode on.
    func startSwipeMode(after reply: any REPLReply) {
        if case let .card(p?, _, q)? = reply as? PlaceReply { swipeMode.set((p.id, q)) }
    }

    /// `LineReader.nextKey` on a plain thread (it blocks), as `readOffThread`.
    static func readKeyOffThread(_ reader: LineReader, prompt: String) async -> String? {
        await withCheckedContinuation { cont in
            Thread.detachNewThread { cont.resume(returning: reader.nextKey(prompt: prompt)) }
        }
    }

    func render(_ reply: any REPLReply, _ r: inout Renderer) -> String {
        mode == .json ? r.json(reply).render() : r.text(reply)
    }
}

extension Executor {
    /// One line typed in swipe mode: y (favourite), n (pass), u (undo), q (quit). Returns the
    /// reply and whether swipe mode goes on.
    func swipeKey(_ line: String, current: OpID?, query: PlaceQuery) async throws -> (PlaceReply, goOn: Bool) {
        let key = line.trimmingCharacters(in: .whitespaces).lowercased()
        var said: String
        switch key {
        case "y", "yes":
            guard let current else { return (.swiped("nothing to swipe", next: nil, left: 0), false) }
            try await node.swipe(current, favourite: true); said = "favourite"
        case "n", "no":
            guard let current else { return (.swiped("nothing to swipe", next: nil, left: 0), false) }
            try await node.swipe(current, favourite: false); said = "passed"
        case "u", "undo":
            if let m = try await node.undoSwipe() {
                said = "undone: \(m.favourite ? "favourite" : "pass") on \(m.place.short(await node.displayIDLength()))"
                let back = try await node.swipeCandidates(query)
                let first = back.first { $0.id == m.place } ?? back.first
                return (.swiped(said, next: first, left: max(0, back.count - 1)), first != nil)
            }
            said = "nothing to undo"
        case "q", "quit", "":
            return (.swiped(key == "" ? "swipe ended" : "swipe ended (favs lists your favourites)", next: nil, left: 0), false)
        default:
            throw CommandError("in swipe mode: y favourite, n pass, u undo, q quit")
        }
        let left = try await node.swipeCandidates(query)
        return (.swiped(said, next: left.first, left: max(0, left.count - 1)), left.first != nil)
    }
}

extension Executor {
    /// One swipe key for a front end that keeps no swipe mode of its own (the web page):
    /// `key` as typed in swipe mode (y, n, u), `place` the full id of the place on screen (nil
    /// for an undo), `filters` the arguments `swipe` takes, by its JSON keys. The reply is the
    /// one swipe mode prints (JSON: `swipe`, `left`, `message`).
    public func swipe(key: String, place: String?, filters: [String: ArgValue]) async throws -> any REPLReply {
        guard let command = try Registry.command(named: "swipe", arguments: filters) as? SwipeCommand else {
            throw CommandError("swipe takes the filters of places")
        }
        var current: OpID?
        if let place {
            guard let id = OpID(hex: place) else { throw CommandError("a swiped place is named by its full id (64 hex digits)") }
            current = id
        }
        return try await swipeKey(key, current: current, query: try command.query()).0
    }
}
