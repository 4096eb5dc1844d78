import SkwadModel

/// Our reflexive addresses (PROTOCOL §9, "Reflexive addresses"): what our links say they see
/// our datagrams come from (the `observed` field of an Ack, as STUN's mapped address). Behind
/// a NAT this is the router's public address and port, which a node on our LAN or at home
/// cannot know by itself. One peer is never believed: an address is confirmed when links in
/// at least `quorum` different network groups (/24, /48: one host with many ports is one
/// witness) report it and they are more than half of the groups reporting. Behind a
/// symmetric NAT every witness sees another port and nothing is confirmed, which is the truth:
/// no address of ours works for a stranger there.
struct ReflexiveAddresses: Sendable {
    /// Witnesses remembered, at most (the oldest report goes first).
    static let capacity = 16
    static let quorum = 2

    struct Report: Sendable { var observed: PeerAddress; var atMs: UInt64 }
    private(set) var reports: [PeerAddress: Report] = [:]

    mutating func record(_ observed: PeerAddress, by witness: PeerAddress, nowMs: UInt64) {
        if reports[witness] == nil, reports.count >= Self.capacity,
            let oldest = reports.min(by: { ($0.value.atMs, $0.key.value) < ($1.value.atMs, $1.key.value) })
        {
            reports[oldest.key] = nil
        }
        reports[witness] = Report(observed: observed, atMs: nowMs)
    }

    mutating func forget(_ witness: PeerAddress) { reports[witness] = nil }

    /// The confirmed addresses, sorted: each network group votes once (its latest report).
    var confirmed: [PeerAddress] {
        var vote: [String: Report] = [:]
        for (w, r) in reports where vote[w.netgroup].map({ $0.atMs < r.atMs }) ?? true { vote[w.netgroup] = r }
        var tally: [PeerAddress: Int] = [:]
        for r in vote.values { tally[r.observed, default: 0] += 1 }
        return tally.filter { $0.value >= Self.quorum && $0.value * 2 > vote.count }.keys.sorted()
    }
}

extension GossipEngine {
    /// Our addresses as links confirm they see them (`ReflexiveAddresses`).
    public var reflexiveAddresses: [PeerAddress] { reflexive.confirmed }
    /// Links that told us how they see us (at most `ReflexiveAddresses.capacity`).
    public var reflexiveWitnesses: Int { reflexive.reports.count }

    /// An Ack said how its sender sees us: kept only from a link, and only a canonical
    /// address the shell would accept.
    mutating func onObserved(_ observed: PeerAddress, from: PeerAddress, nowMs: UInt64) {
        guard isLink(from), addressFilter?(observed) ?? true else { stats.drop(.badAddress); return }
        reflexive.record(observed, by: from, nowMs: nowMs)
    }

    /// Whether an Ack to `from` (whose ping carried its info when `carriedInfo`) tells it how we
    /// see it: once to each active member, and to any other link that said who it is.
    mutating func observedFor(_ from: PeerAddress, carriedInfo: Bool) -> PeerAddress? {
        guard peers.isLink(from) else { return nil }
        if var m = peers[active: from] {
            guard !m.toldObserved else { return nil }
            m.toldObserved = true
            peers[active: from] = m
            return from
        }
        return carriedInfo ? from : nil
    }
}
