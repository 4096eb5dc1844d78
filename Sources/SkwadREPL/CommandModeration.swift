import Foundation
import SkwadModel
import SkwadNode
import SkwadReplica

/// Moderation, reports, edits, blocks and mutes (issue 11): edit, hide, unhide, log, report,
/// reports, ban, unban, dismiss, block, unblock, mute, unmute, blocks.
struct EditCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "edit", usage: "edit ID \"TEXT\" | edit PACK --name N",
        summary: "edit your post or comment (--title, --body), or your pack (--name, --color, --tags)",
        params: [
            .word("ref", "ID or PACK"), .option("title", "--title"), .option("body", "--body"), .option("name", "--name"),
            .option("color", "--color"), .option("tags", "--tags", .list), .optionalWord("text")
        ],
        completion: Completes(first: [.packs, .ops]))
    var ref: String
    var title: String?
    var body: String?
    var name: String?
    var color: String?
    /// The pack's new tags (empty: clear them); nil leaves them.
    var tags: [String]?
    /// A comment's new text, or a post's new body.
    var text: String?

    var change: EditRequest { EditRequest(text: text, title: title, body: body, name: name, color: color, tags: tags) }

    func run(_ x: Executor) async throws -> any REPLReply {
        switch try await x.node.edit(ref, change) {
        case let .pack(p, id): return DoneReply("edited pack \(p.name)", id: id)
        case let .post(target, id): return DoneReply("edited \(target.short(await x.node.displayIDLength()))", id: id)
        }
    }
}

struct HideCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "hide", usage: "hide ID [REASON]", summary: "hide a post or comment (Alpha, admins)",
        params: [.word("target", "ID"), .optionalWord("reason", absent: .string(""))], completion: Completes(first: [.ops]))
    var target: String
    var reason = ""
    func run(_ x: Executor) async throws -> any REPLReply {
        DoneReply("hid \(target)", id: try await x.node.moderate(target, hidden: true, reason: reason))
    }
}

struct UnhideCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "unhide", usage: "unhide ID", summary: "restore a hidden post or comment",
        params: [.word("target", "ID"), .optionalWord("reason", absent: .string(""))], completion: Completes(first: [.ops]))
    var target: String
    var reason = ""
    func run(_ x: Executor) async throws -> any REPLReply {
        DoneReply("restored \(target)", id: try await x.node.moderate(target, hidden: false, reason: reason))
    }
}

struct LogCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "log", usage: "log PACK", summary: "the pack's moderation history (hides, bans, edits)", params: [.word("pack", "PACK")],
        completion: Completes(first: [.packs]))
    var pack: String
    func run(_ x: Executor) async throws -> any REPLReply {
        let (p, entries) = try await x.node.moderationLog(pack)
        return ModerationReply.log(p, entries)
    }
}

struct ReportCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "report", usage: "report ID \"REASON\"", summary: "report to the pack's moderators only",
        params: [.word("target", "ID"), .word("reason", "\"REASON\"")], completion: Completes(first: [.ops]))
    var target: String
    var reason: String
    func run(_ x: Executor) async throws -> any REPLReply {
        DoneReply("reported \(target) to the pack's moderators", id: try await x.node.report(target, reason: reason))
    }
}

struct ReportsCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "reports", usage: "reports [PACK]", summary: "reports you can read as a moderator, with who filed them",
        params: [.optionalWord("pack")], completion: Completes(first: [.packs], later: [.packs]))
    var pack: String?
    func run(_ x: Executor) async throws -> any REPLReply { ModerationReply.reports(try await x.node.reports(pack: pack)) }
}

struct BanCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "ban", usage: "ban PACK AUTHOR [REASON]", summary: "ban a pseudonym from a pack: nothing it writes there shows (Alpha, admins)",
        params: [.word("pack", "PACK"), .word("author", "AUTHOR"), .optionalWord("reason", absent: .string(""))],
        completion: Completes(first: [.packs], second: [.authors]))
    var pack: String
    var author: String
    var reason = ""
    func run(_ x: Executor) async throws -> any REPLReply {
        let (p, k, id) = try await x.node.ban(pack: pack, author: author, banned: true, reason: reason)
        return DoneReply("banned \(pseudonymTag(k)) from \(p.name): nothing it writes there is shown", id: id)
    }
}

struct UnbanCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "unban", usage: "unban PACK AUTHOR [REASON]", summary: "lift a ban",
        params: [.word("pack", "PACK"), .word("author", "AUTHOR"), .optionalWord("reason", absent: .string(""))],
        completion: Completes(first: [.packs], second: [.authors]))
    var pack: String
    var author: String
    var reason = ""
    func run(_ x: Executor) async throws -> any REPLReply {
        let (p, k, id) = try await x.node.ban(pack: pack, author: author, banned: false, reason: reason)
        return DoneReply("unbanned \(pseudonymTag(k)) in \(p.name)", id: id)
    }
}

struct DismissCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "dismiss", usage: "dismiss REPORT", summary: "set a report aside (here only)", params: [.word("report", "REPORT")])
    var report: String
    func run(_ x: Executor) async throws -> any REPLReply {
        let id = try await x.node.dismiss(report)
        return DoneReply("dismissed report \(id.short(await x.node.displayIDLength()))", id: id)
    }
}

struct BlockCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "block", usage: "block AUTHOR", summary: "hide a pseudonym (anon·3f2a9c01) for you", params: [.word("author", "AUTHOR")],
        completion: Completes(first: [.authors]))
    var author: String
    func run(_ x: Executor) async throws -> any REPLReply {
        let k = try await x.node.block(author, on: true)
        return DoneReply("blocked \(pseudonymTag(k)): their posts and comments are hidden for you", id: nil)
    }
}

struct UnblockCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "unblock", usage: "unblock AUTHOR", summary: "undo block", params: [.word("author", "AUTHOR")],
        completion: Completes(first: [.authors]))
    var author: String
    func run(_ x: Executor) async throws -> any REPLReply {
        DoneReply("unblocked \(pseudonymTag(try await x.node.block(author, on: false)))", id: nil)
    }
}

struct MuteCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "mute", usage: "mute PACK", summary: "leave a pack out of your feed and news", params: [.word("pack", "PACK")],
        completion: Completes(first: [.packs]))
    var pack: String
    func run(_ x: Executor) async throws -> any REPLReply {
        let p = try await x.node.mute(pack, on: true)
        return DoneReply("muted \(p.name) (feed \(p.name) still shows it)", id: p.id)
    }
}

struct UnmuteCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "unmute", usage: "unmute PACK", summary: "undo mute", params: [.word("pack", "PACK")], completion: Completes(first: [.packs]))
    var pack: String
    func run(_ x: Executor) async throws -> any REPLReply {
        let p = try await x.node.mute(pack, on: false)
        return DoneReply("unmuted \(p.name)", id: p.id)
    }
}

struct BlocksCommand: REPLCommand, Equatable {
    static let spec = CommandSpec("blocks", usage: "blocks", summary: "who you blocked, what you muted")
    func run(_ x: Executor) async throws -> any REPLReply { ModerationReply.blocks(await x.node.blocks()) }
}

/// What a moderation verb produced besides a one-line outcome (RenderModeration.swift).
public enum ModerationReply: REPLReply {
    case log(PackSummary, [ModerationEntry])
    case reports([ReportView])
    case blocks(BlockList)

    public func text(_ r: Renderer) -> String { r.moderationText(self) }
    public func json(_ r: Renderer) -> [(String, JSON)] { r.moderationJSON(self) }
}
