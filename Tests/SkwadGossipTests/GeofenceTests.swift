import SkwadTestTraits
import Testing
import SkwadCrypto
import SkwadModel
import SkwadReplica
@testable import SkwadGossip
import SkwadTestKit

@Suite(.heavy) struct GeofenceTests {
    @Test func aNodeOutsideALockedPackReceivesNoneOfItsOps() throws {
        let inside = Geohash.encode(try GeoPoint(lat: 40.4433, lon: -79.9436), precision: 7)
        let outside = Geohash.encode(try GeoPoint(lat: 40.60, lon: -79.9436), precision: 7)
        var h = Harness(count: 5, cells: [inside, inside, inside, inside, outside])
        h.start { i in i == 0 ? [] : [0] }
        h.run(ms: 3000)
        var f = OpFactory(seed: 5, nowMs: h.nowMs)
        let u = f.user()
        let fence = Geofence(center: try GeoPoint(lat: 40.4433, lon: -79.9436), radiusMeters: 1000)
        let g = f.createPack(by: u, name: "locked", fence: fence, locked: true)
        // Even subscribing does not let the outsider in.
        h.setInterest(4, cell: outside, subscriptions: [g.id])
        h.publish(g, at: 0)
        for k in 0..<10 { h.publish(f.post(by: u, in: g, title: "p\(k)", location: inside), at: k % 4) }
        h.run(ms: 5000)
        #expect(h.nodes[0..<4].allSatisfy { $0.replica.count == 11 })
        #expect(h.nodes[4].replica.count == 0)
        #expect(h.admitted[4, default: []].isEmpty)
        // An unlocked fenced pack reaches the outsider once it subscribes.
        let open = f.createPack(by: u, name: "open", fence: fence, locked: false)
        h.publish(open, at: 0)
        h.run(ms: 300)
        h.setInterest(4, cell: outside, subscriptions: [g.id, open.id])
        h.publish(f.post(by: u, in: open, title: "hello"), at: 1)
        // The genesis comes by the outsider's directory pull (poked by the subscription: due
        // within the 3 s base interval, then a round trip) or by a member's reconciliation
        // naming the pack to it, whichever comes first: 3 s was the edge of the first.
        h.run(ms: 6000)
        #expect(h.nodes[4].replica.contains(open.id) && h.nodes[4].replica.count == 2)
    }
}
