import Foundation
import SkwadModel

/// The one place that maps messages to and from protobuf (proto/skwad_gossip.proto). Every
/// field from the wire is checked here before a handler sees it: lists are cut to
/// `maxListed`, cells that are not geohashes of at most 12 characters become unknown,
/// addresses and ids must be non-empty, a reconciliation's ranges must all parse and be at
/// most `maxRanges`, a `Reconciles` must hold 2 to `maxBatched` pack steps. A message that
/// fails is dropped whole (`malformedMessage`).
typealias WireMessage = Skwad_Gossip_V1_Message

extension Message {
    /// Entries of any list taken from one message (peers, ids, envelopes).
    static let maxListed = 256
    static let maxPeersListed = 64
    static let maxRanges = Reconciliation.branching * 8
    /// Pack reconciliation steps in one `Reconciles`.
    static let maxBatched = 16
    static let maxAddress = 64

    init?(wire m: WireMessage) {
        switch m.body {
        case .join(let j)?: self = .join(NodeInfo(wire: j.info))
        case .forwardJoin(let f)?:
            guard let joiner = PeerRef(wire: f.joiner) else { return nil }
            self = .forwardJoin(joiner: joiner, ttl: f.ttl)
        case .neighbor(let n)?:
            var origin: PeerAddress?
            if !n.origin.isEmpty {
                guard let o = PeerAddress(checked: n.origin) else { return nil }
                origin = o
            }
            self = .neighbor(NeighborRequest(highPriority: n.highPriority, info: NodeInfo(wire: n.info), origin: origin, ttl: n.ttl))
        case .neighborReply(let r)?:
            var observed: PeerAddress?
            if !r.observed.isEmpty {
                guard let o = PeerAddress(checked: r.observed) else { return nil }
                observed = o
            }
            self = .neighborReply(accepted: r.accepted, info: NodeInfo(wire: r.info), observed: observed)
        case .disconnect?: self = .disconnect
        case .shuffle(let s)?: self = .shuffle(PeerRef.list(s.peers))
        case .shuffleReply(let r)?: self = .shuffleReply(PeerRef.list(r.peers))
        case .ping(let p)?: self = .ping(seq: p.seq, info: p.hasInfo ? NodeInfo(wire: p.info) : nil)
        case .ack(let a)?: self = .ack(seq: a.seq, info: a.hasInfo ? NodeInfo(wire: a.info) : nil, notMember: a.notMember)
        case .pingReq(let r)?:
            guard let t = PeerAddress(checked: r.target) else { return nil }
            self = .pingReq(seq: r.seq, target: t)
        case .indirectAck(let ia)?:
            guard let t = PeerAddress(checked: ia.target) else { return nil }
            self = .indirectAck(seq: ia.seq, target: t)
        case .interest(let i)?: self = .interest(NodeInfo(wire: i))
        case .vicinity(let v)?:
            self = .vicinity(
                VicinityExchange(
                    info: NodeInfo(wire: v.info), peers: PeerRef.list(v.peers), reply: v.reply,
                    target: v.target.isEmpty ? nil : String(v.target.prefix(12))))
        case .ops(let o)?: self = .ops(envelopes: o.envelopes.prefix(Self.maxListed).map { [UInt8]($0) }, repair: o.repair)
        case .ihave(let ih)?: self = .ihave(ih.ids.prefix(Self.maxListed).map { [UInt8]($0) })
        case .want(let w)?: self = .want(ids: w.ids.prefix(Self.maxListed).map { [UInt8]($0) }, graft: w.graft)
        case .prune?: self = .prune
        case .stem(let s)?: self = .stem(envelope: [UInt8](s.envelope))
        case .reconcile(let r)?:
            guard let round = ReconcileRound(wire: r) else { return nil }
            self = .reconcile(round)
        case .reconciles(let b)?:
            // Pack steps only: a directory step goes alone (§11a), and one bad step drops all.
            guard (2...Self.maxBatched).contains(b.rounds.count) else { return nil }
            let rounds = b.rounds.compactMap(ReconcileRound.init(wire:)).filter { $0.pack != nil }
            guard rounds.count == b.rounds.count else { return nil }
            self = .reconciles(rounds)
        case .findPack(let f)?: self = .findPack(query: f.query)
        case .introduce(let i)?:
            guard let p = PeerAddress(checked: i.peer), i.padding.count <= Frame.maxPlaintext else { return nil }
            self = .introduce(peer: p, padding: [UInt8](i.padding))
        case .relay(let r)?:
            guard let to = PeerAddress(checked: r.to), r.frame.count <= Frame.maxDatagram else { return nil }
            self = .relay(to: to, frame: [UInt8](r.frame))
        case .relayed(let r)?:
            guard let from = PeerAddress(checked: r.from), r.frame.count <= Frame.maxDatagram else { return nil }
            self = .relayed(from: from, frame: [UInt8](r.frame))
        case .observed(let o)?:
            guard let a = PeerAddress(checked: o.address) else { return nil }
            self = .observed(a)
        case .contactProbe(let c)?:
            guard c.tag.count == 32, c.padding.count <= Frame.maxPlaintext else { return nil }
            self = .contactProbe(tag: [UInt8](c.tag), padding: [UInt8](c.padding))
        case .contactProof(let c)?:
            guard c.publicKey.count == 32, c.signature.count == 64 else { return nil }
            self = .contactProof(publicKey: [UInt8](c.publicKey), signature: [UInt8](c.signature))
        case .blockWant(let w)?:
            guard w.root.count == 32, w.indexes.count <= 8, w.indexes.allSatisfy({ Int($0) < PictureBlocks.maxBlocks }) else { return nil }
            self = .blockWant(root: [UInt8](w.root), indexes: w.indexes.map { Int($0) }, wait: w.wait)
        case .block(let b)?:
            guard b.root.count == 32, Int(b.index) < PictureBlocks.maxBlocks, b.data.count <= PictureBlocks.maxBlockBytes else {
                return nil
            }
            self = .block(root: [UInt8](b.root), index: Int(b.index), data: [UInt8](b.data))
        // Not a message: the engine unpacks a bundle before any message is decoded (Bundle.swift).
        case .bundle?, nil: return nil
        }
    }

