import SkwadModel

/// Every message of the gossip protocol (PROTOCOL §9–11a) as the engine handles it. The
/// protobuf mapping, with every check and clamp on what comes from the wire, is in one file
/// (MessageWire.swift); handlers see only these values, one `on…` handler per case
/// (Dispatch.swift).
enum Message: Sendable, Equatable {
    // Membership (§9): HyParView, SWIM, vicinity.
    case join(NodeInfo)
    case forwardJoin(joiner: PeerRef, ttl: UInt32)
    case neighbor(NeighborRequest)
    /// `observed`: with an acceptance, the requester's address as we see it.
    case neighborReply(accepted: Bool, info: NodeInfo, observed: PeerAddress? = nil)
    case disconnect
    case shuffle([PeerRef])
    case shuffleReply([PeerRef])
    /// `info` now and then, and to peers that may not know it (§9, "Quiet when idle").
    case ping(seq: UInt64, info: NodeInfo?)
    /// `info` only to our links; `notMember`: the pinger holds us, we do not hold it.
    case ack(seq: UInt64, info: NodeInfo?, notMember: Bool)
    case pingReq(seq: UInt64, target: PeerAddress)
    case indirectAck(seq: UInt64, target: PeerAddress)
    case interest(NodeInfo)
    case vicinity(VicinityExchange)
    // Dissemination (§10, §10a): Plumtree and the stem.
    /// `repair`: an answer to a pull, or ops that came by one (never prunes).
    case ops(envelopes: [[UInt8]], repair: Bool)
    /// Announced op ids: 8-byte prefixes (or full 32-byte ids).
    case ihave([[UInt8]])
    /// Ops asked for by id (8-byte prefix or full); `graft` makes the link eager at both ends.
    case want(ids: [[UInt8]], graft: Bool)
    case prune
    case stem(envelope: [UInt8])
    // Reconciliation (§11) and the pack directory (§11a).
    case reconcile(ReconcileRound)
    /// Pack steps to one link, each handled as if it came alone (at most `maxBatched`).
    case reconciles([ReconcileRound])
    case findPack(query: String)
    // Reach (§9 "Introductions").
    /// `padding`: its zero bytes (counted: at least 240 make the message large enough).
    case introduce(peer: PeerAddress, padding: [UInt8])
    /// The receiver's address as we see it (its reflexive address, Reflexive.swift).
    case observed(PeerAddress)
    /// Pass `frame` to member `to` (Relay.swift).
    case relay(to: PeerAddress, frame: [UInt8])
    /// `frame` from member `from`, passed on by the sender.
    case relayed(from: PeerAddress, frame: [UInt8])
    /// Asks the receiver to prove the key a contact code names: `tag` (32 bytes) is keyed
    /// with the code's fingerprint over our session's binding (Contacts.swift).
    case contactProbe(tag: [UInt8], padding: [UInt8])
    /// The contact key (32 bytes) and its signature (64) over our session's binding.
    case contactProof(publicKey: [UInt8], signature: [UInt8])
    // Pictures (§10b).
    /// Blocks of the picture with manifest root `root` (32 bytes), at most 8 indexes; `wait`:
    /// a block the receiver is fetching itself is answered when it arrives (Pictures.swift).
    case blockWant(root: [UInt8], indexes: [Int], wait: Bool)
    /// One block; empty `data`: the sender does not hold it.
    case block(root: [UInt8], index: Int, data: [UInt8])

    /// Does the receiver always answer it (when it holds our session)? Only these start a
    /// session's silence clock (§8): a reply, a push or a notice that gets no answer proves
    /// nothing, and counting them dropped healthy sessions on idle vicinity links.
    var solicitsAnswer: Bool {
        switch self {
        case .ping, .join, .shuffle: true
        // A low-priority request may walk on and be answered by another node, or not at all.
        case .neighbor(let n): n.highPriority
        case .vicinity(let v): !v.reply
        case .reconcile(let r): r.initiator && r.pack != nil
        case .reconciles(let rounds): rounds.contains { $0.initiator }
        default: false
        }
    }

