import SkwadCrypto
import SkwadModel
import SkwadReplica
import SkwadStore

/// A feature of the node (direct messages, follows, captions, profiles, invite-only packs,
/// places, pictures, blocks and mutes) as the node's shared paths see it, after
/// hashicorp/memberlist's `Delegate`: the node commits the ops other nodes send, answers
/// `inbox` and signs the user's ops, and on each of those paths asks every feature, in the
/// order of `NodeFeatures.all`, what it has to do or add. Every hook has a default that does
/// nothing, so a feature implements the ones it needs. A feature keeps its own state in its
/// own type and reaches the node's replica, store and keys through the `node` it is handed
/// (the node's actor: every hook runs on it).
protocol NodeFeature: AnyObject {
    /// Ops from elsewhere just committed to the store, as they came (an invite-only pack's
    /// still sealed), before anything reads them: keys handed to this node, the Alpha's late
    /// handouts.
    func committed(_ ops: [SignedOp], node: isolated Node)
    /// Lines for the user about the same ops, as the replica holds them (sealed ones opened).
    /// `listening`: someone hears the node's events; without, a feature only does what must
    /// happen anyway (the receipts a direct message is owed).
    func arrived(_ ops: [SignedOp], nowMs: UInt64, listening: Bool, node: isolated Node) -> [NodeEvent]
    /// After the lines are out: work that may take a while (minting receipts, fetching pictures).
    func settle(_ ops: [SignedOp], nowMs: UInt64, node: isolated Node)
    /// Inbox entries among the ops stored since the user last looked.
    func inboxItems(_ ops: [SignedOp], nowMs: UInt64, node: isolated Node) -> [InboxItem]
    /// An inbox entry about one of those ops that answers the user's own (its pack live, in the
    /// replica, by someone else, not blocked), in its place among replies and votes.
    func inboxItem(answering op: SignedOp, label: String, nowMs: UInt64, node: isolated Node) -> InboxItem?
    /// The op kind as it is signed in `pack` by `author` (sealed; or refused with an error).
    func seal(_ kind: OpKind, pack: PackState, author: PublicKey, node: isolated Node) throws -> OpKind
    /// A local change the store just committed, applied to what the feature keeps in memory.
    func apply(_ change: LocalChange, node: isolated Node)
    /// A pack purged from memory and from the store.
    func purged(_ pack: PackID, node: isolated Node)
}

extension NodeFeature {
    func committed(_ ops: [SignedOp], node: isolated Node) {}
    func arrived(_ ops: [SignedOp], nowMs: UInt64, listening: Bool, node: isolated Node) -> [NodeEvent] { [] }
    func settle(_ ops: [SignedOp], nowMs: UInt64, node: isolated Node) {}
    func inboxItems(_ ops: [SignedOp], nowMs: UInt64, node: isolated Node) -> [InboxItem] { [] }
    func inboxItem(answering op: SignedOp, label: String, nowMs: UInt64, node: isolated Node) -> InboxItem? { nil }
    func seal(_ kind: OpKind, pack: PackState, author: PublicKey, node: isolated Node) throws -> OpKind { kind }
    func apply(_ change: LocalChange, node: isolated Node) {}
    func purged(_ pack: PackID, node: isolated Node) {}
}

/// The node's features: each by its type, for the node's API that belongs to it, and all of
/// them in the order the shared paths ask them (`all`). A new feature is a type of its own
/// in its own file, a property here and an entry in `all`.
final class NodeFeatures {
    let blocks = Blocks()
    let privatePacks = PrivatePacks()
    let conversations = Conversations()
    let follows = Follows()
    let captions = Captions()
    let profiles = Profiles()
    let places = Places()
    let pictures = Pictures()
    /// In the order every path asks them: what a pack's keys open comes before what reads it;
    /// a message's line before a followed post's; the receipts a message is owed before the
    /// pictures fetched.
    private(set) var all: [any NodeFeature]

    init() {
        all = [blocks, privatePacks, conversations, follows, captions, profiles, places, pictures]
    }

    /// Adds a feature after the others (tests: one that records what it hears).
    func register(_ feature: any NodeFeature) { all.append(feature) }
}

extension Node {
    /// Adds a feature after the built-in ones; it hears everything from then on.
    func register(_ feature: any NodeFeature & Sendable) { features.register(feature) }

    /// Ops from elsewhere just committed: every feature's bookkeeping, then the opened ops'
    /// lines (the node's own about posts, comments and votes first, then each feature's), then
    /// each feature's slower work.
    func tellFeatures(_ ops: [SignedOp], nowMs: UInt64) {
        for f in features.all { f.committed(ops, node: self) }
        // Sealed ops of invite-only packs read as what they opened into (NodePrivatePacks.swift).
        let ops = ops.map { replica.op($0.id) ?? $0 }
        let listening = eventSink != nil
        var heard = listening ? events(for: ops, nowMs: nowMs) : []
        for f in features.all { heard += f.arrived(ops, nowMs: nowMs, listening: listening, node: self) }
        if let sink = eventSink { for e in heard { sink(e) } }
        for f in features.all { f.settle(ops, nowMs: nowMs, node: self) }
    }
}