    var wire: WireMessage {
        var m = WireMessage()
        switch self {
        case .join(let info): var j = Skwad_Gossip_V1_Join(); j.info = info.wire; m.join = j
        case .forwardJoin(let joiner, let ttl):
            var f = Skwad_Gossip_V1_ForwardJoin(); f.joiner = joiner.wire; f.ttl = ttl; m.forwardJoin = f
        case .neighbor(let n):
            var w = Skwad_Gossip_V1_Neighbor(); w.highPriority = n.highPriority; w.info = n.info.wire
            w.origin = n.origin?.value ?? ""; w.ttl = n.ttl; m.neighbor = w
        case .neighborReply(let accepted, let info, let observed):
            var r = Skwad_Gossip_V1_NeighborReply(); r.accepted = accepted; r.info = info.wire; r.observed = observed?.value ?? ""
            m.neighborReply = r
        case .disconnect: m.disconnect = Skwad_Gossip_V1_Disconnect()
        case .shuffle(let peers): var s = Skwad_Gossip_V1_Shuffle(); s.peers = peers.map(\.wire); m.shuffle = s
        case .shuffleReply(let peers): var r = Skwad_Gossip_V1_ShuffleReply(); r.peers = peers.map(\.wire); m.shuffleReply = r
        case .ping(let seq, let info): var p = Skwad_Gossip_V1_Ping(); p.seq = seq; if let info { p.info = info.wire }; m.ping = p
        case .ack(let seq, let info, let notMember):
            var a = Skwad_Gossip_V1_Ack(); a.seq = seq; if let info { a.info = info.wire }; a.notMember = notMember; m.ack = a
        case .pingReq(let seq, let target): var r = Skwad_Gossip_V1_PingReq(); r.seq = seq; r.target = target.value; m.pingReq = r
        case .indirectAck(let seq, let target):
            var a = Skwad_Gossip_V1_IndirectAck(); a.seq = seq; a.target = target.value; m.indirectAck = a
        case .interest(let info): m.interest = info.wire
        case .vicinity(let v):
            var w = Skwad_Gossip_V1_Vicinity(); w.info = v.info.wire; w.peers = v.peers.map(\.wire); w.reply = v.reply
            w.target = v.target ?? ""; m.vicinity = w
        case .ops(let envelopes, let repair):
            var o = Skwad_Gossip_V1_Ops(); o.envelopes = envelopes.map { Data($0) }; o.repair = repair; m.ops = o
        case .ihave(let ids): var ih = Skwad_Gossip_V1_IHave(); ih.ids = ids.map { Data($0) }; m.ihave = ih
        case .want(let ids, let graft): var w = Skwad_Gossip_V1_Want(); w.ids = ids.map { Data($0) }; w.graft = graft; m.want = w
        case .prune: m.prune = Skwad_Gossip_V1_Prune()
        case .stem(let envelope): var s = Skwad_Gossip_V1_Stem(); s.envelope = Data(envelope); m.stem = s
        case .blockWant(let root, let indexes, let wait):
            var w = Skwad_Gossip_V1_BlockWant(); w.root = Data(root); w.indexes = indexes.map { UInt32(truncatingIfNeeded: $0) }
            w.wait = wait
            m.blockWant = w
        case .block(let root, let index, let data):
            var b = Skwad_Gossip_V1_Block(); b.root = Data(root); b.index = UInt32(truncatingIfNeeded: index); b.data = Data(data)
            m.block = b
        case .reconcile(let r): m.reconcile = r.wire
        case .reconciles(let rounds): var b = Skwad_Gossip_V1_Reconciles(); b.rounds = rounds.map(\.wire); m.reconciles = b
        case .findPack(let query): var f = Skwad_Gossip_V1_FindPack(); f.query = query; m.findPack = f
        case .introduce(let peer, let padding):
            var i = Skwad_Gossip_V1_Introduce(); i.peer = peer.value; i.padding = Data(padding); m.introduce = i
        case .relay(let to, let frame): var r = Skwad_Gossip_V1_Relay(); r.to = to.value; r.frame = Data(frame); m.relay = r
        case .relayed(let from, let frame): var r = Skwad_Gossip_V1_Relayed(); r.from = from.value; r.frame = Data(frame); m.relayed = r
        case .observed(let a): var o = Skwad_Gossip_V1_Observed(); o.address = a.value; m.observed = o
        case .contactProbe(let tag, let padding):
            var c = Skwad_Gossip_V1_ContactProbe(); c.tag = Data(tag); c.padding = Data(padding); m.contactProbe = c
        case .contactProof(let key, let signature):
            var c = Skwad_Gossip_V1_ContactProof(); c.publicKey = Data(key); c.signature = Data(signature); m.contactProof = c
        }
        return m
    }
}

