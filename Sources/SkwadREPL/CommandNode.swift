import SkwadModel
import SkwadNode
import SkwadReplica

/// The verbs about this node and the session: help, whoami, locate, peers, stats, trust,
/// untrust, trusted, quit.
struct HelpCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "help", verbs: ["help", "?"], usage: "help [COMMAND]", summary: "list commands, or explain one",
        params: [.optionalWord("topic")], completion: Completes(anywhere: [.verbs]))
    var topic: String?
    func run(_ x: Executor) async throws -> any REPLReply { HelpReply(help: try Executor.help(topic)) }
}

struct WhoamiCommand: REPLCommand, Equatable {
    static let spec = CommandSpec("whoami", usage: "whoami", summary: "your node id, location and data directory")
    func run(_ x: Executor) async throws -> any REPLReply { WhoamiReply(me: await x.node.whoami()) }
}

struct LocateCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "locate", usage: "locate LAT,LON", summary: "set your (self-reported) location, e.g. locate 40.4433,-79.9436",
        params: [.word("at", "LAT,LON")])
    var at: String
    func point() throws -> GeoPoint {
        do { return try GeoPoint(parsing: at) } catch { throw CommandError("\(error)") }
    }
    func validate() throws { _ = try point() }
    func run(_ x: Executor) async throws -> any REPLReply {
        let p = try point()
        try await x.node.locate(p)
        return DoneReply("location set to \(p)", id: nil)
    }
}

struct PeersCommand: REPLCommand, Equatable {
    static let spec = CommandSpec("peers", usage: "peers", summary: "neighbours this node gossips with")
    func run(_ x: Executor) async throws -> any REPLReply {
        let list = await x.peers()
        return PeersReply(peers: list, note: list.isEmpty ? await x.noPeersNote() : nil)
    }
}

struct StatsCommand: REPLCommand, Equatable {
    static let spec = CommandSpec("stats", usage: "stats", summary: "datagrams, bytes, ops admitted and dropped, by reason")
    func run(_ x: Executor) async throws -> any REPLReply { StatsReply(pairs: await x.node.counters()) }
}

struct TrustCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "trust", usage: "trust ADMINKEY",
        summary: "trust an admin key (your campus's): its packs are permanent here and it may moderate any pack",
        params: [.word("key", "ADMINKEY")])
    var key: String
    func run(_ x: Executor) async throws -> any REPLReply { try await x.trust(key, on: true) }
}

struct UntrustCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "untrust", usage: "untrust ADMINKEY", summary: "stop trusting an admin key", params: [.word("key", "ADMINKEY")])
    var key: String
    func run(_ x: Executor) async throws -> any REPLReply { try await x.trust(key, on: false) }
}

struct TrustedCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "trusted", usage: "trusted", summary: "the admin keys this node trusts, and the config file they are kept in")
    func run(_ x: Executor) async throws -> any REPLReply { TrustedReply(trusted: await x.node.trusted()) }
}

struct QuitCommand: REPLCommand, Equatable {
    static let spec = CommandSpec("quit", verbs: ["quit", "exit", "q"], usage: "quit", summary: "stop the node (also: exit, Ctrl-D)")
    func run(_ x: Executor) async throws -> any REPLReply { ByeReply() }
}

extension Executor {
    /// `trust KEY` (`on`) and `untrust KEY`: this node's admin keys, rewritten in its config file.
    func trust(_ key: String, on: Bool) async throws -> DoneReply {
        let (k, changed) = try await node.trust(key, on: on)
        let file = await node.trusted().file
        let short = String(k.hex.prefix(16)) + "…"
        if !changed { return DoneReply(on ? "already trusted: \(short)" : "not trusted: \(short) (see: trusted)", id: nil) }
        return DoneReply(
            on
                ? "trusted admin key \(short): its packs are permanent here and it may moderate any pack; written to \(file)"
                : "no longer trusted: \(short); written to \(file)", id: nil)
    }
}
