import Foundation
import SkwadModel

typealias WireMessage = Skwad_Gossip_V1_Message

extension NodeInfo {
    var wire: Skwad_Gossip_V1_NodeInfo {
        var w = Skwad_Gossip_V1_NodeInfo()
        w.cell = cell ?? ""
        w.subscriptions = subscriptions.sorted { $0.lexicographicallyPrecedes($1) }.map { Data($0) }
        return w
    }
    init(wire w: Skwad_Gossip_V1_NodeInfo) {
        let c = w.cell.utf8.count <= 12 && (try? Geohash.decode(w.cell)) != nil ? w.cell : nil
        self.init(cell: c, subscriptions: Set(w.subscriptions.prefix(256).filter { $0.count == 8 }.map { [UInt8]($0) }))
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

extension WireMessage {
    /// The message's kind, for per-kind counters.
    var kind: String {
        switch body {
        case .join?: "join"
        case .forwardJoin?: "forward_join"
        case .neighbor?: "neighbor"
        case .neighborReply?: "neighbor_reply"
        case .disconnect?: "disconnect"
        case .shuffle?: "shuffle"
        case .shuffleReply?: "shuffle_reply"
        case .ping?: "ping"
        case .ack?: "ack"
        case .pingReq?: "ping_req"
        case .indirectAck?: "indirect_ack"
        case .ops?: "ops"
        case .ihave?: "ihave"
        case .want?: "want"
        case .prune?: "prune"
        case .reconcile?: "reconcile"
        case .interest?: "interest"
        case .vicinity?: "vicinity"
        case .findPack?: "find_pack"
        case .stem?: "stem"
        case nil: "empty"
        }
    }
}
