import Foundation
import Testing
import SkwadCrypto
import SkwadModel
import SkwadReplica
@testable import SkwadGossip
import SkwadTestKit

/// Introductions by shared fence (PROTOCOL §9 "Introductions"; SECURITY.md "Introductions"):
/// two members behind NATs with no pack in common are introduced when they stand within the
/// directory's 10 km of each other or inside one fence the introducer holds; a member lying
/// about its cell to be introduced to others gets a few introductions and no more, and
/// introductions only ever name members.
@Suite struct FenceIntroductionTests {
    static let t0: UInt64 = 1_790_000_000_000
    static let here = try! GeoPoint(lat: 48.8566, lon: 2.3522)

    /// A cell `north` and `east` metres from `here`, at `precision`.
    static func cell(north: Double = 0, east: Double = 0, precision: Int = 7) -> String {
        Geohash.encode(try! GeoPoint(lat: here.lat + north / 111_320, lon: here.lon + east / 73_300), precision: precision)
    }

    static func info(cell: String?, behindNat: Bool = true) -> Skwad_Gossip_V1_NodeInfo {
        var i = Skwad_Gossip_V1_NodeInfo()
        i.behindNat = behindNat
        if let cell { i.cell = cell }
        return i
    }

    static func join(cell: String?, behindNat: Bool = true) -> [UInt8] {
        var m = WireMessage(); var j = Skwad_Gossip_V1_Join(); j.info = info(cell: cell, behindNat: behindNat); m.join = j
        return try! m.serializedBytes()
    }

    static func interest(cell: String) -> [UInt8] {
        var m = WireMessage(); m.interest = info(cell: cell)
        return try! m.serializedBytes()
    }

    /// An engine with `count` hostile peers that shook hands with it (not members yet).
    static func engine(peers count: Int) -> (GossipEngine, Replica, [HostilePeer]) {
        HostileFixture.engine(peers: HostileFixture.addresses(count), nowMs: t0)
    }

    /// The addresses the `Introduce` messages in `ds` to `p` name.
    static func introduced(_ p: HostilePeer, _ ds: [GossipDirective]) -> [String] {
        HostilePeer.sent(ds, to: p.address).flatMap { p.messages(in: $0) }.compactMap { pt in
            guard let m = try? WireMessage(serializedBytes: pt), case .introduce(let i)? = m.body else { return nil }
            return i.peer
        }
    }

    @Test func twoMembersBehindNatsWithinTenKilometresAreIntroducedWithoutAPackInCommon() {
        var (e, r, p) = Self.engine(peers: 5)
        // Far away (60 km), coarse (precision 4), not behind a NAT: none is introduced to anyone.
        _ = p[0].send(Self.join(cell: Self.cell(north: 60_000)), to: &e, nowMs: Self.t0, replica: &r)
        _ = p[1].send(Self.join(cell: Self.cell(precision: 4)), to: &e, nowMs: Self.t0, replica: &r)
        _ = p[2].send(Self.join(cell: Self.cell(east: 500), behindNat: false), to: &e, nowMs: Self.t0, replica: &r)
        _ = p[3].send(Self.join(cell: Self.cell(north: 3_000)), to: &e, nowMs: Self.t0, replica: &r)
        #expect(e.stats.introductionsSent == 0, "\(e.stats.introductionsSent)")
        // 8 km from p[3]: the two are introduced, and nobody else.
        let ds = p[4].send(Self.join(cell: Self.cell(north: -5_000)), to: &e, nowMs: Self.t0, replica: &r)
        #expect(Self.introduced(p[4], ds) == [p[3].address.value])
        #expect(Self.introduced(p[3], ds) == [p[4].address.value])
        for q in p[0..<3] { #expect(Self.introduced(q, ds).isEmpty) }
        #expect(e.stats.fenceIntroductions == 1 && e.stats.introductionsSent == 2)
    }

    /// 16 km apart, both inside the 10 km fence of a pack the introducer holds: introduced
    /// once the remote round has read the fences; outside it, not.
    @Test func twoMembersInsideOneFenceWeHoldAreIntroduced() {
        var (e, r, p) = Self.engine(peers: 3)
        var f = OpFactory(seed: 9)
        let genesis = f.createPack(by: f.user(), name: "city", fence: Geofence(center: Self.here, radiusMeters: 10_000))
        #expect(r.admit(genesis, nowMs: Self.t0).isAdmitted)
        _ = e.tick(nowMs: Self.t0 + 2_500, replica: &r)
        _ = p[0].send(Self.join(cell: Self.cell(north: 8_000)), to: &e, nowMs: Self.t0 + 3_000, replica: &r)
        _ = p[1].send(Self.join(cell: Self.cell(north: 27_000)), to: &e, nowMs: Self.t0 + 3_000, replica: &r)
        #expect(e.stats.introductionsSent == 0, "19 km apart, one outside the fence")
        let ds = p[2].send(Self.join(cell: Self.cell(north: -8_000)), to: &e, nowMs: Self.t0 + 3_000, replica: &r)
        #expect(Self.introduced(p[2], ds) == [p[0].address.value])
        #expect(Self.introduced(p[0], ds) == [p[2].address.value])
        #expect(Self.introduced(p[1], ds).isEmpty)
    }

    /// A member that hops from cell to cell to be introduced to whoever stands there (a
    /// fence lie, to learn the public addresses of nodes behind NATs in a place): a burst of
    /// 4 pairs, then one every 150 s, however often it hops (each pair alone would be allowed
    /// again every minute: 40 in 10 minutes); every introduction names a member (an address
    /// that shook hands with the introducer) and goes to a member only.
    @Test func aMemberHoppingCellsIsIntroducedAFewTimesAndNoMore() {
        var (e, r, p) = Self.engine(peers: 5)
        var liar = p.removeLast()
        let members = Set(p.map(\.address)).union([liar.address])
        // Four honest members behind NATs, in four places 30 km apart (none near another).
        for i in p.indices {
            _ = p[i].send(Self.join(cell: Self.cell(north: Double(i) * 30_000)), to: &e, nowMs: Self.t0, replica: &r)
        }
        _ = liar.send(Self.join(cell: Self.cell(north: -100_000)), to: &e, nowMs: Self.t0, replica: &r)
        #expect(e.activePeers.count == 5 && e.stats.introductionsSent == 0)
        var named: [String] = [], strays = 0
        for step in 0..<120 {
            let place = Self.cell(north: Double(step % p.count) * 30_000)
            let ds = liar.send(Self.interest(cell: place), to: &e, nowMs: Self.t0 + UInt64(step) * 5_000, replica: &r)
            named += Self.introduced(liar, ds)
            for case .send(_, let to) in ds where !members.contains(to) { strays += 1 }
        }
        let cap = Int(IntroductionState.perMemberBurst) + Int(600 * IntroductionState.perMemberPerSecond) + 1
        #expect(named.count >= 4 && named.count <= cap, "\(named.count) introductions in 10 minutes")
        #expect(Set(named).isSubset(of: Set(p.map(\.address.value))), "\(named)")
        #expect(strays == 0)
        #expect(e.stats.drops["introductionLimited", default: 0] >= 10)
    }
}
