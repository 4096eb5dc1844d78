import SkwadTestTraits
import Testing
import SkwadCrypto
import SkwadModel
@testable import SkwadReplica
import SkwadTestKit

/// Issue 10, finding 5: the network is not free. Stamp floors, a cap on packs learned from
/// others, tombstones that expire once they block nothing.
@Suite(.heavy) struct IdentityPriceTests {
    var f = OpFactory(seed: 55)

    func rejection(_ o: AdmitOutcome) -> Rejection? { if case .rejected(let r, _) = o { r } else { nil } }

    /// A genesis signed by `key` with the given pow_bits and a stamp that shows fewer than
    /// `short` zero bits (found deterministically).
    mutating func cheapGenesis(_ key: SigningKeyPair, nonce: [UInt8], powBits: UInt32, showing bits: Int, short: Int) -> SignedOp {
        var stamp: UInt64 = 0
        while true {
            let z = ProofOfWork.leadingZeroBits(ProofOfWork.digest(genesisNonce: nonce, author: key.publicKey.bytes, stamp: stamp))
            if z >= bits && z < short { break }
            stamp += 1
        }
        let c = CreatePack(name: "free", nonce: nonce, powBits: powBits)
        return try! SignedOp.sign(
            OpBody(packID: nil, author: key.publicKey, hlc: f.nextHLC(), stamp: stamp, kind: .createPack(c)), with: key)
    }

    @Test mutating func aGenesisBelowTheFloorIsRejectedWhateverItsPowBits() {
        var r = Replica()
        let user = f.user(), nonce = f.rng.bytes(16)
        let key = user.pseudonym(genesisNonce: nonce)
        // pow_bits 0 chosen by the creator; the stamp shows some work, but less than the floor.
        let g = cheapGenesis(key, nonce: nonce, powBits: 0, showing: 4, short: Int(PowFloor.genesisBits))
        #expect(rejection(r.admit(g, nowMs: f.nowMs)) == .badStamp)
        // The same at the floor is admitted.
        #expect(r.admit(f.createPack(by: user, powBits: 0), nowMs: f.nowMs).isAdmitted)
    }

    @Test mutating func aPseudonymBelowTheFloorIsRejected() {
        var r = Replica()
        let alice = f.user(), bob = f.user()
        let g = f.createPack(by: alice, powBits: 0)
        #expect(r.admit(g, nowMs: f.nowMs).isAdmitted)
        guard case .createPack(let c) = g.body.kind else { return }
        let key = bob.pseudonym(genesisNonce: c.nonce)
        var stamp: UInt64 = 0
        while ProofOfWork.isValid(genesisNonce: c.nonce, author: key.publicKey.bytes, stamp: stamp, bits: Int(PowFloor.pseudonymBits)) {
            stamp += 1
        }
        let cheap = try! SignedOp.sign(
            OpBody(
                packID: g.id, author: key.publicKey, hlc: f.nextHLC(), stamp: stamp,
                kind: .vote(Vote(target: g.id, value: -1))), with: key)
        #expect(rejection(r.admit(cheap, nowMs: f.nowMs)) == .badStamp)
        #expect(r.admit(f.post(by: bob, in: g), nowMs: f.nowMs).isAdmitted)
    }

    @Test mutating func packsFromOthersAreCappedButOwnAndAdminPacksAreNot() {
        let admin = try! SigningKeyPair(seed: [UInt8](repeating: 7, count: 32))
        var r = Replica(config: ReplicaConfig(adminKeys: [admin.publicKey], maxRemotePacks: 3))
        let spammer = f.user()
        var admitted = 0
        for i in 0..<10 {
            let out = r.admit(f.createPack(by: spammer, name: "spam\(i)"), nowMs: f.nowMs)
            if out.isAdmitted { admitted += 1 } else { #expect(rejection(out) == .tooManyPacks) }
        }
        #expect(admitted == 3)
        #expect(r.admit(f.createPack(by: f.user(), name: "mine"), nowMs: f.nowMs, local: true).isAdmitted)
        #expect(r.admit(f.createPack(by: spammer, name: "campus", signer: admin), nowMs: f.nowMs).isAdmitted)
        // A purged pack frees its place.
        let deleted = r.packs(nowMs: f.nowMs).first { $0.name == "spam0" }!
        let genesis = r.op(deleted.id)!
        _ = r.admit(f.op(.delete(Delete(target: deleted.id)), by: spammer, in: genesis), nowMs: f.nowMs)
        _ = r.purge(nowMs: f.nowMs)
        #expect(r.admit(f.createPack(by: spammer, name: "again"), nowMs: f.nowMs).isAdmitted)
    }

    @Test mutating func tombstonesExpireOnceTheirGenesisCanNoLongerBeAdmitted() {
        var r = Replica()
        let alice = f.user()
        let g = f.createPack(by: alice)
        _ = r.admit(g, nowMs: f.nowMs)
        _ = r.admit(f.op(.delete(Delete(target: g.id)), by: alice, in: g), nowMs: f.nowMs)
        let stones = r.purge(nowMs: f.nowMs)
        #expect(stones.count == 1)
        let until = g.hlc.physicalMs + Lifetime.maxMs + Lifetime.purgeGraceMs
        #expect(r.expireTombstones(nowMs: until - 1).isEmpty)
        // The tombstone keeps the genesis as its deletion proof: offered again, it is known.
        #expect(r.admit(g, nowMs: until - 1) == .duplicate)
        #expect(!r.isLive(g.id, nowMs: until - 1))
        #expect(r.expireTombstones(nowMs: until) == [g.id])
        #expect(r.tombstones.isEmpty)
        // Forgetting it is safe: the genesis is too old to be admitted again.
        #expect(rejection(r.admit(g, nowMs: until)) == .packExpired)
    }
}
