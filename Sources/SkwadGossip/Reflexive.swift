import SkwadModel

/// Our reflexive addresses (PROTOCOL §9, "Reflexive addresses"): what our links say they see
/// our datagrams come from (an `Observed` message each sends when we become its active member,
/// as STUN's mapped address). Behind
/// a NAT this is the router's public address and port, which a node on our LAN or at home
/// cannot know by itself. One peer is never believed: an address is confirmed when links in
/// at least `quorum` different network groups (/24, /48: one host with many ports is one
/// witness) report it and they are more than half of the groups reporting. Behind a
/// symmetric NAT every witness sees another port and nothing is confirmed, which is the truth:
/// no address of ours works for a stranger there.
struct ReflexiveAddresses: Sendable {
    struct Report: Sendable { var observed: PeerAddress; var atMs: UInt64 }
    private(set) var reports: [PeerAddress: Report] = [:]

    mutating func record(_ observed: PeerAddress, by witness: PeerAddress, nowMs: UInt64) {
        reports.makeRoom(for: witness, capacity: Self.capacity) { $0.atMs }
        reports[witness] = Report(observed: observed, atMs: nowMs)
    }

    /// A link given up on: its report goes (it sees us no more).
    mutating func forget(_ witness: PeerAddress) { reports[witness] = nil }

    /// Each network group's vote: its latest report.
    private var votes: [Report] {
        var vote: [String: Report] = [:]
        for (w, r) in reports where vote[w.netgroup].map({ $0.atMs < r.atMs }) ?? true { vote[w.netgroup] = r }
        return Array(vote.values)
    }

    /// Do most network groups see us from an address not among `local` (our interfaces')?
    /// One witness is enough here: what it decides is only whether we ask to be introduced.
    func behindNat(local: Set<PeerAddress>) -> Bool {
        let v = votes
        return !v.isEmpty && v.filter { !local.contains($0.observed) }.count * 2 > v.count
    }

    /// The confirmed addresses, sorted: each network group votes once (its latest report).
    var confirmed: [PeerAddress] {
        let vote = votes
        var tally: [PeerAddress: Int] = [:]
        for r in vote { tally[r.observed, default: 0] += 1 }
        return tally.filter { $0.value >= Self.quorum && $0.value * 2 > vote.count }.keys.sorted()
    }
}

extension GossipEngine {
    /// Our addresses as links confirm they see them (`ReflexiveAddresses`).
    public var reflexiveAddresses: [PeerAddress] { reach.reflexive.confirmed }
    /// Links that told us how they see us (at most `ReflexiveAddresses.capacity`).
    public var reflexiveWitnesses: Int { reach.reflexive.reports.count }
}

extension Reach {
    /// A link said how it sees us (`Observed`): kept only from a link, and only a canonical
    /// address the shell would accept (`accept`). Past it, we may now think ourselves behind a
    /// NAT (or no longer: `behindNat` is what we think now): our links are to be told.
    mutating func observed(
        _ observed: PeerAddress, from: PeerAddress, nowMs: UInt64, peers: PeerTable, accept: ((PeerAddress) -> Bool)?,
        behindNat: Bool, stats: inout GossipStats
    ) -> [ReachAction] {
        guard peers.isLink(from), accept?(observed) ?? true else { stats.drop(observed.refusal); return [] }
        reflexive.record(observed, by: from, nowMs: nowMs)
        guard let localAddresses else { return [] }
        let behind = reflexive.behindNat(local: Set(localAddresses))
        return behind == behindNat ? [] : [.behindNat(behind)]
    }
}
