import Testing
import SkwadCrypto
import SkwadModel
import SkwadReplica
import SkwadTestKit

/// A deleted pack's directory entry (PROTOCOL §4 rule 8b, §11a): its genesis and the smallest
/// moderator deletion, kept from deletion to tombstone expiry, the same on every replica
/// whatever order the deletions came in.
@Suite struct DeletionProofTests {
    @Test func theSmallestDeletionIsKeptWhateverTheOrderAndSurvivesThePurge() throws {
        var f = OpFactory(seed: 2402, floors: false)
        let admin = try SigningKeyPair(seed: [UInt8](repeating: 9, count: 32))
        let alpha = f.user()
        let g = f.createPack(by: alpha, name: "twice")
        let first = f.op(.delete(Delete(target: g.id)), by: alpha, in: g)
        let second = f.op(.delete(Delete(target: g.id)), by: alpha, in: g, signer: admin)
        let config = ReplicaConfig(adminKeys: [admin.publicKey], pseudonymPowFloor: 0, genesisPowFloor: 0)
        var kept: [OpID] = []
        for (order, purgeBetween) in [([first, second], false), ([second, first], false), ([second, first], true)] {
            var r = Replica(config: config)
            _ = r.admit(g, nowMs: f.nowMs)
            _ = r.admit(order[0], nowMs: f.nowMs)
            if purgeBetween { _ = r.purge(nowMs: f.nowMs) }
            _ = r.admit(order[1], nowMs: f.nowMs)
            _ = r.purge(nowMs: f.nowMs)
            let proof = try #require(r.tombstones[g.id]?.proof)
            kept.append(proof.deletion.id)
            // The tombstone's ops are served (a directory answer sends them) but are not in the set.
            #expect(r.op(proof.deletion.id) != nil && r.op(g.id) != nil)
            #expect(!r.contains(g.id))
            let items = r.directoryItems(nowMs: f.nowMs, capacity: 1024) { _ in true }.map(\.id)
            #expect(items == [g.id, proof.deletion.id])
            if purgeBetween { #expect(r.takeUpdatedTombstones().map(\.pack) == [g.id]) }
        }
        #expect(kept == [first.id, first.id, first.id])
    }

    @Test func nobodyButAModeratorDeletesAndTheDirectoryOfAFreshReplicaFollows() throws {
        var f = OpFactory(seed: 2403, floors: false)
        let alpha = f.user(), mallory = f.user()
        let g = f.createPack(by: alpha, name: "p")
        var r = Replica(config: .noFloors)
        _ = r.admit(g, nowMs: f.nowMs)
        let forged = f.op(.delete(Delete(target: g.id)), by: mallory, in: g)
        #expect(!r.admit(forged, nowMs: f.nowMs).isAdmitted)
        let real = f.op(.delete(Delete(target: g.id)), by: alpha, in: g)
        #expect(r.admit(real, nowMs: f.nowMs).isAdmitted)
        // A deletion by a non-moderator never replaces the proof of a tombstone either.
        _ = r.purge(nowMs: f.nowMs)
        _ = r.admit(forged, nowMs: f.nowMs)
        #expect(r.tombstones[g.id]?.proof?.deletion.id == real.id)
        // A replica restored from the store's tombstones lists the same entry.
        var back = Replica(config: .noFloors)
        back.restore([], tombstones: Array(r.tombstones.values))
        let a = r.directoryItems(nowMs: f.nowMs, capacity: 8) { _ in true }.map(\.id)
        let b = back.directoryItems(nowMs: f.nowMs, capacity: 8) { _ in true }.map(\.id)
        #expect(a == b && a.count == 2)
    }
}
