import Testing
import SkwadModel
import SkwadReplica
@testable import SkwadGossip
import SkwadTestKit

/// Whom a node pulls its directory from (PROTOCOL §11a): every link in turn, those that
/// reconcile packs with it all the time included, and a new remote contact at once.
@Suite struct DirectoryTurnTests {
    static let here = Geohash.encode(try! GeoPoint(lat: 40.4433, lon: -79.9436), precision: 8)

    /// The peers the directive list sends a datagram to.
    static func destinations(_ out: [GossipDirective]) -> Set<PeerAddress> {
        Set(
            out.compactMap {
                if case .send(_, let to) = $0 { return to }
                return nil
            })
    }

    /// Two of three links reconcile packs with us every round (as a remote contact does);
    /// three directory rounds still pull from each link once. Chosen as a pack's link is (the
    /// least recently reconciled), the two were asked only in the rounds drawn at random.
    @Test func everyLinkIsPulledInTurnEvenOnesThatReconcileAllTheTime() throws {
        let replica = Replica(config: .noFloors)
        var e = GossipEngine(seed: 3, secrets: .seeded)
        e.selfAddress = PeerAddress("n0")
        let nowMs: UInt64 = 1_790_000_000_000
        _ = e.setInterest(cell: Self.here, subscriptions: [], nowMs: nowMs)
        let links = [PeerAddress("n1"), PeerAddress("n2"), PeerAddress("n3")]
        for p in links {
            let promoted = e.peers.promote(p, info: NodeInfo(cell: Self.here), nowMs: nowMs)
            #expect(promoted)
        }
        var pulled: [PeerAddress: Int] = [:]
        for k in 0..<3 {
            let t = nowMs + UInt64(k) * 3000
            // n2 and n3 sent us a `Reconcile` just now; n1 never did.
            for p in links.dropFirst() { _ = e.markReconciled(p, nowMs: t) }
            var out: [GossipDirective] = []
            e.directoryRound(nowMs: t, replica: replica, into: &out)
            for p in Self.destinations(out) { pulled[p, default: 0] += 1 }
        }
        #expect(pulled == [links[0]: 1, links[1]: 1, links[2]: 1], "pulled \(pulled)")
    }

    /// A remote contact is a link before it says a word to us: its directory is pulled at the
    /// next tick all the same, as any new link's is.
    @Test func aNewRemoteContactHasItsDirectoryPulledAtOnce() throws {
        var f = OpFactory(seed: 31, floors: false)
        let fence = Geofence(center: try GeoPoint(lat: 40.4433, lon: -79.9436), radiusMeters: 150)
        let lab = f.createPack(by: f.user(), name: "lab", fence: fence, locked: false)
        var replica = Replica(config: .noFloors)
        #expect(replica.admit(lab, nowMs: f.nowMs).isAdmitted)
        var e = GossipEngine(seed: 4, secrets: .seeded)
        e.selfAddress = PeerAddress("n5")
        // 2 km out, following the pack: its fence needs a contact.
        let far = Geohash.encode(try GeoPoint(lat: 40.4433 + 2000 / 111_320, lon: -79.9436), precision: 8)
        _ = e.setInterest(cell: far, subscriptions: [lab.id], nowMs: f.nowMs)
        var out: [GossipDirective] = []
        e.remoteRound(nowMs: f.nowMs, replica: replica, into: &out)
        #expect(e.vicinity.farFences == [fence])
        let contact = PeerAddress("n8")
        e.offerRemote(contact, info: NodeInfo(cell: Geohash.encode(fence.center, precision: 8)), nowMs: f.nowMs)
        #expect(e.remoteContacts(inside: fence) == [contact])
        out = []
        e.flushNewLinks(nowMs: f.nowMs, replica: replica, into: &out)
        #expect(Self.destinations(out) == [contact])
    }
}
