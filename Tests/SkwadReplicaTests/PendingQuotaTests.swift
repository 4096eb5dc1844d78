import Testing
import SkwadCrypto
import SkwadModel
import SkwadReplica
import SkwadTestKit

/// The pending buffer is shared per network group too (PendingQuota.swift): a flood of signed
/// ops for made-up packs cannot keep an honest op that outran its genesis out.
@Suite struct PendingQuotaTests {
    @Test func aFloodOfOpsForMadeUpPacksLeavesRoomForAnHonestOpThatOutranItsGenesis() {
        var f = OpFactory(seed: 2413, floors: false)
        var config = ReplicaConfig.noFloors
        config.pendingLimit = 100
        var r = Replica(config: config)
        let mallory = f.user(), alice = f.user(), bob = f.user()
        for i in 0..<150 {
            let madeUp = f.createPack(by: mallory, name: "ghost\(i)")  // never sent
            _ = r.admit(f.post(by: mallory, in: madeUp), nowMs: f.nowMs, arrival: Arrival(source: "10.0.\(i % 2)"))
        }
        #expect(r.pendingCount == 100)
        let real = f.createPack(by: alice, name: "real")
        let early = f.post(by: bob, in: real, title: "before the genesis")
        #expect(r.admit(early, nowMs: f.nowMs, arrival: Arrival(source: "192.168.7")) == .pending)
        #expect(r.pendingCount == 100)
        guard case .admitted(let list) = r.admit(real, nowMs: f.nowMs, arrival: Arrival(source: "192.168.7")) else {
            Issue.record("genesis not admitted"); return
        }
        #expect(list.map(\.id) == [real.id, early.id])
        // One flooding group gets the free place back, and no more: it cannot push the other
        // group below its share.
        var accepted = 0
        for i in 0..<20 {
            let more = f.createPack(by: mallory, name: "ghost-more\(i)")
            if r.admit(f.post(by: mallory, in: more), nowMs: f.nowMs, arrival: Arrival(source: "10.0.0")) == .pending { accepted += 1 }
        }
        #expect(accepted == 1)
        #expect(r.pendingCount == 100)
    }
}
