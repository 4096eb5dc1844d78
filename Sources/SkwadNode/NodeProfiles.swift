import SkwadCrypto
import SkwadModel
import SkwadReplica
import SkwadStore

/// Profiles by consent (issue 26): in each pack a node may act under a second key, its
/// **persona**, derived apart from its anonymous pseudonym. The persona publishes a display
/// name (`Profile`) and signs the posts made with `--named`; everything else stays under the
/// pseudonym, which nothing links to the persona (PROTOCOL.md §3a).
extension Node {
    static let personaStampPrefix = "persona.stamp."
    static func personaStampSetting(_ pack: PackID) -> String { personaStampPrefix + pack.hex }

    /// Publishes (or changes) your display name in a pack, under your persona there.
    /// Returns the name and about line as published (blanks trimmed).
    public func profile(
        pack ref: String, name: String, about: String
    ) throws -> (
        id: OpID, persona: PublicKey, packName: String, name: String, about: String
    ) {
        purgeIfDue()
        let p = try resolvePack(ref)
        let n = name.trimmingWhitespaceForReport(), a = about.trimmingWhitespaceForReport()
        guard !n.isEmpty else { throw NodeError("a display name cannot be empty: profile PACK --name \"NAME\"") }
        guard n.utf8.count <= Limits.maxDisplayName else {
            throw NodeError("display name is \(n.utf8.count) bytes, limit \(Limits.maxDisplayName)")
        }
        guard a.utf8.count <= Limits.maxReason else { throw NodeError("about is \(a.utf8.count) bytes, limit \(Limits.maxReason)") }
        let (op, changes) = try sign(.profile(Profile(name: n, about: a)), in: p.id, persona: true)
        try commit(op, with: changes)
        return (op.id, op.author, packLabel(p.id) ?? p.name, n, a)
    }

    /// Posts under your persona in a pack: shown with the display name you published there.
    public func postNamed(pack ref: String, title: String, body: String, tags: [String]) throws -> OpID {
        purgeIfDue()
        let p = try resolvePack(ref)
        guard let persona = personaKey(p.id), replica.profile(of: persona.publicKey, in: p.id) != nil else {
            let label = packLabel(p.id) ?? p.name
            throw NodeError("you have no display name in \(label) yet: profile \(CommandWord.quote(label)) --name \"NAME\" first")
        }
        var (op, changes) = try sign(.post(Post(title: title, body: body, tags: tags)), in: p.id, persona: true)
        if joined[p.id] == nil { changes.append(.joined(p.id, true, atMs: now())) }
        try commit(op, with: changes)
        return op.id
    }

    /// The persona key of this node in a pack.
    func personaKey(_ pack: PackID) -> SigningKeyPair? { features.profiles.key(in: pack, master: master, replica: replica) }

    /// The persona's stamp in a pack, once it acted there.
    func personaStamp(_ pack: PackID) -> UInt64? { features.profiles.stamp(in: pack, store: store) }
}

/// Profiles as a feature of the node: it keeps the persona of each pack and the persona's
/// stamps (loaded from the store's settings on first use), and hears the stamps committed.
final class Profiles: NodeFeature {
    /// Per pack, the persona that publishes a display name.
    private var personas: [PackID: SigningKeyPair] = [:]
    /// Per pack, the persona's stamp once it acted there; nil until first read.
    private var stamps: [PackID: UInt64]?

    func key(in pack: PackID, master: MasterSecret, replica: Replica) -> SigningKeyPair? {
        if let k = personas[pack] { return k }
        guard let p = replica.pack(pack) else { return nil }
        let k = master.persona(genesisNonce: p.genesis.createNonce)
        personas[pack] = k
        return k
    }

    func stamp(in pack: PackID, store: Store) -> UInt64? {
        if stamps == nil {
            var cache: [PackID: UInt64] = [:]
            let rows = (try? store.settings(prefix: Node.personaStampPrefix)) ?? [:]
            for (k, v) in rows {
                guard let bytes = Hex.decode(String(k.dropFirst(Node.personaStampPrefix.count))), let id = try? OpID(bytes: bytes),
                    let s = UInt64(v)
                else { continue }
                cache[id] = s
            }
            stamps = cache
        }
        return stamps?[pack]
    }

    /// Keeps a persona stamp just committed (a `.setting` local change) in memory.
    func apply(_ change: LocalChange, node: isolated Node) {
        guard case .setting(let key, let value) = change, key.hasPrefix(Node.personaStampPrefix),
            let bytes = Hex.decode(String(key.dropFirst(Node.personaStampPrefix.count))), let id = try? OpID(bytes: bytes)
        else { return }
        _ = stamp(in: id, store: node.store)
        stamps?[id] = value.flatMap { UInt64($0) }
    }
}
