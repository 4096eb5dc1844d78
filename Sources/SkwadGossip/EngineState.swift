import SkwadCrypto
import SkwadModel

/// The engine's state besides its peers, sessions, rounds and the parts with files of their
/// own (membership, SWIM, vicinity, reach, directory, pictures), in two groups, each owned by
/// the layer named (GossipEngine.swift holds one of each), with what each part drops of a
/// forgotten peer (`PeerState`) and its prompt work and deadline (`TimedPart`, Parts.swift).

/// Rate limits on what peers may make us keep (PROTOCOL §13).
struct RateLimits: Sendable {
    /// Ops accepted per pseudonym (Dissemination.swift, `admitRate`).
    var pseudonym: [PublicKey: TokenBucket] = [:]
    /// New packs accepted per source address (Dissemination.swift, `takeGenesis`).
    var genesis: [PeerAddress: TokenBucket] = [:]
    /// When idle pseudonym buckets are next swept.
    var nextSweepMs: UInt64 = 0
}

/// How ops spread: push and pull trees, the stem, reconciliation's turn (PROTOCOL §10–11).
struct Spread: Sendable {
    /// Verifies an envelope (decoded, with its id): `SignedOp.open`, or the simulator's memo.
    var opener: @Sendable (Envelope, OpID) throws -> SignedOp = { envelope, _ in try SignedOp.open(envelope) }
    /// Plumtree: lazy links, announced ids not yet received, IHAVEs owed (Plumtree.swift).
    var plumtree: Plumtree
    /// Dandelion++ stem: this epoch's stem link and the ops under embargo (Stem.swift).
    var stem = StemState()
    var reconCursor = 0
    /// This round's reconciliations not answered yet (AntiEntropy.swift).
    var reconUnanswered: Set<ReconAsked> = []
    /// Invite-only packs whose reconciliation with a link ended settled on its first step since
    /// this engine started: the link held nothing of the pack we lack, key handouts included
    /// (PROTOCOL §3b, "Key sync"). At most `keySyncCapacity`; `keySyncNew` are those the shell
    /// has not taken yet (`takeKeySynced`).
    var keySynced: Set<PackID> = []
    var keySyncNew: [PackID] = []
    /// Pack reconciliation steps held to go out together, one `Reconciles` per link (nil: not
    /// holding; AntiEntropy.swift, `holdReconciles`).
    var reconOutbox: [(to: PeerAddress, round: ReconcileRound, size: Int)]?
    /// Live packs and directory views, until the replica's packs change (PackViews.swift); lent
    /// to the directory part for its inputs (Directory.swift).
    var packViews = PackViewCache()

    init(config: GossipConfig) { plumtree = Plumtree(missingCapacity: config.spread.missingCapacity) }
}

extension Spread: PeerState {
    /// Its Plumtree mark goes: a link that comes back starts eager. Kept, each ending by
    /// itself: the IHAVEs owed to it (the next tick sends them to links only), its
    /// announcements of ids we lack (grafted from each announcer in turn, then left to
    /// reconciliation), reconciliations it left unanswered (counted when the round ends), and
    /// the stem link (chosen again at its next use when it is no link).
    mutating func forget(_ peer: PeerAddress) { plumtree.setLazy(peer, false) }
}

extension Spread: TimedPart {
    /// Lazy notices to flush, announced ops to graft, ops under embargo (their fail-safe).
    var busy: Bool { plumtree.hasPromptWork || !stem.embargo.isEmpty }
}
