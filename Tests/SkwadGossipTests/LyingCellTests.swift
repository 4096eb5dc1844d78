import Testing
import SkwadModel
import SkwadReplica
@testable import SkwadGossip
import SkwadTestKit

/// Names that claim the cells nearest to us and never answer (PROTOCOL §9, "Vicinity";
/// SECURITY "Lying cells in the vicinity"). Found on hostile.toml seeds 6 and 8: adversaries
/// claiming an eclipse target's own cell, passed on by its honest neighbours, held every name
/// slot of its vicinity view and every vicinity round (each failed, was muted, and the next
/// liar took its place), so a member inside a locked fence never met another member.
@Suite struct LyingCellTests {
    static func cell(north: Double) -> String {
        Geohash.encode(try! GeoPoint(lat: 40.4433 + north / 111_320, lon: -79.9436), precision: 7)
    }
    static let here = cell(north: 0)

    static func name(_ cell: String, distance: Double) -> VicinityEntry {
        VicinityEntry(info: NodeInfo(cell: cell), distance: distance, lastHeardMs: 0)
    }

    @Test func aNameInASuspectCellTakesAFreeSlotOnlyAndGoesFirst() {
        var t = PeerTable(config: GossipConfig())
        let elsewhere = Self.cell(north: 300)
        // One name that never answered is not enough (a lossy path loses some); two are.
        t.suspect(cell: Self.here, nowMs: 1)
        #expect(!t.isSuspectName(Self.name(Self.here, distance: 0)))
        t.suspect(cell: Self.here, nowMs: 2)
        #expect(t.isSuspectName(Self.name(Self.here, distance: 0)))
        #expect(
            !t.isSuspectName(VicinityEntry(info: NodeInfo(cell: Self.here), distance: 0, lastHeardMs: 3)), "a peer that spoke is no name")
        for i in 0..<12 {
            t.offerVicinity(
                PeerAddress("heard\(i)"), VicinityEntry(info: NodeInfo(cell: elsewhere), distance: 300 + Double(i), lastHeardMs: 5))
        }
        for i in 0..<4 { t.offerVicinity(PeerAddress("liar\(i)"), Self.name(Self.here, distance: 0)) }
        #expect(t.vicinity.count == 16, "free slots are taken, suspect or not")
        // Another liar: no free slot, and it pushes out nobody, though it claims distance 0.
        t.offerVicinity(PeerAddress("liar4"), Self.name(Self.here, distance: 0))
        #expect(t.vicinity[PeerAddress("liar4")] == nil)
        // An honest name farther away pushes out a suspect one, and so does a peer that spoke.
        t.offerVicinity(PeerAddress("honest"), Self.name(elsewhere, distance: 250))
        t.offerVicinity(PeerAddress("spoke"), VicinityEntry(info: NodeInfo(cell: elsewhere), distance: 400, lastHeardMs: 9))
        #expect(t.vicinity[PeerAddress("honest")] != nil && t.vicinity[PeerAddress("spoke")] != nil)
        #expect(t.vicinity.keys.filter { $0.value.hasPrefix("liar") }.count == 2)
        // Once a peer named in that cell answers, the cell is no longer suspect.
        t.clearSuspect(cell: Self.here)
        t.offerVicinity(PeerAddress("liar5"), Self.name(Self.here, distance: 0))
        #expect(t.vicinity[PeerAddress("liar5")] != nil)
        // The bar is forgotten with the dead.
        t.suspect(cell: Self.here, nowMs: 10)
        t.suspect(cell: Self.here, nowMs: 10)
        t.expireDead(nowMs: 10 + GossipConfig().membership.deadForgetMs, forgetMs: GossipConfig().membership.deadForgetMs)
        #expect(t.suspectCells.isEmpty)
    }

    @Test func suspectCellsHaveAStatedCapacity() {
        var t = PeerTable(config: GossipConfig())
        for i in 0..<(PeerTable.suspectCellCapacity + 10) { t.suspect(cell: Self.cell(north: Double(i) * 200), nowMs: UInt64(i)) }
        #expect(t.suspectCells.count == PeerTable.suspectCellCapacity)
        #expect(t.suspectCells[Self.cell(north: 0)] == nil, "the oldest went")
    }

    @Test func afterTwoNamesFailRoundsTakeTurnsAndNamesElsewhereComeFirst() {
        var e = GossipEngine(seed: 21, secrets: .seeded)
        e.selfAddress = PeerAddress("me")
        _ = e.setInterest(cell: Self.here, subscriptions: [], nowMs: 1)
        let friend = PeerAddress("friend"), honest = PeerAddress("honest")
        let liars = (0..<3).map { PeerAddress("liar\($0)") }
        e.offerVicinity(friend, info: NodeInfo(cell: Self.cell(north: 600)), heard: true, answered: true, nowMs: 1)
        for l in liars { e.offerVicinity(l, info: NodeInfo(cell: Self.here), heard: false, nowMs: 1) }
        e.offerVicinity(honest, info: NodeInfo(cell: Self.cell(north: 300)), heard: false, nowMs: 1)
        var out: [GossipDirective] = []
        // The nearest name first, while names answer; one failure changes nothing.
        e.vicinityRound(nowMs: 10, into: &out)
        #expect(e.peers.vicinity[liars[0]]?.askedMs == 10)
        e.forget(liars[0], .unreachable, nowMs: 1000, into: &out)  // its handshake failed
        #expect(e.vicinity.nameFailures == 1 && !e.peers.isSuspectName(e.peers.vicinity[liars[1]]!))
        e.vicinityRound(nowMs: 2010, into: &out)
        #expect(e.peers.vicinity[liars[1]]?.askedMs == 2010)
        e.forget(liars[1], .unreachable, nowMs: 3000, into: &out)
        #expect(e.vicinity.nameFailures == 2 && e.peers.isSuspectName(e.peers.vicinity[liars[2]]!))
        // Now a round goes to a peer that proved itself, the next to the name outside the
        // suspect cell, though liar2 claims to stand nearer.
        e.vicinityRound(nowMs: 4010, into: &out)
        #expect(e.peers.vicinity[friend]?.askedMs == 4010)
        e.vicinityRound(nowMs: 6010, into: &out)
        #expect(e.peers.vicinity[honest]?.askedMs == 6010 && e.peers.vicinity[liars[2]]?.askedMs == nil)
        // It answers: names are trusted with every round again.
        e.onVicinity(
            VicinityExchange(info: NodeInfo(cell: Self.cell(north: 300)), peers: [], reply: true, target: nil),
            from: honest, nowMs: 6050, replica: Replica(), into: &out)
        #expect(e.vicinity.nameFailures == 0 && e.peers.vicinity[honest]?.exchangedMs == 6050)
    }

    @Test func atMostHalfOfAVicinitySampleIsUnproven() {
        var e = GossipEngine(seed: 22, secrets: .seeded)
        e.selfAddress = PeerAddress("me")
        _ = e.setInterest(cell: Self.here, subscriptions: [], nowMs: 1)
        for i in 0..<8 { e.offerVicinity(PeerAddress("name\(i)"), info: NodeInfo(cell: Self.here), heard: i < 4, nowMs: 1) }
        for i in 0..<3 {
            e.offerVicinity(
                PeerAddress("proven\(i)"), info: NodeInfo(cell: Self.cell(north: 500 + Double(i) * 200)), heard: true, answered: true,
                nowMs: 1)
        }
        let sample = e.vicinitySample(for: NodeInfo.decode(Self.here), excluding: PeerAddress("asker"))
        // Talking (a ping, a join) proves no cell: the four names that spoke count as names too.
        #expect(sample.count == 4 + 3)
        #expect(sample.filter { $0.address.value.hasPrefix("name") }.count == e.config.membership.vicinitySample / 2)
        #expect(sample.filter { $0.address.value.hasPrefix("proven") }.count == 3)
    }

    /// Remote contacts are searched for greedily through the known peer nearest the fence: a
    /// liar named at the fence's centre was that peer every round, forever (hostile seed 6).
    @Test func aHopThatNeverAnswersIsAskedAtMostThreeTimesThenSilenced() throws {
        var f = OpFactory(seed: 23, floors: false)
        let alpha = f.user()
        let center = try GeoPoint(lat: 40.4433, lon: -79.9436)
        let pack = f.createPack(by: alpha, name: "far", fence: Geofence(center: center, radiusMeters: 200), locked: false)
        var replica = Replica(config: .noFloors)
        _ = replica.admit(pack, nowMs: f.nowMs)
        var e = GossipEngine(seed: 23, secrets: .seeded)
        e.selfAddress = PeerAddress("me")
        // 3 km north, subscribed: the fence needs a remote contact.
        _ = e.setInterest(cell: Self.cell(north: 3000), subscriptions: [pack.id], nowMs: f.nowMs)
        let liar = PeerAddress("liar"), honest = PeerAddress("honest")
        e.addPassive(liar, cell: Geohash.encode(center, precision: 7), nowMs: f.nowMs)
        e.addPassive(honest, cell: Self.cell(north: 1500), nowMs: f.nowMs)
        var out: [GossipDirective] = []
        var now = f.nowMs, askedHonest = false
        for _ in 0..<20 {
            e.remoteRound(nowMs: now, replica: replica, into: &out)
            #expect(e.vicinity.farFences.count == 1)
            if e.peers.remoteHops[honest]?.askedMs == now { askedHonest = true }
            if e.peers.muted[liar] != nil { break }
            now += e.config.membership.vicinityIntervalMs
        }
        let m = e.config.membership
        #expect(e.peers.muted[liar] != nil && e.peers.passive[liar] == nil, "silenced after \(m.vicinityMisses) unanswered requests")
        #expect(now - f.nowMs <= UInt64(m.vicinityMisses) * (m.vicinityTimeoutMs + m.vicinityIntervalMs))
        #expect(askedHonest, "while the liar's answer was due, the search went on through the next peer")
        // A hop that answers is no longer owed anything.
        e.onVicinity(
            VicinityExchange(info: NodeInfo(cell: Self.cell(north: 1500)), peers: [], reply: true, target: nil),
            from: honest, nowMs: now + 10, replica: replica, into: &out)
        #expect(e.peers.remoteHops[honest] == nil)
        e.remoteRound(nowMs: now + 20, replica: replica, into: &out)
        #expect(e.peers.remoteHops.keys.allSatisfy { $0 != liar })
    }
}
