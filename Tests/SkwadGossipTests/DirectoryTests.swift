import Testing
import SkwadCrypto
import SkwadModel
import SkwadReplica
@testable import SkwadGossip
import SkwadTestKit

/// The pack directory (PROTOCOL §11a): geneses a node missed reach it by reconciliation.
@Suite struct DirectoryTests {
    static let here = try! GeoPoint(lat: 40.4433, lon: -79.9436)
    static let cell = Geohash.encode(here, precision: 7)
    /// ~6 km east of `here`, and ~40 km east.
    static let near = Geohash.encode(try! GeoPoint(lat: 40.4433, lon: -79.8730), precision: 7)
    static let far = Geohash.encode(try! GeoPoint(lat: 40.4433, lon: -79.4700), precision: 7)

    /// Admits ops into one node's replica without any push (as if made before it had peers).
    static func plant(_ ops: [SignedOp], in h: inout Harness, at i: Int) {
        for op in ops { _ = h.nodes[i].replica.admit(op, nowMs: h.nowMs) }
    }

    @Test func aLateJoinerLearnsEveryPackItShouldAndNoLockedPackOutsideIt() throws {
        var f = OpFactory(seed: 11, floors: false)
        let alpha = f.user()
        let fence3km = Geofence(center: Self.here, radiusMeters: 3000)
        let unfenced = (0..<12).map { f.createPack(by: alpha, name: "open\($0)") }
        let fencedUnlocked = (0..<4).map { f.createPack(by: alpha, name: "quad\($0)", fence: fence3km) }
        let locked = f.createPack(by: alpha, name: "locked", fence: Geofence(center: Self.here, radiusMeters: 500), locked: true)
        let edit = f.op(.editPack(EditPack(name: "open0-renamed")), by: alpha, in: unfenced[0])
        // Nodes 0-2 at the campus, 3 joins late 6 km away, 4 joins late 40 km away.
        var h = Harness(count: 5, cells: [Self.cell, Self.cell, Self.cell, Self.near, Self.far])
        h.nowMs = f.nowMs
        for i in 0..<3 { Self.plant(unfenced + fencedUnlocked + [locked, edit], in: &h, at: i) }
        for i in 0..<3 { h.apply(i, h.nodes[i].engine.start(seeds: i == 0 ? [] : [Harness.address(0)], nowMs: h.nowMs)) }
        h.run(ms: 3000)
        for i in [3, 4] { h.apply(i, h.nodes[i].engine.start(seeds: [Harness.address(0)], nowMs: h.nowMs)) }
        h.run(ms: 5000)
        let nearIDs = Set(h.nodes[3].replica.packIDs()), farIDs = Set(h.nodes[4].replica.packIDs())
        #expect(nearIDs == Set((unfenced + fencedUnlocked).map(\.id)))
        #expect(farIDs == Set(unfenced.map(\.id)))
        #expect(!nearIDs.contains(locked.id) && !farIDs.contains(locked.id))
        // The edit came with the genesis: the renamed pack is shown renamed.
        #expect(h.nodes[3].replica.pack(unfenced[0].id)?.create.name == "open0-renamed")
        #expect(h.nodes[4].replica.contains(edit.id))
    }

    @Test func aPackMadeBeforeAnyPeerWasConnectedReachesTheFirstPeer() throws {
        var f = OpFactory(seed: 12, floors: false)
        let admin = f.user()
        let adminPack = f.createPack(by: admin, name: "Campus news")
        var h = Harness(count: 2, cells: [Self.cell, Self.far])
        h.nowMs = f.nowMs
        Self.plant([adminPack], in: &h, at: 0)
        h.start { i in i == 0 ? [] : [0] }
        // One tick after the link comes up, not one directory period.
        h.run(ms: 600)
        #expect(h.nodes[1].replica.contains(adminPack.id))
        #expect(h.nodes[1].engine.stats.directoryRounds >= 1)
    }

    @Test func findPackAnswersByIdPrefixAndByNameButNotALockedPackOutside() throws {
        var f = OpFactory(seed: 13, floors: false)
        let alpha = f.user()
        let open = f.createPack(by: alpha, name: "Night Owls")
        let locked = f.createPack(by: alpha, name: "Secret", fence: Geofence(center: Self.here, radiusMeters: 500), locked: true)
        var config = GossipConfig()
        config.spread.directoryIntervalMs = 3_600_000  // only FindPack may bring it
        var h = Harness(count: 2, config: config, cells: [Self.cell, Self.far])
        h.nowMs = f.nowMs
        h.start { i in i == 0 ? [] : [0] }
        h.run(ms: 1000)
        Self.plant([open, locked], in: &h, at: 0)
        h.apply(1, h.nodes[1].engine.findPack(String(open.id.hex.prefix(6)), nowMs: h.nowMs, replica: Replica(config: .noFloors)))
        h.run(ms: 200)
        #expect(h.nodes[1].replica.contains(open.id))
        h.apply(1, h.nodes[1].engine.findPack("secret", nowMs: h.nowMs, replica: h.nodes[1].replica))
        h.run(ms: 200)
        #expect(!h.nodes[1].replica.contains(locked.id))
    }

    @Test func theDirectoryRuleIncludesWhatItShould() throws {
        var f = OpFactory(seed: 14, floors: false)
        let alpha = f.user()
        func entry(_ fence: Geofence?, locked: Bool = false) -> PackScope {
            PackScope(id: f.createPack(by: alpha).id, fence: fence, locked: locked)
        }
        let at = NodeInfo(cell: Self.cell), far = NodeInfo(cell: Self.far), nowhere = NodeInfo()
        let fence = Geofence(center: Self.here, radiusMeters: 3000)
        let rule = { (p: PackScope, i: NodeInfo) in GossipEngine.inDirectory(p, of: i) }
        #expect(rule(entry(nil), nowhere) && rule(entry(nil), far))
        #expect(rule(entry(fence), at) && !rule(entry(fence), far) && !rule(entry(fence), nowhere))
        // Near: within 10 km of the fence (an admin pack's too: the scope does not tell them apart).
        let near = NodeInfo(cell: Geohash.encode(try GeoPoint(lat: 40.4433, lon: -79.8850), precision: 7))  // ≈ 5 km east
        #expect(rule(entry(fence), near))
        #expect(rule(entry(fence, locked: true), at) && !rule(entry(fence, locked: true), far) && !rule(entry(fence, locked: true), near))
        let sub = entry(fence)
        #expect(rule(sub, NodeInfo(cell: Self.far, subscriptions: [NodeInfo.prefix(sub.id)])))
        // The genesis part of the geofence rule is the directory rule (§12).
        #expect(!mayReceive(far, pack: entry(fence), isGenesis: true) && mayReceive(at, pack: entry(fence), isGenesis: true))
    }
}
