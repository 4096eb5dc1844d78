import SkwadCrypto
import SkwadModel
import SkwadReplica

/// Builds real signed ops for tests, deterministically from a seed: users are master
/// secrets, pseudonyms and stamps are derived exactly as a node derives them.
public struct OpFactory {
    public var rng: SplitMix64
    public var clock: ManualClock
    private var hlc = HybridClock()
    private var stamps: [[UInt8]: UInt64] = [:]

    /// Mint stamps at the protocol's floors (`PowFloor`). Tests of other rules that make many
    /// packs or pseudonyms turn this off and give their replicas `ReplicaConfig.noFloors`.
    public var floors: Bool

    public init(seed: UInt64, nowMs: UInt64 = 1_790_000_000_000, floors: Bool = true) {
        rng = SplitMix64(seed: seed); clock = ManualClock(nowMs: nowMs); self.floors = floors
    }

    public var nowMs: UInt64 { clock.nowMs }

    public mutating func user() -> MasterSecret { try! MasterSecret(bytes: rng.bytes(32)) }

    /// The pseudonym `user` acts under in `pack` (given its genesis).
    public func pseudonym(_ user: MasterSecret, in genesis: SignedOp) -> SigningKeyPair {
        user.pseudonym(genesisNonce: Self.create(genesis).nonce)
    }

    static func create(_ genesis: SignedOp) -> CreatePack {
        guard case .createPack(let c) = genesis.body.kind else { preconditionFailure("not a genesis op") }
        return c
    }

    /// Stamps at the protocol's floors (`PowFloor`), as a real node mints them; a genesis
    /// stamp (more bits) is also valid as its author's pseudonym stamp.
    private mutating func stamp(_ key: SigningKeyPair, nonce: [UInt8], bits: UInt32) -> UInt64 {
        let k = nonce + key.publicKey.bytes
        if let s = stamps[k], ProofOfWork.isValid(genesisNonce: nonce, author: key.publicKey.bytes, stamp: s, bits: Int(bits)) { return s }
        let s = ProofOfWork.mint(genesisNonce: nonce, author: key.publicKey.bytes, bits: Int(bits))
        stamps[k] = s
        return s
    }

    public mutating func nextHLC(advanceMs: UInt64 = 1) -> HLC {
        clock.advance(ms: advanceMs)
        return hlc.tick(physicalMs: clock.nowMs)
    }

    public mutating func createPack(
        by user: MasterSecret, name: String = "pack", tags: [String] = [], fence: Geofence? = nil,
        locked: Bool = false, powBits: UInt32 = 0, hideScore: UInt32 = 0,
        signer: SigningKeyPair? = nil
    ) -> SignedOp {
        let nonce = rng.bytes(16)
        let key = signer ?? user.pseudonym(genesisNonce: nonce)
        let c = CreatePack(
            name: name, tags: tags, color: "", fence: fence, locked: locked, nonce: nonce, powBits: powBits, hideScore: hideScore)
        let body = OpBody(
            packID: nil, author: key.publicKey, hlc: nextHLC(),
            stamp: stamp(key, nonce: nonce, bits: floors ? PowFloor.genesis(powBits) : powBits),
            kind: .createPack(c))
        return try! SignedOp.sign(body, with: key)
    }

    /// An op of `kind` by `user` in the pack of `genesis`.
    public mutating func op(
        _ kind: OpKind, by user: MasterSecret, in genesis: SignedOp, location: String? = nil,
        signer: SigningKeyPair? = nil, hlc: HLC? = nil
    ) -> SignedOp {
        let c = Self.create(genesis)
        let key = signer ?? user.pseudonym(genesisNonce: c.nonce)
        let body = OpBody(
            packID: genesis.id, author: key.publicKey, hlc: hlc ?? nextHLC(), location: location,
            stamp: stamp(key, nonce: c.nonce, bits: floors ? PowFloor.pseudonym(c.powBits) : c.powBits), kind: kind)
        return try! SignedOp.sign(body, with: key)
    }

    /// Envelope bytes of an op of `kind` signed by its author *without* the field checks of
    /// `SignedOp.sign`: what a hostile peer can put on the wire (too many sealed boxes, an
    /// empty edit, …). The stamp is valid, so only the rule under test can reject it.
    public mutating func unchecked(_ kind: OpKind, by user: MasterSecret, in genesis: SignedOp, signer: SigningKeyPair? = nil) -> [UInt8] {
        let c = Self.create(genesis)
        let key = signer ?? user.pseudonym(genesisNonce: c.nonce)
        let body = OpBody(
            packID: genesis.id, author: key.publicKey, hlc: nextHLC(),
            stamp: stamp(key, nonce: c.nonce, bits: floors ? PowFloor.pseudonym(c.powBits) : c.powBits), kind: kind)
        let bytes = body.serialized()
        return Envelope(body: bytes, signature: key.sign(bytes)).serialized()
    }

    public mutating func post(
        by user: MasterSecret, in genesis: SignedOp, title: String = "title", body: String = "body",
        location: String? = nil
    ) -> SignedOp {
        op(.post(Post(title: title, body: body)), by: user, in: genesis, location: location)
    }

    public mutating func comment(
        by user: MasterSecret, in genesis: SignedOp, on post: SignedOp, parent: SignedOp? = nil,
        text: String = "comment", location: String? = nil
    ) -> SignedOp {
        op(.comment(Comment(post: post.id, parent: parent?.id, body: text)), by: user, in: genesis, location: location)
    }

    public mutating func vote(
        by user: MasterSecret, in genesis: SignedOp, on target: SignedOp, value: Int32,
        location: String? = nil
    ) -> SignedOp {
        op(.vote(Vote(target: target.id, value: value)), by: user, in: genesis, location: location)
    }
}
