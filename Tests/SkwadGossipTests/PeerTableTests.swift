import SkwadTestTraits
import Testing
import SkwadModel
@testable import SkwadGossip

/// The peer table keeps its capacities and invariants under any sequence of operations
/// (PROTOCOL §9, "Peer table"): a seeded random walk over every transition, role or fact.
@Suite(.heavy) struct PeerTableTests {
    static let cells = ["u4pruyd", "u4pruyf", "u4pruyg", "u4prv00", "gcpvj0d", "dr5regw"]

    static func check(_ t: PeerTable, me: PeerAddress) {
        #expect(t.active.count <= t.capacity.active)
        #expect(t.passive.count <= t.capacity.passive)
        #expect(t.vicinity.count <= t.capacity.vicinity)
        #expect(t.remote.count <= t.capacity.remote)
        #expect(t.inbound.count <= t.capacity.inbound)
        #expect(t.dead.count <= t.capacity.dead)
        #expect(t.muted.count <= PeerTable.mutedCapacity)
        #expect(t.reconciled.count <= GossipEngine.reconciledCapacity)
        #expect(t.rimAsked.count <= GossipEngine.rimCapacity)
        #expect(t.remoteHops.count <= GossipEngine.remoteHopCapacity)
        // One record per peer, none empty, and every role and fact read across the table says
        // what the records say.
        #expect(
            !t.records.values.contains { r in
                r.member == nil && r.passiveCell == nil && r.vicinity == nil && r.remote == nil && r.inbound == nil && r.gone == nil
                    && r.mutedMs == nil && r.reconMisses == nil && r.reconciledMs == nil && r.rimAskedMs == nil && r.hopAsk == nil
                    && r.candidate == nil
            })
        func holders(_ has: (PeerTable.Record) -> Bool) -> Set<PeerAddress> { Set(t.records.filter { has($0.value) }.keys) }
        #expect(t.active.keys == holders { $0.member != nil })
        #expect(t.passive.keys == holders { $0.passiveCell != nil })
        #expect(t.vicinity.keys == holders { $0.vicinity != nil })
        #expect(t.remote.keys == holders { $0.remote != nil })
        #expect(t.inbound.keys == holders { $0.inbound != nil })
        #expect(t.dead.keys == holders { $0.gone != nil })
        #expect(t.muted.keys == holders { $0.mutedMs != nil })
        #expect(t.reconMisses.keys == holders { $0.reconMisses != nil })
        #expect(t.reconciled.keys == holders { $0.reconciledMs != nil })
        #expect(t.rimAsked.keys == holders { $0.rimAskedMs != nil })
        #expect(t.remoteHops.keys == holders { $0.hopAsk != nil })
        #expect(t.candidates.keys == holders { $0.candidate != nil })
        #expect(t.candidates.count <= MembershipGuard.candidateCapacity)
        #expect(Set(t.active.keys).isDisjoint(with: t.passive.keys))
        // The active members' clocks, kept beside the records, are the records' own.
        #expect(t.activeClocks.count == t.active.count)
        for (p, c) in t.activeClocks {
            let m = t.active[p]
            #expect(m?.lastHeardMs == c.lastHeardMs && m?.pingSentMs == c.pingSentMs && m?.suspectSinceMs == c.suspectSinceMs)
        }
        for p in t.dead.keys {
            #expect(t.active[p] == nil && t.passive[p] == nil && t.remote[p] == nil)
            #expect((t.vicinity[p]?.lastHeardMs ?? 0) == 0, "a dead peer is at most a vicinity entry only heard of")
        }
        #expect(t.roles(of: me).isEmpty)
        // `links` is kept up as roles change: it is what rebuilding it from the roles gives.
        var rebuilt = Array(t.active.keys)
        for (p, e) in t.vicinity where t.active[p] == nil && e.lastHeardMs > 0 { rebuilt.append(p) }
        for p in t.remote.keys where t.active[p] == nil && (t.vicinity[p]?.lastHeardMs ?? 0) == 0 { rebuilt.append(p) }
        #expect(t.links == rebuilt.sorted())
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func randomOperationsKeepEveryCapacityAndInvariant(seed: UInt64) {
        var config = GossipConfig()
        config.membership.passiveSize = 7; config.membership.vicinitySize = 4
        config.membership.inboundMemory = 5; config.membership.deadMemory = 6
        var t = PeerTable(config: config)
        let me = PeerAddress("p0")
        t.me = me
        var rng = SplitMix(seed: seed)
        var now: UInt64 = 1_000
        for _ in 0..<5_000 {
            now += UInt64.random(in: 0...300, using: &rng)
            let p = PeerAddress("p\(Int.random(in: 0..<40, using: &rng))")
            let cell = Self.cells.randomElement(using: &rng)!
            switch Int.random(in: 0..<21, using: &rng) {
            case 0:
                if t.hasRoom {
                    t.promote(p, info: NodeInfo(cell: cell), nowMs: now)
                } else if let v = t.evictionVictim(using: &rng) {
                    t.demote(v, using: &rng); t.promote(p, info: NodeInfo(cell: cell), nowMs: now)
                }
            case 1: t.demote(p, using: &rng)
            case 2: t.addPassive(p, cell: cell, using: &rng)
            case 3:
                t.offerVicinity(
                    p,
                    VicinityEntry(
                        info: NodeInfo(cell: cell), distance: Double(Int.random(in: 0...9, using: &rng)),
                        lastHeardMs: Bool.random(using: &rng) ? now : 0))
            case 4: t.addRemote(p, VicinityEntry(info: NodeInfo(cell: cell), distance: 0, lastHeardMs: now))
            case 5: t.rememberInbound(p, info: NodeInfo(cell: cell), nowMs: now)
            case 6: t.forget(p, reason: [.dead, .unreachable, .silent].randomElement(using: &rng)!, nowMs: now)
            case 7: t.revive(p, using: &rng)
            case 8: t.expireDead(nowMs: now, forgetMs: 20_000)
            case 9: t.heard(p, nowMs: now, using: &rng)
            case 10: t[vicinity: p]?.lastHeardMs = Bool.random(using: &rng) ? now : 0
            case 11: t.removeRemote(p)
            case 12: t.noteReconciled(p, nowMs: now, capacity: GossipEngine.reconciledCapacity)
            case 13: t.noteRimAsked(p, nowMs: now, capacity: GossipEngine.rimCapacity)
            case 14: t.noteHopAsked(p, nowMs: now, capacity: GossipEngine.remoteHopCapacity)
            case 15: t[hopAsk: p] = nil
            case 17:
                t.putOnTrial(
                    p, .init(info: NodeInfo(cell: cell), pingSeq: 1, sinceMs: now),
                    capacity: MembershipGuard.candidateCapacity)
            case 18: t.endTrial(p)
            case 16: t[reconMisses: p] = Bool.random(using: &rng) ? Int.random(in: 0...3, using: &rng) : nil
            case 19:
                if var m = t[active: p] {
                    m.pingSentMs = Bool.random(using: &rng) ? now : nil
                    m.suspectSinceMs = Bool.random(using: &rng) ? now : nil
                    t[active: p] = m
                }
            default: t.retainReconMisses(links: Set(t.links))
            }
            Self.check(t, me: me)
        }
    }

