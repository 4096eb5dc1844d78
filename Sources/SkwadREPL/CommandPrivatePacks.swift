import SkwadCrypto
import SkwadModel
import SkwadNode
import SkwadReplica

/// Invite-only packs (issue 26): `create NAME --private`, `remove PACK AUTHOR`; `invite PACK`
/// of such a pack (CommandContacts.swift) prints its join code and `join CODE`
/// (CommandPacks.swift) joins it.
struct CreatePrivateCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "create-private", verbs: ["create"], selector: .flag("--private"), usage: nil,
        params: [
            .word("name", "NAME"), .option("radius", "--radius", .number), .flag("locked", "--locked"),
            .option("tags", "--tags", .list, absent: .array([])), .option("color", "--color", absent: .string(""))
        ])
    var name: String
    var radius: Double?
    /// Refused: an invite-only pack's ops claim no location.
    var locked = false
    var tags: [String]
    var color: String

    func validate() throws {
        if locked { throw CommandError("an invite-only pack cannot be --locked (its ops claim no location)") }
    }

    func run(_ x: Executor) async throws -> any REPLReply {
        PrivatePackReply.created(
            try await x.node.createPack(name: name, radiusMeters: radius, locked: false, tags: tags, color: color, inviteOnly: true))
    }
}

struct RemoveCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "remove", usage: "remove PACK AUTHOR",
        summary: "(the Alpha) remove a member of an invite-only pack: a new key goes to the others; its later posts are unreadable to them",
        params: [.word("pack", "PACK"), .word("author", "AUTHOR")], completion: Completes(first: [.packs]))
    var pack: String
    var author: String

    func run(_ x: Executor) async throws -> any REPLReply {
        let node = x.node
        let r = try await node.removeMember(pack: pack, author: author)
        let p = try await node.resolvePack(pack)
        return PrivatePackReply.removed(author: try await node.authorKey(author), packName: p.name, epoch: r.epoch, kept: r.kept)
    }
}

public enum PrivatePackReply: REPLReply {
    case created(PackSummary)
    case invite(code: String, packName: String)
    case joined(PackSummary)
    case removed(author: PublicKey, packName: String, epoch: UInt32, kept: Int)

    public func text(_ r: Renderer) -> String { r.privatePackText(self) }
    public func json(_ r: Renderer) -> [(String, JSON)] { r.privatePackJSON(self) }
}

extension Renderer {
    func privatePackText(_ r: PrivatePackReply) -> String {
        switch r {
        case .created(let p):
            return CreatedReply(pack: p).text(self) + "\n  invite-only: relays see no name; invite PACK prints a join code"
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
