import SkwadModel
import SkwadNode

/// `whoami`: this node, where it is and how it is reached.
struct WhoamiReply: REPLReply {
    let me: Node.WhoAmI

    func text(_ r: Renderer) -> String {
        let w = me
        var lines = [
            "node \(w.nodeID)", "location " + (w.location.map { "\($0) (cell \(w.cell ?? "-"))" } ?? "unset (locate LAT,LON)"),
            "data \(w.dataDir)", "\(Wording.count(w.joinedPacks, "pack")) joined, \(Wording.count(w.ops, "op")) stored",
            "listening on " + (w.listen ?? "nothing (offline)")
        ]
        if !w.reachable.isEmpty && w.reachable != [w.listen ?? ""] {
            lines.append("reachable at " + w.reachable.joined(separator: ", "))
        }
        if w.listen != nil {
            lines.append(w.lanBeacon ? "finding neighbours on the local network" : "not looking for neighbours on the local network")
        }
        if let a = w.adminKey { lines.append("admin key \(a)") }
        return lines.joined(separator: "\n")
    }

    func json(_ r: Renderer) -> [(String, JSON)] {
        let w = me
        return [
            ("node", .string(w.nodeID)), ("location", w.location.map { .string("\($0.lat),\($0.lon)") } ?? .null),
            ("cell", w.cell.map { .string($0) } ?? .null), ("dataDir", .string(w.dataDir)),
            ("joinedPacks", .int(w.joinedPacks)), ("ops", .int(w.ops)), ("listen", w.listen.map { .string($0) } ?? .null),
            ("reachable", .array(w.reachable.map { .string($0) })), ("lanBeacon", .bool(w.lanBeacon))
        ]
    }
}

/// `peers`: neighbours; `note`: why there are none (offline, seeds not answering).
struct PeersReply: REPLReply {
    let peers: [PeerInfo]
    var note: String?

    func text(_ r: Renderer) -> String {
        if peers.isEmpty { return note ?? "no peers" }
        return peers.map { "\($0.address)  \($0.state)" + ($0.cell.map { "  cell \(SafeText.line($0))" } ?? "") }.joined(separator: "\n")
    }

    func json(_ r: Renderer) -> [(String, JSON)] {
        let list = JSON.array(
            peers.map {
                .object([("address", .string($0.address)), ("state", .string($0.state)), ("cell", $0.cell.map { .string($0) } ?? .null)])
            })
        return (note.map { [("note", JSON.string($0))] } ?? []) + [("peers", list)]
    }
}

/// `trusted`: the admin keys this node trusts and the file they are kept in.
struct TrustedReply: REPLReply {
    let trusted: Node.Trusted

    func text(_ r: Renderer) -> String {
        let t = trusted
        var lines = t.keys.isEmpty && t.own == nil ? ["no admin keys trusted: admin packs of others expire here like any pack"] : []
        if let own = t.own { lines.append("\(own.hex)  (this node's own admin key)") }
        lines += t.keys.filter { $0 != t.own }.map(\.hex)
        lines.append(r.dim("kept in \(t.file); trust ADMINKEY adds one, untrust ADMINKEY removes one"))
        return lines.joined(separator: "\n")
    }

    func json(_ r: Renderer) -> [(String, JSON)] {
        [
            ("keys", .array(trusted.keys.map { .string($0.hex) })), ("own", trusted.own.map { .string($0.hex) } ?? .null),
            ("file", .string(trusted.file))
        ]
    }
}

/// `stats`: the node's and the engine's counters by name.
struct StatsReply: REPLReply {
    let pairs: [(String, Int)]
    func text(_ r: Renderer) -> String { pairs.map { "\($0.0) \($0.1)" }.joined(separator: "\n") }
    func json(_ r: Renderer) -> [(String, JSON)] { [("stats", .object(pairs.map { ($0.0, .int($0.1)) }))] }
}