    /// A full view remembers its last-ranked entry between offers it turns away; any change
    /// of a record must make it rank again.
    @Test func anOfferTurnedAwayLeavesTheRankingFreeToChange() {
        var t = PeerTable(config: GossipConfig())
        func entry(_ d: Double) -> VicinityEntry { VicinityEntry(info: NodeInfo(cell: "u4pruyd"), distance: d, lastHeardMs: 5) }
        for i in 0..<16 { t.offerVicinity(PeerAddress("p\(i)"), entry(100 + Double(i))) }
        t.offerVicinity(PeerAddress("far"), entry(500))
        #expect(t.vicinity[PeerAddress("far")] == nil, "farther than the farthest entry: turned away")
        // p0 moves farther than anyone: the next newcomer nearer than p0 takes its slot.
        t.offerVicinity(PeerAddress("p0"), entry(1_000))
        t.offerVicinity(PeerAddress("mid"), entry(300))
        #expect(t.vicinity[PeerAddress("mid")] != nil && t.vicinity[PeerAddress("p0")] == nil)
        #expect(t.vicinity[PeerAddress("p15")] != nil, "the entry last ranked before the change stays")
        #expect(t.vicinity.count == 16)
    }

    @Test func forgettingTakesTheRolesEachReasonSays() {
        var t = PeerTable(config: GossipConfig())
        var rng = SplitMix(seed: 9)
        let a = PeerAddress("a"), b = PeerAddress("b")
        let near = VicinityEntry(info: NodeInfo(cell: "u4pruyd"), distance: 1, lastHeardMs: 5)
        t.promote(a, info: NodeInfo(cell: "u4pruyd"), nowMs: 1)
        t.offerVicinity(a, near)
        t.forget(a, reason: .silent, nowMs: 10)
        #expect(t.roles(of: a) == [.active], "a silent vicinity entry that is a member stays a member, and is not dead")
        t.forget(a, reason: .dead, nowMs: 11)
        #expect(t.roles(of: a) == [.dead])
        #expect(t.dead[a]?.cell == "u4pruyd", "the cell it was known by is kept for revival")
        t.offerVicinity(b, near)
        t.addPassive(b, cell: nil, using: &rng)
        t.forget(b, reason: .silent, nowMs: 12)
        #expect(t.roles(of: b) == [.dead], "a silent entry that was not a member is given up on")
        t.revive(a, using: &rng)
        #expect(t.roles(of: a) == [.passive] && t.passive[a] == "u4pruyd")
        t.promote(b, info: NodeInfo(), nowMs: 13)
        #expect(t.roles(of: b) == [.active], "dead → active when it asks to be a neighbour")
    }

