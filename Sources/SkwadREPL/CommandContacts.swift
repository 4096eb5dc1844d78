import SkwadModel
import SkwadNode

/// Contact codes (issue 29): `invite [PACK] [--qr]` and `connect CODE`. `invite PACK` of an
/// invite-only pack stays its join code (CommandPrivatePacks.swift).
struct InviteCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "invite", usage: "invite [PACK] [--qr]",
        summary: "this node's contact code (and QR code) for a friend's `connect`; with a pack, they join it too "
            + "(of an invite-only pack: its join code)",
        params: [.flag("qr", "--qr"), .optionalWord("pack")], completion: Completes(first: [.packs]))
    /// Draw the QR code even when the output is not a terminal.
    var qr = false
    var pack: String?

    func run(_ x: Executor) async throws -> any REPLReply {
        let node = x.node
        if let pack, (try? await node.isInviteOnly(pack)) == true {
            let code = try await node.invite(pack)
            return PrivatePackReply.invite(code: code, packName: try await node.resolvePack(pack).name)
        }
        let code = try await node.contactCode(pack: pack)
        var name: String?
        if let pack { name = try await node.resolvePack(pack).name }
        return ContactReply.code(code, packName: name, qr: QRText.modules(code), drawn: qr)
    }
}

struct ConnectCommand: REPLCommand, Equatable {
    static let spec = CommandSpec(
        "connect", usage: "connect CODE|HOST:PORT",
        summary:
            "link to the node a contact code names, checking that it holds the code's key (a join code: join it; an address: link only)",
        params: [.word("code", "CODE")])
    var code: String

    func run(_ x: Executor) async throws -> any REPLReply {
        let node = x.node
        if JoinCode.looks(code) { return PrivatePackReply.joined(try await node.joinInvite(code)) }
        if !ContactCode.looks(code) && code.contains(":") { return ContactReply.linked(try await node.link(code)) }
        return ContactReply.connected(try await node.connect(code))
    }
}

public enum ContactReply: REPLReply {
    /// `qr`: the QR code's module rows; drawn on a terminal, or anywhere when `drawn`.
    case code(String, packName: String?, qr: [[Bool]]?, drawn: Bool)
    case connected(Node.Connected)
    /// `connect HOST:PORT`: linked, no key checked.
    case linked(String)

    public func text(_ r: Renderer) -> String { r.contactText(self) }
    public func json(_ r: Renderer) -> [(String, JSON)] { r.contactJSON(self) }
}

extension Renderer {
    func contactText(_ r: ContactReply) -> String {
        switch r {
        case let .code(code, packName, qr, drawn):
            let what = packName.map { "this node and pack \(SafeText.line($0))" } ?? "this node"
            var lines = ["contact code for \(what) (a friend types: connect CODE):", "  \(code)"]
            if let qr, drawn || mode == .terminal { lines += QRText.lines(qr, colour: mode == .terminal) }
            return lines.joined(separator: "\n")
        case .connected(let c):
            var s = "connected to \(c.address): it proved the code's key (fingerprint \(c.fingerprint.prefix(8)))"
            if let p = c.pack { s += "\njoined \(SafeText.line(p.name)) \(id(p.id))" }
            return s
        case .linked(let address): return "linked to \(address) (a bare address: no key checked; a contact code checks one)"
        }
    }

    func contactJSON(_ r: ContactReply) -> [(String, JSON)] {
        switch r {
        case let .code(code, packName, _, _): return [("code", .string(code)), ("packName", packName.map { .string($0) } ?? .null)]
        case .connected(let c):
            return [
                ("address", .string(c.address)), ("fingerprint", .string(c.fingerprint)),
                ("pack", c.pack.map { .string($0.id.hex) } ?? .null)
            ]
        case .linked(let address): return [("address", .string(address))]
        }
    }
}
