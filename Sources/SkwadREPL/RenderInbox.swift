import SkwadModel
import SkwadNode
import SkwadStore

extension Renderer {
    /// `inbox`: one line per item, oldest first.
    func inboxText(_ inbox: Inbox) -> String {
        var lines = inbox.items.map(inboxLine)
        if inbox.skipped > 0 {
            lines.insert(dim("(\(Wording.count(inbox.skipped, "older op")) not read: only the newest \(Node.inboxScanLimit) are)"), at: 0)
        }
        if lines.isEmpty { return "nothing new since you last looked" }
        return lines.joined(separator: "\n")
    }

    func yours(_ target: OpID, _ isPost: Bool, _ item: InboxItem) -> String {
        let what = isPost ? "post" : "comment"
        let about = item.about.isEmpty ? "" : " \"\(SafeText.line(item.about))\""
        return "your \(what) \(id(target))\(about)"
    }

    func inboxLine(_ item: InboxItem) -> String {
        let when = dim(timeMs(item.atMs))
        switch item.kind {
        case .reply(let c, let parent):
            let on = yours(parent ?? c.post, parent == nil, item)
            return
                "\(when)  \(who(c.author, c.role)) replied to \(on) in \(SafeText.line(item.packName)): \(id(c.id))  "
                + SafeText.block(c.body, indent: "    ")
        case .votes(let target, let up, let down, let s):
            var counts: [String] = []
            if up > 0 { counts.append("+\(up)") }
            if down > 0 { counts.append("-\(down)") }
            return
                "\(when)  \(Wording.count(up + down, "vote")) (\(counts.joined(separator: " "))) "
                + "on \(yours(target, isPost(target, item), item)): score now \(score(s))"
        case .moderated(let target, let hidden, let reason):
            let why = reason.isEmpty ? "" : ": \(SafeText.line(reason))"
            return
                "\(when)  \(yours(target, isPost(target, item), item)) was \(hidden ? "hidden" : "restored") "
                + "by a moderator of \(SafeText.line(item.packName))\(hidden ? why : "")"
        case let .autoHidden(target, s, threshold):
            return "\(when)  \(yours(target, isPost(target, item), item)) in \(SafeText.line(item.packName)) was hidden by votes: "
                + "score \(score(s)) (a pack hides what reaches -\(threshold))"
        case .pack(let n):
            let name = SafeText.line(label(n.pack, n.name))
            switch n.kind {
            case .expiring:
                return
                    "\(dim(timeMs(nowMs)))  pack \(name) expires "
                    + (mode == .terminal ? Self.relative(n.atMs, now: nowMs) : "at " + Self.isoTime(n.atMs))
            case .expired: return "\(when)  pack \(name) expired"
            case .deleted: return "\(when)  pack \(name) was deleted by its Alpha"
            case .removed:
                return "\(when)  you were removed from invite-only pack \(name): its Alpha changed the key; it left your packs"
            }
        case .place(let n): return "\(when)  " + placeNewsLine(n, item)
        case .followedPost(let p):
            return
                "\(when)  \(pseudonymTag(p.author)), whom you follow, posted in \(SafeText.line(item.packName)): "
                + "\(id(p.id))  \(SafeText.line(p.title))"
        case let .picked(ask, caption):
            return
                "\(when)  your caption \(id(caption)) was picked for the ask \(id(ask)) in \(SafeText.line(item.packName)): "
                + SafeText.line(item.about)
        case .letter(let e):
            return
                "\(when)  message from \(pseudonymTag(e.peer)) in \(SafeText.line(item.packName)): \(id(e.id))  "
                + SafeText.block(e.text, indent: "    ")
        }
    }

    func isPost(_ target: OpID, _ item: InboxItem) -> Bool { item.targetIsPost }

    func timeMs(_ ms: UInt64) -> String { mode == .terminal ? Self.relative(ms, now: nowMs) : Self.isoTime(ms) }

    func inboxJSON(_ inbox: Inbox) -> [(String, JSON)] {
        let items: [JSON] = inbox.items.map { item in
            var kv: [(String, JSON)] = []
            switch item.kind {
            case .reply(let c, let parent):
                kv = [("kind", "reply"), ("target", .string((parent ?? c.post).hex)), ("comment", comment(c))]
            case .votes(let target, let up, let down, let s):
                kv = [("kind", "votes"), ("target", .string(target.hex)), ("up", .int(up)), ("down", .int(down)), ("score", .int(s))]
            case .moderated(let target, let hidden, let reason):
                kv = [("kind", hidden ? "hidden" : "restored"), ("target", .string(target.hex)), ("reason", .string(reason))]
            case let .autoHidden(target, s, threshold):
                kv = [("kind", "autoHidden"), ("target", .string(target.hex)), ("score", .int(s)), ("threshold", .int(threshold))]
            case .pack(let n):
                kv = [("kind", .string(n.kind.rawValue)), ("pack", .string(n.pack.hex))]
            case .place(let n): kv = placeNewsJSON(n)
            case .letter(let e):
                kv = [("kind", "message"), ("message", entryJSON(e))]
            case .followedPost(let p):
                kv = [("kind", "followed_post"), ("post", post(p))]
            case let .picked(ask, caption):
                kv = [("kind", "picked"), ("ask", .string(ask.hex)), ("caption", .string(caption.hex))]
            }
            kv += [("packName", .string(item.packName)), ("about", .string(item.about)), ("time", .int(Int(item.atMs)))]
            return .object(kv)
        }
        return [("items", .array(items)), ("skipped", .int(inbox.skipped))]
    }
}

/// `inbox`: what happened to you since you last looked.
struct InboxReply: REPLReply {
    let inbox: Inbox
    func text(_ r: Renderer) -> String { r.inboxText(inbox) }
    func json(_ r: Renderer) -> [(String, JSON)] { r.inboxJSON(inbox) }
}
