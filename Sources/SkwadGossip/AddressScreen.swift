/// Every address a message names is judged by the shell's `addressFilter` once, as the
/// message is decoded and before any handler sees it (PROTOCOL §8): a real node takes only
/// canonical addresses of unicast hosts (`PeerAddress.isDialable`), so no address a peer
/// chooses (a walk's joiner, shuffle and vicinity entries, a forwarded origin, an
/// introduction, a relay's ends, an observed address, a ping's target) is dialled, introduced
/// or stored unless it could name one host. A list loses the entries refused; a message that
/// is about one address is dropped whole; each refusal is counted (`badAddress` for a
/// non-canonical spelling, `notUnicast` for a canonical address of no unicast host).
extension GossipEngine {
    /// `m` without the addresses the filter refuses, or nil when the message is about one.
    /// Without a filter (the simulator's names) `m` as it is.
    mutating func screened(_ m: Message) -> Message? {
        guard let accept = addressFilter else { return m }
        func ok(_ a: PeerAddress) -> Bool {
            if accept(a) { return true }
            stats.drop(a.refusal)
            return false
        }
        func kept(_ refs: [PeerRef]) -> [PeerRef] { refs.filter { ok($0.address) } }
        switch m {
        case .forwardJoin(let joiner, _): return ok(joiner.address) ? m : nil
        case .neighbor(let n): return n.origin.map(ok) ?? true ? m : nil
        case .neighborReply(let accepted, let info, let observed):
            // The answer stands; only the address it reports is dropped.
            guard let observed, !ok(observed) else { return m }
            return .neighborReply(accepted: accepted, info: info, observed: nil)
        case .shuffle(let named): return .shuffle(kept(named))
        case .shuffleReply(let named): return .shuffleReply(kept(named))
        case .vicinity(var v):
            v.peers = kept(v.peers)
            return .vicinity(v)
        case .pingReq(_, let target), .indirectAck(_, let target): return ok(target) ? m : nil
        case .introduce(let peer, _): return ok(peer) ? m : nil
        case .relay(let to, _): return ok(to) ? m : nil
        case .relayed(let from, _): return ok(from) ? m : nil
        case .observed(let a): return ok(a) ? m : nil
        case .join, .disconnect, .ping, .ack, .interest, .ops, .ihave, .want, .prune, .stem, .reconcile, .reconciles, .findPack,
            .contactProbe, .contactProof, .blockWant, .block:
            return m
        }
    }
}

extension PeerAddress {
    /// The drop reason when the address filter refuses this address: `notUnicast` for a
    /// canonical address that names no unicast host, `badAddress` for anything else.
    var refusal: DropReason { isCanonical && !isUnicastHost ? .notUnicast : .badAddress }
}
