import Testing
import SkwadModel
import SkwadReplica
@testable import SkwadGossip
import SkwadTestKit

/// Rim contacts (PROTOCOL §11a): a node inside a locked fence whose links all stand outside it
/// gets the pack's genesis from a holder that knows it only as a passive peer named inside.
@Suite struct RimContactTests {
    static let center = try! GeoPoint(lat: 40.4433, lon: -79.9436)
    static let fence = Geofence(center: center, radiusMeters: 675)
    /// The holder, near the centre; the rim node, about 600 m north (inside the 675 m fence).
    static let holderCell = Geohash.encode(center, precision: 7)
    static let rimCell = Geohash.encode(try! GeoPoint(lat: 40.4487, lon: -79.9436), precision: 7)

    /// Node 0 holds a locked pack, node 1 stands inside its fence. Views of one: node 0's
    /// member (node 2) stands beside it, node 1's (node 3) outside the fence; 0–2 and 1–3
    /// never meet, and node 0's nearest peer is node 2, not node 1.
    static func world(rimNamed: Bool) -> (Harness, SignedOp) {
        var f = OpFactory(seed: 24, floors: false)
        let pack = f.createPack(by: f.user(), name: "rim", fence: fence, locked: true)
        let outside = Geohash.encode(try! GeoPoint(lat: 40.50, lon: -79.9436), precision: 7)
        var config = GossipConfig()
        config.membership.activeSize = 1
        config.membership.vicinitySize = 1
        var h = Harness(count: 4, config: config, cells: [holderCell, rimCell, holderCell, outside])
        h.start { i in i < 2 ? [i + 2] : [] }
        h.publish(pack, at: 0)
        if rimNamed { h.nodes[0].engine.addPassive(Harness.address(1), cell: rimCell, nowMs: h.nowMs) }
        return (h, pack)
    }

    @Test func aPassivePeerNamedInsideALockedFenceGetsItsGenesis() throws {
        #expect(try Geohash.decode(Self.rimCell).center.distance(to: Self.center) > 500)
        #expect(Self.fence.contains(cell: try Geohash.decode(Self.rimCell)))
        var (h, pack) = Self.world(rimNamed: true)
        h.run(ms: 10_000)
        #expect(h.nodes[1].replica.hasPack(pack.packID))
        #expect(h.nodes[0].engine.peers.rimAsked[Harness.address(1)] != nil)
        // Without the name the rim node has no way to it (the control).
        var (alone, _) = Self.world(rimNamed: false)
        alone.run(ms: 10_000)
        #expect(!alone.nodes[1].replica.hasPack(pack.packID))
    }

    @Test func aPeerNamedInsideIsPulledOncePer30Seconds() throws {
        var (h, _) = Self.world(rimNamed: true)
        h.nodes[1].up = false
        var e = h.nodes[0].engine
        var out: [GossipDirective] = []
        e.rimRound(nowMs: h.nowMs, replica: h.nodes[0].replica, into: &out)
        #expect(e.peers.rimAsked[Harness.address(1)] == h.nowMs)
        let first = e.stats.directoryRounds
        e.rimRound(nowMs: h.nowMs + 29_999, replica: h.nodes[0].replica, into: &out)
        #expect(e.stats.directoryRounds == first)
        e.rimRound(nowMs: h.nowMs + 30_000, replica: h.nodes[0].replica, into: &out)
        #expect(e.stats.directoryRounds == first + 1)
    }

    @Test func aPeerNamedOutsideEveryLockedFenceIsNotPulled() throws {
        var (h, _) = Self.world(rimNamed: false)
        let far = Geohash.encode(try GeoPoint(lat: 40.47, lon: -79.9436), precision: 7)
        var e = h.nodes[0].engine
        e.addPassive(Harness.address(1), cell: far, nowMs: h.nowMs)
        // A stranger's cut cell (precision 4) names no place inside a fence either.
        e.addPassive(PeerAddress("n7"), cell: String(Self.rimCell.prefix(4)), nowMs: h.nowMs)
        var out: [GossipDirective] = []
        e.rimRound(nowMs: h.nowMs, replica: h.nodes[0].replica, into: &out)
        #expect(e.peers.rimAsked.isEmpty && out.isEmpty)
        h.nodes[0].engine = e
    }
}