    /// The message's kind, for per-kind counters.
    var kind: MessageKind {
        switch self {
        case .join: .join
        case .forwardJoin: .forwardJoin
        case .neighbor: .neighbor
        case .neighborReply: .neighborReply
        case .disconnect: .disconnect
        case .shuffle: .shuffle
        case .shuffleReply: .shuffleReply
        case .ping: .ping
        case .ack: .ack
        case .pingReq: .pingReq
        case .indirectAck: .indirectAck
        case .interest: .interest
        case .vicinity: .vicinity
        case .ops: .ops
        case .ihave: .ihave
        case .want: .want
        case .prune: .prune
        case .stem: .stem
        case .reconcile: .reconcile
        case .reconciles: .reconciles
        case .findPack: .findPack
        case .introduce: .introduce
        case .observed: .observed
        case .relay: .relay
        case .relayed: .relayed
        case .contactProbe: .contactProbe
        case .contactProof: .contactProof
        case .blockWant: .blockWant
        case .block: .block
        }
    }
}

/// Kinds of message, for the per-kind counters of `GossipStats` (`name` is the counter's
/// key); `raw`: a protobuf message sent as it is (tests' hostile peers).
enum MessageKind: Int, CaseIterable, Sendable {
    case join, forwardJoin, neighbor, neighborReply, disconnect, shuffle, shuffleReply, ping, ack, pingReq, indirectAck, interest, vicinity,
        ops, ihave, want, prune, stem, reconcile, reconciles, findPack, blockWant, block, introduce, observed, relay, relayed, contactProbe,
        contactProof, bundle, raw

    var name: String {
        switch self {
        case .join: "join"
        case .forwardJoin: "forward_join"
        case .neighbor: "neighbor"
        case .neighborReply: "neighbor_reply"
        case .disconnect: "disconnect"
        case .shuffle: "shuffle"
        case .shuffleReply: "shuffle_reply"
        case .ping: "ping"
        case .ack: "ack"
        case .pingReq: "ping_req"
        case .indirectAck: "indirect_ack"
        case .interest: "interest"
        case .vicinity: "vicinity"
        case .ops: "ops"
        case .ihave: "ihave"
        case .want: "want"
        case .prune: "prune"
        case .stem: "stem"
        case .reconcile: "reconcile"
        case .reconciles: "reconciles"
        case .findPack: "find_pack"
        case .introduce: "introduce"
        case .observed: "observed"
        case .relay: "relay"
        case .relayed: "relayed"
        case .contactProbe: "contact_probe"
        case .contactProof: "contact_proof"
        case .blockWant: "block_want"
        case .block: "block"
        case .bundle: "bundle"
        case .raw: "raw"
        }
    }
}

/// A peer named in a message: its address and the cell it was named with.
struct PeerRef: Sendable, Equatable {
    var address: PeerAddress
    var cell: String?
}

/// `Neighbor`: a request to become an active member. `origin` is set when a full receiver
/// walked the request on (who asks); `ttl` is how many more hops it may walk.
struct NeighborRequest: Sendable, Equatable {
    var highPriority: Bool
    var info: NodeInfo
    var origin: PeerAddress?
    var ttl: UInt32
}

/// `Vicinity`: the sender's info and peers near `target` (nil: near the sender); a `reply`
/// is not answered.
struct VicinityExchange: Sendable, Equatable {
    var info: NodeInfo
    var peers: [PeerRef]
    var reply: Bool
    var target: String?
}

/// `Reconcile`: one step of range-based reconciliation of a pack (`pack`) or of the pack
/// directory seen from `asker`'s cell (`pack` nil).
struct ReconcileRound: Sendable, Equatable {
    var pack: PackID?
    var directory: Bool
    var initiator: Bool
    var lower: Reconciliation.Bound
    var ranges: [Reconciliation.RangeMessage]
    /// The initiator's cell, and this pack's id prefix if it subscribed.
    var asker: NodeInfo?
}
