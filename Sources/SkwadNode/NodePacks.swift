import SkwadCrypto
import SkwadModel
import SkwadReplica
import SkwadStore

extension Node {
    /// Creates a pack (centred on the current location when it has a radius) and joins it;
    /// this node's pseudonym in it is the Alpha. The genesis, the membership and the stamp
    /// commit in one transaction.
    public func createPack(
        name: String, radiusMeters: Double?, locked: Bool, tags: [String], color: String,
        asAdmin: Bool = false, inviteOnly: Bool = false
    ) throws -> PackSummary {
        try PackNames.check(name)
        let paletteColor: String
        do { paletteColor = try Palette.validate(color) } catch { throw NodeError("\(error)") }
        var fence: Geofence?
        if let r = radiusMeters {
            guard r.isFinite, r >= 1, r <= Double(Limits.maxRadiusMeters) else {
                throw NodeError("radius must be 1...\(Limits.maxRadiusMeters) metres")
            }
            guard let here = location else {
                throw NodeError("a geofenced pack is centred on you: set your location first (locate LAT,LON)")
            }
            fence = Geofence.snapped(center: here, radiusMeters: r)  // centre on the 0.001° grid: no exact place
        }
        if locked && fence == nil { throw NodeError("a locked pack needs a radius (--radius METERS)") }
        if locked && inviteOnly { throw NodeError("an invite-only pack cannot be locked (its ops claim no location)") }
        let nonce = SecureRandom.bytes(16)
        let key: SigningKeyPair
        if asAdmin {
            guard let admin else { throw NodeError("this node has no admin key (admin_secret_file)") }
            key = admin
        } else {
            key = master.pseudonym(genesisNonce: nonce)
        }
        // A genesis counts against its author's budget, as peers count it (PROTOCOL §13).
        try takeLocalBudget(key.publicKey, nowMs: now())
        let bits = config.powBits
        let stamp = ProofOfWork.mint(
            genesisNonce: nonce, author: key.publicKey.bytes, bits: Int(replica.config.genesisBits(bits)),
            progress: mintProgress)
        mintProgress?(0)
        var create = CreatePack(name: name, tags: tags, color: paletteColor, fence: fence, locked: locked, nonce: nonce, powBits: bits)
        var packKey: [UInt8]?
        if inviteOnly {
            let k = SecureRandom.bytes(Limits.packKeyBytes)
            packKey = k
            do {
                let meta = try PrivatePack.sealMeta(
                    name: name, tags: tags, color: paletteColor, genesisNonce: nonce, key: k,
                    nonce: SecureRandom.bytes(AEAD.nonceCount))
                create = CreatePack(name: "", fence: fence, nonce: nonce, powBits: bits, inviteOnly: true, sealedMeta: meta)
            } catch { throw NodeError("\(error)") }
        }
        let body = OpBody(
            packID: nil, author: key.publicKey, hlc: own.genesisClock.tick(physicalMs: now()), stamp: stamp, kind: .createPack(create))
        let op: SignedOp
        do { op = try SignedOp.sign(body, with: key) } catch { throw NodeError("\(error)") }
        if inviteOnly { try checkPrivateCapacity(adding: op.id) }
        let keyChange: [LocalChange] = packKey.map { [.packKey(op.id, epoch: 0, key: $0)] } ?? []
        try commit(op, with: [.stamp(op.id, stamp), .joined(op.id, true, atMs: now())] + keyChange)
        identity.keys[op.id] = key
        guard let state = replica.pack(op.id) else { throw NodeError("internal: pack \(op.id.short()) not admitted") }
        return replica.summary(state, from: location)
    }

    public struct PackListing: Sendable {
        public let pack: PackSummary
        public let joined: Bool
    }

    /// Live packs, with distance and bearing from the current location.
    public func packs(sort: PackSort = .new, tag: String? = nil) -> [PackListing] {
        purgeIfDue()
        return replica.packs(nowMs: now(), from: location, sort: sort, tag: tag).map { PackListing(pack: $0, joined: joined[$0.id] != nil) }
    }

