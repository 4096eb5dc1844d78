import Testing
import SkwadCrypto
import SkwadModel
import SkwadReplica
import SkwadTestKit

/// Issue 24, finding 3: the table of packs learned from others shares its capacity across
/// network groups (PROTOCOL §4 rule 5), so one party cannot lock a node out of new packs.
@Suite struct PackQuotaTests {
    @Test func aFloodFromEightGroupsLeavesRoomForAnHonestPackAndCannotTakeItBack() {
        var f = OpFactory(seed: 2410, floors: false)
        var r = Replica(config: .noFloors)
        let mallory = f.user(), alice = f.user()
        var refused = 0
        var flood: [String: [SignedOp]] = [:]
        for g in 0..<8 {
            for i in 0..<150 {
                let genesis = f.createPack(by: mallory, name: "spam\(g)-\(i)")
                flood["10.\(g).0", default: []].append(genesis)
                if !r.admit(genesis, nowMs: f.nowMs, arrival: Arrival(source: "10.\(g).0")).isAdmitted { refused += 1 }
            }
        }
        // Later groups displaced earlier ones until every group held its share (1,000 / 8).
        #expect(r.remotePackCount == ReplicaConfig.defaultMaxRemotePacks)
        #expect(refused > 0 && r.displacedCount > 0)
        #expect(r.remotePacksBySource.values.allSatisfy { $0 >= 124 && $0 <= 126 })
        let displacedByFlood = r.displacedCount
        _ = r.takeEvicted()
        // An honest pack created afterwards is admitted and listed, displacing one of the flood's.
        let honest = f.createPack(by: alice, name: "study group")
        #expect(r.admit(honest, nowMs: f.nowMs, arrival: Arrival(source: "192.168.7")).isAdmitted)
        #expect(r.packs(nowMs: f.nowMs).contains { $0.id == honest.id })
        #expect(r.remotePackCount == ReplicaConfig.defaultMaxRemotePacks && r.displacedCount == displacedByFlood + 1)
        let gone = r.takeEvicted()
        #expect(gone.count == 1)
        // The flood cannot take the place back: neither the displaced pack nor a new one.
        let displaced = flood.values.joined().first { $0.id == gone.first?.pack }!
        for g in 0..<8 {
            #expect(!r.admit(displaced, nowMs: f.nowMs, arrival: Arrival(source: "10.\(g).0")).isAdmitted)
            #expect(!r.admit(f.createPack(by: mallory, name: "more\(g)"), nowMs: f.nowMs, arrival: Arrival(source: "10.\(g).0")).isAdmitted)
        }
        #expect(r.isLive(honest.id, nowMs: f.nowMs))
    }

    @Test func packsWithMembersOrAroundUsAreNeverDisplaced() throws {
        var f = OpFactory(seed: 2411, floors: false)
        var config = ReplicaConfig.noFloors
        config.maxRemotePacks = 4
        var r = Replica(config: config)
        let alpha = f.user(), member = f.user()
        let here = try GeoPoint(lat: 40.4433, lon: -79.9436)
        let cell = try Geohash.decode(Geohash.encode(here, precision: 7))
        let busy = f.createPack(by: alpha, name: "busy")
        let around = f.createPack(by: alpha, name: "around", fence: Geofence(center: here, radiusMeters: 2000))
        let quiet = f.createPack(by: alpha, name: "quiet")
        let other = f.createPack(by: alpha, name: "other")
        for p in [busy, around, quiet] { #expect(r.admit(p, nowMs: f.nowMs, arrival: Arrival(source: "a", here: cell)).isAdmitted) }
        #expect(r.admit(other, nowMs: f.nowMs, arrival: Arrival(source: "b", here: cell)).isAdmitted)
        #expect(r.admit(f.post(by: member, in: busy), nowMs: f.nowMs).isAdmitted)
        // Source "a" holds one displaceable pack ("quiet"), "b" one: a newcomer from "c" (1 with
        // it) may displace neither, whatever "a" holds in all.
        let newcomer = f.createPack(by: alpha, name: "new")
        let out = r.admit(newcomer, nowMs: f.nowMs, arrival: Arrival(source: "c", here: cell))
        guard case .rejected(.tooManyPacks, _) = out else { Issue.record("\(out)"); return }
        // Without our cell, "around" is displaceable too: "a" holds 2 > 1, and its newest goes.
        #expect(r.admit(newcomer, nowMs: f.nowMs, arrival: Arrival(source: "c")).isAdmitted)
        let ids = Set(r.packIDs())
        #expect(ids.contains(busy.id) && ids.contains(newcomer.id) && ids.contains(other.id))
        #expect(ids.contains(around.id) != ids.contains(quiet.id))
        // A pack the node joins leaves the table and is never displaced.
        r.markOwn(other.id)
        #expect(r.remotePackCount == 3)
    }
}
