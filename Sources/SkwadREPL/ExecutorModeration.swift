import SkwadModel
import SkwadNode
import SkwadReplica

/// What a moderation verb produced, before rendering (RenderModeration.swift).
public enum ModerationReply: Sendable {
    case done(String, id: OpID?)
    case log(PackSummary, [ModerationEntry])
    case reports([ReportView])
    case blocks(BlockList)
}

extension Executor {
    func runModeration(_ cmd: ModerationCommand) async throws -> ModerationReply {
        let len = await node.displayIDLength()
        switch cmd {
        case let .hide(target, reason):
            let id = try await node.moderate(target, hidden: true, reason: reason)
            return .done("hid \(target)", id: id)
        case let .unhide(target, reason):
            let id = try await node.moderate(target, hidden: false, reason: reason)
            return .done("restored \(target)", id: id)
        case let .edit(ref, change):
            switch try await node.edit(ref, change) {
            case let .pack(p, id): return .done("edited pack \(p.name)", id: id)
            case let .post(target, id): return .done("edited \(target.short(len))", id: id)
            }
        case .log(let ref):
            let (p, entries) = try await node.moderationLog(ref)
            return .log(p, entries)
        case let .report(target, reason):
            let id = try await node.report(target, reason: reason)
            return .done("reported \(target) to the pack's moderators", id: id)
        case .reports(let pack): return .reports(try await node.reports(pack: pack))
        case .dismiss(let ref):
            let id = try await node.dismiss(ref)
            return .done("dismissed report \(id.short(len))", id: id)
        case .block(let tag):
            let k = try await node.block(tag, on: true)
            return .done("blocked \(pseudonymTag(k)): their posts and comments are hidden for you", id: nil)
        case .unblock(let tag):
            let k = try await node.block(tag, on: false)
            return .done("unblocked \(pseudonymTag(k))", id: nil)
        case .mute(let ref):
            let p = try await node.mute(ref, on: true)
            return .done("muted \(p.name) (feed \(p.name) still shows it)", id: p.id)
        case .unmute(let ref):
            let p = try await node.mute(ref, on: false)
            return .done("unmuted \(p.name)", id: p.id)
        case .blocks: return .blocks(await node.blocks())
        case let .ban(pack, author, reason):
            let (p, k, id) = try await node.ban(pack: pack, author: author, banned: true, reason: reason)
            return .done("banned \(pseudonymTag(k)) from \(p.name): nothing it writes there is shown", id: id)
        case let .unban(pack, author, reason):
            let (p, k, id) = try await node.ban(pack: pack, author: author, banned: false, reason: reason)
            return .done("unbanned \(pseudonymTag(k)) in \(p.name)", id: id)
        }
    }
}