extension PeerAddress {
    /// A non-empty address of at most `Message.maxAddress` bytes and not relayed ("@",
    /// Relay.swift), or nil.
    init?(checked s: String) {
        guard !s.isEmpty, s.utf8.count <= Message.maxAddress, !s.utf8.contains(UInt8(ascii: "@")) else { return nil }
        self.init(s)
    }
}

extension PeerRef {
    init?(wire p: Skwad_Gossip_V1_Peer) {
        guard let a = PeerAddress(checked: p.address) else { return nil }
        self.init(address: a, cell: NodeInfo.validCell(p.cell))
    }
    var wire: Skwad_Gossip_V1_Peer { var p = Skwad_Gossip_V1_Peer(); p.address = address.value; p.cell = cell ?? ""; return p }

    /// At most `maxPeersListed` entries; unusable ones are skipped.
    static func list(_ ps: [Skwad_Gossip_V1_Peer]) -> [PeerRef] { ps.prefix(Message.maxPeersListed).compactMap(PeerRef.init(wire:)) }
}

extension NodeInfo {
    var wire: Skwad_Gossip_V1_NodeInfo {
        var w = Skwad_Gossip_V1_NodeInfo()
        w.cell = cell ?? ""
        w.subscriptions = subscriptions.sorted { $0.lexicographicallyPrecedes($1) }.map { Data($0) }
        w.behindNat = behindNat
        return w
    }
    init(wire w: Skwad_Gossip_V1_NodeInfo) {
        let place = Self.validPlace(w.cell)
        self.init(
            cell: place == nil ? nil : w.cell, place: place,
            subscriptions: Set(w.subscriptions.prefix(256).filter { $0.count == 8 }.map { [UInt8]($0) }))
        behindNat = w.behindNat
    }
    /// A geohash cell of at most 12 characters, or nil.
    static func validCell(_ c: String) -> String? { validPlace(c) == nil ? nil : c }
    /// The cell `c` names, when it is a geohash of at most 12 characters.
    static func validPlace(_ c: String) -> Geohash.Cell? { c.isEmpty || c.utf8.count > 12 ? nil : try? Geohash.decode(c) }
}

