import SkwadModel
import SkwadNode
import SkwadReplica

/// Runs parsed commands against a `Node`. Network facts (`peers`, `stats`) come from
/// closures the shell provides, so the REPL works the same offline.
public struct Executor: Sendable {
    public let node: Node
    public var peers: @Sendable () async -> [PeerInfo] = { [] }
    public var networkStats: @Sendable () async -> [(String, Int)] = { [] }

    public init(node: Node) { self.node = node }

    public func run(_ cmd: Command) async throws -> Reply {
        switch cmd {
        case .help(let topic): return .help(try Self.help(topic))
        case .whoami: return .whoami(await node.whoami())
        case .locate(let p):
            try await node.locate(p)
            return .done("location set to \(p)", id: nil)
        case let .create(name, radius, locked, tags, color):
            return .created(try await node.createPack(name: name, radiusMeters: radius, locked: locked, tags: tags, color: color))
        case let .packs(sort, tag): return .packs(await node.packs(sort: sort, tag: tag))
        case .join(let ref):
            let p = try await node.join(ref)
            return .done("joined \(p.name)", id: p.id)
        case .leave(let ref):
            let p = try await node.leave(ref)
            return .done("left \(p.name)", id: p.id)
        case let .post(pack, title, body, tags):
            let id = try await node.post(pack: pack, title: title, body: body, tags: tags)
            return .done("posted \(id.short(await node.displayIDLength()))", id: id)
        case let .comment(target, text):
            let id = try await node.comment(on: target, text: text)
            return .done("commented \(id.short(await node.displayIDLength()))", id: id)
        case let .vote(target, value):
            let id = try await node.vote(on: target, value: value)
            let word = value > 0 ? "upvoted" : value < 0 ? "downvoted" : "vote withdrawn on"
            return .done("\(word) \(target)", id: id)
        case let .feed(pack, sort, limit): return .feed(try await node.feed(pack: pack, sort: sort, limit: limit))
        case .show(let ref): return .thread(try await node.show(ref))
        case .delete(let ref):
            let id = try await node.delete(ref)
            return .done("deleted \(ref)", id: id)
        case .den: return .den(await node.den())
        case .peers: return .peers(await peers())
        case .stats:
            let s = await node.stats
            var local: [(String, Int)] = [("ops.local", s.localOps), ("ops.in_replica", await node.whoami().ops),
                                          ("ops.admitted_remote", s.admitted), ("ops.duplicate", s.duplicates), ("ops.pending", s.pending),
                                          ("store.errors", s.storeErrors), ("store.rows_skipped", s.storeRowsSkipped),
                                          ("packs.purged", s.packsPurged)]
            local += s.rejected.sorted { $0.key < $1.key }.map { ("ops.rejected.\($0.key)", $0.value) }
            return .stats(local + (await networkStats()))
        case .quit: return .bye
        case .moderation(let m): return .moderation(try await runModeration(m))
        }
    }

    static func help(_ topic: String?) throws -> String {
        if let topic {
            guard let h = commandHelp.first(where: { $0.name == topic.lowercased() }) else {
                throw CommandError("no command '\(topic)'; type help")
            }
            return "\(h.usage)\n  \(h.summary)"
        }
        let width = commandHelp.map(\.usage.count).max() ?? 0
        return commandHelp.map { $0.usage.padding(toLength: width + 2, withPad: " ", startingAt: 0) + $0.summary }.joined(separator: "\n")
            + "\nPACK is a pack name or id prefix; ID is a post or comment id prefix; quote text with spaces."
    }
}
