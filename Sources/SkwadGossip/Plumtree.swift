import SkwadModel

/// Plumtree's state (Leitão, Pereira, Rodrigues 2007) at link level, apart from the engine
/// that sends: which links are lazy, what was announced to us and not received, what we
/// owe lazy links, which ops we saw recently. Pure bookkeeping; Dissemination.swift sends.
///
/// The eager links of all nodes form one spanning tree whatever the op's root, as long as
/// both ends of a link agree on it: a Prune makes a link lazy at both ends, a graft (`Want`
/// with `graft`) eager at both ends, and nothing else changes a mark (PROTOCOL §10).
///
/// Capacities: `lazy` and `queue` hold links only (`retain(links:)` drops the rest);
/// `missing` at most `missingCapacity` ids; `recent` at most `recentCapacity`; `notPushed`
/// at most `notPushedCapacity`.
struct Plumtree: Sendable {
    struct Missing: Sendable {
        var announcers: [PeerAddress]
        var deadlineMs: UInt64
        var tries = 0
    }

    let missingCapacity: Int
    private(set) var lazy: Set<PeerAddress> = []
    /// Ids announced to us (8-byte prefix) that we have not received.
    private(set) var missing: [UInt64: Missing] = [:]
    /// Ids to announce to each lazy link at the next flush.
    private(set) var queue: [PeerAddress: [OpID]] = [:]
    /// Recently seen ops by 8-byte prefix, to answer prefix Wants and skip known IHAVEs.
    private var recent: [UInt64: OpID] = [:]
    private var recentOrder: [UInt64] = []
    /// Ops whose first copy came by an answer to a pull or by a stem, not by a push: the
    /// push that follows is the tree at work, not a redundant link.
    private var notPushed: Set<OpID> = []
    private var notPushedOrder: [OpID] = []

    init(missingCapacity: Int) { self.missingCapacity = missingCapacity }

    static func prefix(_ id: OpID) -> UInt64 { id.bytes.prefix(8).reduce(0) { $0 << 8 | UInt64($1) } }
    static func prefix(_ bytes: some Collection<UInt8>) -> UInt64 { bytes.prefix(8).reduce(0) { $0 << 8 | UInt64($1) } }

    func isLazy(_ p: PeerAddress) -> Bool { lazy.contains(p) }
    mutating func setLazy(_ p: PeerAddress, _ isLazy: Bool) { if isLazy { lazy.insert(p) } else { lazy.remove(p) } }

    /// Forgets everything about links that are gone (a new link starts eager).
    mutating func retain(links: Set<PeerAddress>) {
        lazy.formIntersection(links)
        queue = queue.filter { links.contains($0.key) }
    }

    /// We hold this op now: remember it, stop waiting for it. Returns the links that had
    /// announced it to us (they hold it: no IHAVE of it goes back to them).
    @discardableResult
    mutating func holds(_ id: OpID) -> [PeerAddress] {
        let p = Self.prefix(id)
        let announcers = missing.removeValue(forKey: p)?.announcers ?? []
        if recent.updateValue(id, forKey: p) == nil { recentOrder.append(p) }
        if recentOrder.count > Self.recentCapacity {
            let cut = Self.recentCapacity / 5
            for old in recentOrder.prefix(cut) { recent[old] = nil }
            recentOrder.removeFirst(cut)
        }
        return announcers
    }

    func recentID(prefix p: UInt64) -> OpID? { recent[p] }

    mutating func markNotPushed(_ id: OpID) {
        guard notPushed.insert(id).inserted else { return }
        notPushedOrder.append(id)
        if notPushedOrder.count > Self.notPushedCapacity {
            let cut = Self.notPushedCapacity / 4
            for old in notPushedOrder.prefix(cut) { notPushed.remove(old) }
            notPushedOrder.removeFirst(cut)
        }
    }

    /// True once for an op that first came by an answer or a stem.
    mutating func takeNotPushed(_ id: OpID) -> Bool { notPushed.remove(id) != nil }

    mutating func enqueue(_ ids: [OpID], for peer: PeerAddress) { queue[peer, default: []] += ids }

    /// `peer` announced an op we hold and owe it an IHAVE of: it holds it, so the notice goes.
    mutating func unqueue(_ id: OpID, for peer: PeerAddress) {
        guard let i = queue.index(forKey: peer) else { return }
        queue.values[i].removeAll { $0 == id }
        if queue.values[i].isEmpty { queue.remove(at: i) }
    }

    mutating func takeQueue() -> [(PeerAddress, [OpID])] {
        defer { queue = [:] }
        return queue.sorted { $0.key < $1.key }
    }

    /// An IHAVE announced `p` from `from`. False when the table is full (the id waits for
    /// reconciliation).
    mutating func announced(_ p: UInt64, by from: PeerAddress, nowMs: UInt64, graftTimeoutMs: UInt64) -> Bool {
        if missing[p] == nil {
            guard missing.count < missingCapacity else { return false }
            missing[p] = Missing(announcers: [from], deadlineMs: nowMs + graftTimeoutMs)
        } else if !missing[p]!.announcers.contains(from) && missing[p]!.announcers.count < Self.announcersPerID {
            missing[p]!.announcers.append(from)
        }
        return true
    }

    /// Announced ids whose graft timeout ran out, by the announcer to ask (each in turn).
    mutating func dueGrafts(nowMs: UInt64, graftTimeoutMs: UInt64) -> [PeerAddress: [UInt64]] {
        var wants: [PeerAddress: [UInt64]] = [:]
        for (p, m) in missing where nowMs >= m.deadlineMs {
            if m.tries >= Self.graftTries { missing[p] = nil; continue }
            wants[m.announcers[m.tries % m.announcers.count], default: []].append(p)
            missing[p]!.tries += 1
            missing[p]!.deadlineMs = nowMs + graftTimeoutMs * 2
        }
        return wants
    }

    var hasPromptWork: Bool { !queue.isEmpty || !missing.isEmpty }
}