    /// Resolves a pack among live packs. Ids win over names: a token of hex digits that starts
    /// the id of a live pack names that pack, whatever another pack is called (a remote pack
    /// named like the id prefix of another must not capture what is typed for it); several
    /// such packs are an error listing them. Otherwise the exact name (case-insensitive), then
    /// a label `NAME·abcd`. A name a live pack had before a rename is answered with its new name.
    public func resolvePack(_ ref: String) throws -> PackSummary {
        let live = replica.packs(nowMs: now(), from: location)
        let lower = ref.lowercased()
        if PackNames.isHex(lower) {
            let byID = live.filter { $0.id.hex.hasPrefix(lower) }
            if byID.count == 1 { return byID[0] }
            if byID.count > 1 {
                throw NodeError(
                    "'\(NodeError.quote(ref))' starts the ids of \(byID.count) packs: "
                        + "say which (\(choices(byID, typed: lower.count)))")
            }
        }
        let named = live.filter { $0.name.lowercased() == lower }
        if named.count == 1 { return named[0] }
        if named.count > 1 {
            // A shared name: the one pack of that name you are in, else say how to tell them apart.
            let mine = named.filter { joined[$0.id] != nil }
            if mine.count == 1 { return mine[0] }
            let styles = packStyles()
            let labels = named.sorted { $0.id < $1.id }.map { styles[$0.id]?.label ?? $0.id.hex }
            throw NodeError("\(named.count) packs are named '\(NodeError.quote(ref))': say which (\(labels.joined(separator: ", ")))")
        }
        if let p = resolveLabel(ref, among: live) { return p }
        if let renamed = PackNames.renamed(from: lower, among: live, replica: replica) {
            throw NodeError(
                "no pack is named '\(NodeError.quote(ref))' now: "
                    + "pack '\(renamed.name)' (\(renamed.id.short(6))) was, before a rename; use its new name or its id")
        }
        if PackNames.isHex(lower) { throw NodeError("no pack named or with id '\(NodeError.quote(ref))' (see: packs)", unknownPack: true) }
        throw NodeError("no pack named '\(NodeError.quote(ref))' (see: packs)", unknownPack: true)
    }

    /// Up to 6 packs as `NAME (id prefix)`, each prefix long enough to tell them apart.
    func choices(_ packs: [PackSummary], typed: Int) -> String {
        let sorted = packs.sorted { $0.id < $1.id }
        var n = max(6, typed + 1)
        while n < 64, Set(sorted.map { $0.id.hex.prefix(n) }).count < sorted.count { n += 1 }
        let shown = sorted.prefix(6).map { "\($0.name) \($0.id.hex.prefix(n))" }
        return shown.joined(separator: ", ") + (sorted.count > 6 ? ", and \(sorted.count - 6) more" : "")
    }

    /// Joins a pack: its posts enter the feed (and, with gossip, the node replicates it).
    /// A pack not known here yet is asked of the neighbours by name or id prefix
    /// (`FindPack`, PROTOCOL §11a); the answer is awaited at most `findWaitMs`.
    public func join(_ ref: String, findWaitMs: UInt64 = 3000) async throws -> PackSummary {
        let p = try await resolveOrFind(ref, waitMs: findWaitMs)
        try commit([.joined(p.id, true, atMs: now())])
        return p
    }

    /// Resolves a pack here, or asks the neighbours for it and waits (bounded) for its genesis.
    func resolveOrFind(_ ref: String, waitMs: UInt64) async throws -> PackSummary {
        do { return try resolvePack(ref) } catch let error as NodeError where error.isUnknownPack {
            guard network != nil else { throw error }
            let asked = askNeighbours(for: ref)
            guard asked > 0 else { throw NodeError("no pack named or with id '\(NodeError.quote(ref))' here, and no neighbour to ask yet") }
            // Poll the replica: ops arrive through the actor while it sleeps.
            let polls = max(1, waitMs / 50)
            for _ in 0..<polls {
                try? await Task.sleep(nanoseconds: 50_000_000)
                do { return try resolvePack(ref) } catch let e as NodeError where e.isUnknownPack { continue }
            }
            // A locked pack's genesis goes only to nodes inside its fence (PROTOCOL §12): from
            // outside it, nobody can tell us it exists.
            let who = "\(asked) neighbour\(asked == 1 ? "" : "s")"
            throw NodeError(
                "no pack named or with id '\(NodeError.quote(ref))': asked \(who) for \(waitMs / 1000) s, "
                    + "none knew it (a locked pack is found only from inside its fence: locate LAT,LON there first)")
        }
    }

    /// Sends `FindPack` to the links; returns how many peers were asked.
    func askNeighbours(for ref: String) -> Int {
        guard network != nil else { return 0 }
        let ds = network!.engine.findPack(ref, nowMs: now(), replica: replica)
        carryOut(ds)
        return Set(ds.compactMap { if case .send(_, let to) = $0 { to } else { nil } }).count
    }

    public func leave(_ ref: String) throws -> PackSummary {
        let p = try resolvePack(ref)
        guard joined[p.id] != nil else { throw NodeError("you are not in pack '\(p.name)'") }
        try commit([.joined(p.id, false, atMs: now())])
        return p
    }

    public func isJoined(_ id: PackID) -> Bool { joined[id] != nil }
    public var joinedPackIDs: Set<PackID> { Set(joined.keys) }
}
