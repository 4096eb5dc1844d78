import SkwadModel
import SkwadNode

/// Contact codes (issue 29): `invite [PACK] [--qr]` and `connect CODE`. `invite PACK` of an
/// invite-only pack stays its join code (CommandPrivatePacks.swift). `Command.parse` hands
/// these here.
public enum ContactCommand: Equatable, Sendable {
    /// `qr`: draw the QR code even when the output is not a terminal.
    case invite(pack: String?, qr: Bool)
    case connect(code: String)

    static let verbs: Set<String> = ["invite", "connect"]

    static func parse(verb: String, args: inout Args) throws -> ContactCommand? {
        switch verb {
        case "invite":
            let qr = args.flag("--qr")
            return .invite(pack: args.optionalPositional(), qr: qr)
        case "connect": return .connect(code: try args.positional("CODE"))
        default: return nil
        }
    }
}

let contactHelp: [(name: String, usage: String, summary: String)] = [
    (
        "invite", "invite [PACK] [--qr]",
        "this node's contact code (and QR code) for a friend's `connect`; with a pack, they join it too "
            + "(of an invite-only pack: its join code)"
    ),
    (
        "connect", "connect CODE|HOST:PORT",
        "link to the node a contact code names, checking that it holds the code's key (a join code: join it; an address: link only)"
    )
]

public enum ContactReply: Sendable {
    /// `qr`: the QR code's module rows; drawn on a terminal, or anywhere when `drawn`.
    case code(String, packName: String?, qr: [[Bool]]?, drawn: Bool)
    case connected(Node.Connected)
    /// `connect HOST:PORT`: linked, no key checked.
    case linked(String)
}

extension Executor {
    func runContact(_ cmd: ContactCommand) async throws -> Reply {
        switch cmd {
        case let .invite(ref?, _) where (try? await node.isInviteOnly(ref)) == true:
            return .privatePack(try await runPrivatePack(.invite(ref)))
        case let .invite(ref, qr):
            let code = try await node.contactCode(pack: ref)
            var name: String?
            if let ref { name = try await node.resolvePack(ref).name }
            return .contact(.code(code, packName: name, qr: QRText.modules(code), drawn: qr))
        case .connect(let code) where JoinCode.looks(code):
            return .privatePack(.joined(try await node.joinInvite(code)))
        case .connect(let address) where !ContactCode.looks(address) && address.contains(":"):
            return .contact(.linked(try await node.link(address)))
        case .connect(let code):
            return .contact(.connected(try await node.connect(code)))
        }
    }
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
