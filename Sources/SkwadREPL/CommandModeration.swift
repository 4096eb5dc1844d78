import Foundation
import SkwadNode

/// Moderation, reports, edits, blocks and mutes (issue 11, part A): their grammar, kept
/// apart from Command.swift. `Command.parse` hands these verbs here.
public enum ModerationCommand: Equatable, Sendable {
    case hide(target: String, reason: String)
    case unhide(target: String, reason: String)
    case edit(ref: String, EditRequest)
    case log(pack: String)
    case report(target: String, reason: String)
    case reports(pack: String?)
    case dismiss(String)
    case block(String)
    case unblock(String)
    case mute(String)
    case unmute(String)
    case blocks
    case ban(pack: String, author: String, reason: String)
    case unban(pack: String, author: String, reason: String)

    static let verbs: Set<String> = [
        "hide", "unhide", "edit", "log", "report", "reports", "dismiss", "block", "unblock", "mute", "unmute", "blocks", "ban",
        "unban"
    ]

    /// Parses the arguments of a moderation verb; nil for any other verb.
    static func parse(verb: String, args: inout Args) throws -> ModerationCommand? {
        guard verbs.contains(verb) else { return nil }
        switch verb {
        case "hide": return .hide(target: try args.positional("ID"), reason: args.optionalPositional() ?? "")
        case "unhide": return .unhide(target: try args.positional("ID"), reason: args.optionalPositional() ?? "")
        case "edit":
            let ref = try args.positional("ID or PACK")
            var change = EditRequest()
            change.title = try args.value("--title")
            change.body = try args.value("--body")
            change.name = try args.value("--name")
            change.color = try args.value("--color")
            change.tags = try args.value("--tags").map { v in
                v.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            }
            change.text = args.optionalPositional()
            return .edit(ref: ref, change)
        case "log": return .log(pack: try args.positional("PACK"))
        case "report": return .report(target: try args.positional("ID"), reason: try args.positional("\"REASON\""))
        case "reports": return .reports(pack: args.optionalPositional())
        case "dismiss": return .dismiss(try args.positional("REPORT"))
        case "block": return .block(try args.positional("AUTHOR"))
        case "unblock": return .unblock(try args.positional("AUTHOR"))
        case "ban", "unban":
            let pack = try args.positional("PACK"), author = try args.positional("AUTHOR")
            let reason = args.optionalPositional() ?? ""
            return verb == "ban" ? .ban(pack: pack, author: author, reason: reason) : .unban(pack: pack, author: author, reason: reason)
        case "mute": return .mute(try args.positional("PACK"))
        case "unmute": return .unmute(try args.positional("PACK"))
        default: return .blocks
        }
    }
}

/// Help lines of the moderation verbs (listed by `help` with the others).
let moderationHelp: [(name: String, usage: String, summary: String)] = [
    (
        "edit", "edit ID \"TEXT\" | edit PACK --name N",
        "edit your post or comment (--title, --body), or your pack (--name, --color, --tags)"
    ),
    ("hide", "hide ID [REASON]", "hide a post or comment (Alpha, admins)"),
    ("unhide", "unhide ID", "restore a hidden post or comment"),
    ("log", "log PACK", "the pack's moderation history (hides, bans, edits)"),
    ("report", "report ID \"REASON\"", "report to the pack's moderators only"),
    ("reports", "reports [PACK]", "reports you can read as a moderator, with who filed them"),
    ("ban", "ban PACK AUTHOR [REASON]", "ban a pseudonym from a pack: nothing it writes there shows (Alpha, admins)"),
    ("unban", "unban PACK AUTHOR [REASON]", "lift a ban"),
    ("dismiss", "dismiss REPORT", "set a report aside (here only)"),
    ("block", "block AUTHOR", "hide a pseudonym (anon·3f2a9c01) for you"),
    ("unblock", "unblock AUTHOR", "undo block"),
    ("mute", "mute PACK", "leave a pack out of your feed and news"),
    ("unmute", "unmute PACK", "undo mute"),
    ("blocks", "blocks", "who you blocked, what you muted")
]
