import SkwadCrypto
import SkwadModel
import SkwadNode
import SkwadReplica

/// Invite-only packs (issue 26): `create NAME --private`, `invite PACK` (parsed with the
/// contact codes, CommandContacts.swift), `join CODE`, `remove PACK AUTHOR`. `Command.parse`
/// hands these here.
public enum PrivatePackCommand: Equatable, Sendable {
    case create(name: String, radius: Double?, tags: [String], color: String)
    case invite(String)
    case join(code: String)
    case remove(pack: String, author: String)

    static let verbs: Set<String> = ["remove"]

    static func parse(verb: String, args: inout Args) throws -> PrivatePackCommand? {
        switch verb {
        case "remove": return .remove(pack: try args.positional("PACK"), author: try args.positional("AUTHOR"))
        default: return nil
        }
    }
}

let privatePackHelp: [(name: String, usage: String, summary: String)] = [
    (
        "remove", "remove PACK AUTHOR",
        "(the Alpha) remove a member of an invite-only pack: a new key goes to the others; its later posts are unreadable to them"
    )
]

public enum PrivatePackReply: Sendable {
    case created(PackSummary)
    case invite(code: String, packName: String)
    case joined(PackSummary)
    case removed(author: PublicKey, packName: String, epoch: UInt32, kept: Int)
}

extension Executor {
    func runPrivatePack(_ cmd: PrivatePackCommand) async throws -> PrivatePackReply {
        switch cmd {
        case let .create(name, radius, tags, color):
            return .created(
                try await node.createPack(
                    name: name, radiusMeters: radius, locked: false, tags: tags, color: color,
                    inviteOnly: true))
        case .invite(let ref):
            let code = try await node.invite(ref)
            return .invite(code: code, packName: try await node.resolvePack(ref).name)
        case .join(let code): return .joined(try await node.joinInvite(code))
        case let .remove(pack, author):
            let r = try await node.removeMember(pack: pack, author: author)
            let p = try await node.resolvePack(pack)
            return .removed(author: try await node.authorKey(author), packName: p.name, epoch: r.epoch, kept: r.kept)
        }
    }
}

extension Renderer {
    func privatePackText(_ r: PrivatePackReply) -> String {
        switch r {
        case .created(let p):
            return text(.created(p)) + "\n  invite-only: relays see no name; invite PACK prints a join code"
        case let .invite(code, packName):
            return "join code for \(SafeText.line(packName)) (whoever has it can read the pack; give it privately):\n  \(code)"
        case .joined(let p):
            return "joined invite-only pack \(SafeText.line(p.name)) \(id(p.id))"
        case let .removed(author, packName, epoch, kept):
            return "removed \(pseudonymTag(author)) from \(SafeText.line(packName)): key epoch \(epoch) sent to "
                + Wording.count(kept, "member") + "; posts from now on are unreadable to them"
        }
    }

    func privatePackJSON(_ r: PrivatePackReply) -> [(String, JSON)] {
        switch r {
        case .created(let p), .joined(let p):
            return [("id", .string(p.id.hex)), ("name", .string(p.name)), ("inviteOnly", .bool(true))]
        case let .invite(code, packName): return [("code", .string(code)), ("packName", .string(packName))]
        case let .removed(author, packName, epoch, kept):
            return [
                ("removed", .string(pseudonymTag(author))), ("packName", .string(packName)), ("epoch", .int(Int(epoch))),
                ("kept", .int(kept))
            ]
        }
    }
}

extension Executor {
    /// Said after `posted ID` (and the like) when the op waits for its invite-only pack's key
    /// sync (PROTOCOL §3b): it is not sent, nor shown, until then.
    static let heldNote = "; held until this node has synced the pack's key with a member (then sent)"
}