    /// What `forget` takes and what it leaves: every role (the peer is then only `dead`); the
    /// link facts go at the next prune of non-links (the remote round); what outlives its roles
    /// (proven, barred) stays until its own bound, and a record with nothing left is gone.
    @Test func forgetLeavesOnlyTheDeadMarkAndTheFactsThatOutliveRoles() {
        var t = PeerTable(config: GossipConfig())
        let a = PeerAddress("a")
        t.promote(a, info: NodeInfo(cell: "u4pruyd"), nowMs: 1)
        t.offerVicinity(a, VicinityEntry(info: NodeInfo(cell: "u4pruyd"), distance: 1, lastHeardMs: 1))
        t.addRemote(a, VicinityEntry(info: NodeInfo(cell: "u4pruyd"), distance: 1, lastHeardMs: 1))
        t.rememberInbound(a, info: NodeInfo(cell: "u4pruyd"), nowMs: 1)
        t[reconMisses: a] = 2
        t.noteReconciled(a, nowMs: 2, capacity: 8)
        t.noteHopAsked(a, nowMs: 3, capacity: 8)
        t.forget(a, reason: .unreachable, nowMs: 10)
        #expect(t.roles(of: a) == [.dead])
        #expect(t.links.isEmpty && t.muted[a] == 10, "no link any more; barred from the vicinity view")
        t.retainReconMisses(links: Set(t.links))
        t[hopAsk: a] = nil
        #expect(t.reconMisses[a] == nil && t.reconciled[a] == 2)
        t.expireDead(nowMs: 100, forgetMs: 50)
        #expect(t.roles(of: a).isEmpty && t.muted[a] == nil)
        #expect(t.records[a]?.reconciledMs == 2, "proven stays, bounded by `reconciledCapacity`")
        for i in 0..<8 { t.noteReconciled(PeerAddress("q\(i)"), nowMs: 200, capacity: 8) }
        #expect(t.records[a] == nil, "the least recently reconciled went, and with it the last of its record")
    }
}