extension ReconcileRound {
    init?(wire r: Skwad_Gossip_V1_Reconcile) {
        var pack: PackID?
        if !r.directory {
            guard let p = try? PackID(bytes: [UInt8](r.pack)) else { return nil }
            pack = p
        }
        guard r.ranges.count <= Message.maxRanges else { return nil }
        let ranges = r.ranges.compactMap(Reconciliation.RangeMessage.init(wire:))
        guard ranges.count == r.ranges.count else { return nil }
        self.init(
            pack: pack, directory: r.directory, initiator: r.initiator, lower: Reconciliation.Bound(wire: r.lower),
            ranges: ranges, asker: r.hasAsker ? NodeInfo(wire: r.asker) : nil)
    }

    var wire: Skwad_Gossip_V1_Reconcile {
        var r = Skwad_Gossip_V1_Reconcile()
        if let pack { r.pack = Data(pack.bytes) }
        r.directory = directory
        r.initiator = initiator
        r.lower = lower.wire
        r.ranges = ranges.map(\.wire)
        if let asker { r.asker = asker.wire }
        return r
    }
}

extension Reconciliation.Bound {
    var wire: Skwad_Gossip_V1_Bound {
        var b = Skwad_Gossip_V1_Bound(); b.hlc = hlc; b.idPrefix = Data(prefix); return b
    }
    init(wire w: Skwad_Gossip_V1_Bound) { self.init(hlc: w.hlc, prefix: [UInt8](w.idPrefix.prefix(32))) }
}

extension Reconciliation.RangeMessage {
    var wire: Skwad_Gossip_V1_Range {
        var r = Skwad_Gossip_V1_Range()
        r.upper = upper.wire
        switch mode {
        case .skip: r.skip = true
        case .fingerprint(let f): r.fingerprint = Data(f)
        case .ids(let ids): var l = Skwad_Gossip_V1_IdList(); l.ids = ids.map { Data($0.bytes) }; r.ids = l
        }
        return r
    }
    init?(wire w: Skwad_Gossip_V1_Range) {
        let upper = Reconciliation.Bound(wire: w.upper)
        switch w.mode {
        case .skip?: self.init(upper: upper, mode: .skip)
        case .fingerprint(let f)?:
            guard f.count == 16 else { return nil }
            self.init(upper: upper, mode: .fingerprint([UInt8](f)))
        case .ids(let l)?:
            guard l.ids.count <= Message.maxListed else { return nil }
            let ids = l.ids.compactMap { try? OpID(bytes: [UInt8]($0)) }
            guard ids.count == l.ids.count else { return nil }
            self.init(upper: upper, mode: .ids(ids))
        case nil: return nil
        }
    }

    /// Rough encoded size, used to split replies across datagrams.
    var estimatedSize: Int {
        let b = 16 + upper.prefix.count
        switch mode {
        case .skip: return b + 2
        case .fingerprint: return b + 18
        case .ids(let ids): return b + 4 + ids.count * 34
        }
    }
}
