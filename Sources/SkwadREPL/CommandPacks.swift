import SkwadModel
import SkwadNode
import SkwadReplica

/// The verbs of packs: create, packs, join, leave, map.
struct CreateCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "create", usage: "create NAME [--radius METERS] [--locked] [--tags a,b] [--color C] [--private]",
        summary: "create a pack and become its Alpha; it lives 24 h, up to 48 h as more people take part (admin packs are permanent); "
            + "--private: invite-only, everything in it sealed with a pack key (invite PACK)",
        params: [
            .word("name", "NAME"), .option("radius", "--radius", .number), .flag("locked", "--locked"),
            .option("tags", "--tags", .list, absent: .array([])), .option("color", "--color", absent: .string(""))
        ])
    var name: String
    var radius: Double?
    var locked: Bool
    var tags: [String]
    var color: String

    func run(_ x: Executor) async throws -> any REPLReply {
        CreatedReply(pack: try await x.node.createPack(name: name, radiusMeters: radius, locked: locked, tags: tags, color: color))
    }
}

extension PackSort: Decodable {}
extension FeedSort: Decodable {}

struct PacksCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "packs", usage: "packs [--sort distance|popular|new] [--tag T]", summary: "packs around you, with distance and bearing",
        params: [
            .option("sort", "--sort", .choice(PackSort.allCases.map(\.rawValue)), absent: .string(PackSort.new.rawValue)),
            .option("tag", "--tag")
        ])
    var sort: PackSort
    var tag: String?
    func run(_ x: Executor) async throws -> any REPLReply { PacksReply(list: await x.node.packs(sort: sort, tag: tag)) }
}

struct JoinCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "join", usage: "join PACK|CODE",
        summary: "join a pack (by name or id prefix), or an invite-only pack with a join code: its posts enter your feed",
        params: [.word("pack", "PACK")], completion: Completes(first: [.packs]))
    var pack: String

    /// Anything written like a join code is one: a malformed code is refused at once, never
    /// looked up as a pack name.
    func validate() throws {
        guard JoinCode.looks(pack) else { return }
        do { _ = try JoinCode(parsing: pack) } catch { throw CommandError("\(error)") }
    }

    func run(_ x: Executor) async throws -> any REPLReply {
        if JoinCode.looks(pack) { return PrivatePackReply.joined(try await x.node.joinInvite(pack)) }
        let p = try await x.node.join(pack)
        return DoneReply("joined \(p.name)" + Executor.outsideNote(p), id: p.id)
    }
}

struct LeaveCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "leave", usage: "leave PACK", summary: "leave a pack", params: [.word("pack", "PACK")], completion: Completes(first: [.packs]))
    var pack: String
    func run(_ x: Executor) async throws -> any REPLReply {
        let p = try await x.node.leave(pack)
        return DoneReply("left \(p.name)", id: p.id)
    }
}

struct MapCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "map", usage: "map [--radius METRES] [--json]", summary: "the packs around you on a grid: you at the centre, north up",
        params: [.option("radius", "--radius", .number), .flag("json", "--json")])
    var radius: Double?
    var json: Bool

    func validate() throws {
        if let radius, !(radius >= 10 && radius <= Double(Limits.maxRadiusMeters) * 20) {
            throw CommandError("--radius must be 10...\(Limits.maxRadiusMeters * 20) metres")
        }
    }

    func run(_ x: Executor) async throws -> any REPLReply { MapReply(map: try await MapView.around(x.node, radius: radius), asJSON: json) }
}
