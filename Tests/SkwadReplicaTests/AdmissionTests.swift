import SkwadTestTraits
import Testing
import SkwadCrypto
import SkwadModel
@testable import SkwadReplica
import SkwadTestKit

@Suite(.heavy) struct AdmissionTests {
    var f = OpFactory(seed: 1)
    lazy var alice = f.user()
    lazy var bob = f.user()

    func rejection(_ o: AdmitOutcome) -> Rejection? { if case .rejected(let r, _) = o { r } else { nil } }

    @Test mutating func admitsAPackAndItsOps() {
        var r = Replica()
        let g = f.createPack(by: alice, name: "quad")
        let p = f.post(by: bob, in: g)
        #expect(r.receive(g.envelope.serialized(), nowMs: f.nowMs) == .admitted([g]))
        #expect(r.receive(p.envelope.serialized(), nowMs: f.nowMs) == .admitted([p]))
        #expect(r.receive(p.envelope.serialized(), nowMs: f.nowMs) == .duplicate)
        #expect(r.count == 2)
    }

    @Test mutating func badSignatureIsRejected() {
        var r = Replica()
        let g = f.createPack(by: alice)
        var sig = g.envelope.signature; sig[5] ^= 0x40
        let forged = Envelope(body: g.envelope.body, signature: sig).serialized()
        #expect(rejection(r.receive(forged, nowMs: f.nowMs)) == .badSignature)
        #expect(r.count == 0)
    }

    @Test mutating func bodyTamperingBreaksTheSignature() {
        var r = Replica()
        let g = f.createPack(by: alice, name: "aaaa")
        var body = g.envelope.body
        let i = body.firstIndex(of: UInt8(ascii: "a"))!
        body[i] = UInt8(ascii: "b")
        #expect(rejection(r.receive(Envelope(body: body, signature: g.envelope.signature).serialized(), nowMs: f.nowMs)) == .badSignature)
    }

    @Test mutating func pseudonymNotStampedForThatPackIsRejected() {
        var r = Replica()
        let a = f.createPack(by: alice, name: "a", powBits: 8)
        let b = f.createPack(by: alice, name: "b", powBits: 8)
        _ = r.admit(a, nowMs: f.nowMs); _ = r.admit(b, nowMs: f.nowMs)
        // Bob's pseudonym and stamp minted for pack a, used in pack b.
        let key = bob.pseudonym(genesisNonce: { if case .createPack(let c) = a.body.kind { c.nonce } else { [] } }())
        let stampA = f.op(.post(Post(title: "x", body: "y")), by: bob, in: a).body.stamp
        let body = OpBody(packID: b.id, author: key.publicKey, hlc: f.nextHLC(), stamp: stampA, kind: .post(Post(title: "x", body: "y")))
        let op = try! SignedOp.sign(body, with: key)
        #expect(rejection(r.admit(op, nowMs: f.nowMs)) == .badStamp)
        // The same key with its own stamp is fine in pack a.
        #expect(r.admit(f.op(.post(Post(title: "x", body: "y")), by: bob, in: a), nowMs: f.nowMs).isAdmitted)
    }

    @Test mutating func unknownPackIsHeldThenAdmittedOrRejectedWhenFull() {
        var r = Replica(config: ReplicaConfig(pendingLimit: 1))
        let g = f.createPack(by: alice)
        let p1 = f.post(by: bob, in: g), p2 = f.post(by: alice, in: g)
        #expect(r.admit(p1, nowMs: f.nowMs) == .pending)
        #expect(rejection(r.admit(p2, nowMs: f.nowMs)) == .unknownPack)
        #expect(r.admit(g, nowMs: f.nowMs) == .admitted([g, p1]))
        #expect(r.count == 2 && r.pendingCount == 0)
    }

    @Test mutating func opsHeldForAPackWhoseGenesisNeverComesAreDroppedAfterAMinute() {
        var r = Replica()
        let g = f.createPack(by: alice), other = f.createPack(by: bob, name: "other")
        let held = f.post(by: bob, in: g)
        #expect(r.admit(held, nowMs: f.nowMs) == .pending)
        // Within the minute it is still held; past it, the next admission (the sweep runs at
        // most once a second) drops it.
        let late = f.nowMs + Replica.pendingMaxAgeMs
        _ = r.admit(other, nowMs: late - 1)
        #expect(r.pendingCount == 1)
        _ = r.admit(f.post(by: alice, in: other), nowMs: late + 1000)
        #expect(r.pendingCount == 0)
        // The genesis arriving late admits only itself; the post comes again by reconciliation.
        #expect(r.admit(g, nowMs: late + 1001) == .admitted([g]))
        #expect(r.admit(held, nowMs: late + 1002) == .admitted([held]))
    }

    @Test mutating func moderationAndEditsByNonAlphaAreRejected() {
        var r = Replica()
        let g = f.createPack(by: alice)
        let p = f.post(by: bob, in: g)
        _ = r.admit(g, nowMs: f.nowMs); _ = r.admit(p, nowMs: f.nowMs)
        let byBob = f.op(.moderate(Moderate(target: p.id, hidden: true)), by: bob, in: g)
        #expect(rejection(r.admit(byBob, nowMs: f.nowMs)) == .notAllowed)
        #expect(rejection(r.admit(f.op(.editPack(EditPack(name: "mine")), by: bob, in: g), nowMs: f.nowMs)) == .notAllowed)
        #expect(rejection(r.admit(f.op(.delete(Delete(target: g.id)), by: bob, in: g), nowMs: f.nowMs)) == .notAllowed)
        #expect(r.feed(nowMs: f.nowMs).map(\.id) == [p.id])
        let byAlpha = f.op(.moderate(Moderate(target: p.id, hidden: true)), by: alice, in: g)
        #expect(r.admit(byAlpha, nowMs: f.nowMs).isAdmitted)
        #expect(r.feed(nowMs: f.nowMs).isEmpty)
    }

    @Test mutating func adminKeysModerateAnyPackAndMakePermanentPacks() {
        let admin = SigningKeyPair.generate()
        var r = Replica(config: ReplicaConfig(adminKeys: [admin.publicKey]))
        let g = f.createPack(by: alice)
        let p = f.post(by: bob, in: g)
        _ = r.admit(g, nowMs: f.nowMs); _ = r.admit(p, nowMs: f.nowMs)
        let mod = f.op(.moderate(Moderate(target: p.id, hidden: true)), by: alice, in: g, signer: admin)
        #expect(r.admit(mod, nowMs: f.nowMs).isAdmitted)
        let ag = f.createPack(by: alice, name: "campus", signer: admin)
        #expect(r.admit(ag, nowMs: f.nowMs).isAdmitted)
        #expect(r.pack(ag.id)?.isAdmin == true && r.pack(ag.id)?.expiresMs == nil)
        let muchLater = f.nowMs + 30 * 24 * Lifetime.hour
        #expect(r.isLive(ag.id, nowMs: muchLater) && !r.isLive(g.id, nowMs: muchLater))
    }

    @Test mutating func clockTooFarAheadIsRejected() {
        var r = Replica()
        let g = f.createPack(by: alice)
        #expect(rejection(r.admit(g, nowMs: f.nowMs - 10 * 60_000)) == .clockAhead)
        #expect(r.admit(g, nowMs: f.nowMs - 60_000).isAdmitted)
    }

    @Test mutating func oversizeAndMalformedBytesAreRejected() {
        var r = Replica()
        #expect(rejection(r.receive([UInt8](repeating: 0x0a, count: 1500), nowMs: f.nowMs)) == .tooLarge)
        #expect(rejection(r.receive([0xff, 0xff, 0xff], nowMs: f.nowMs)) == .malformed)
        #expect(
            rejection(r.receive(Envelope(body: [1, 2, 3], signature: [UInt8](repeating: 0, count: 64)).serialized(), nowMs: f.nowMs))
                == .malformed)
        #expect(rejection(r.receive(Envelope(body: [], signature: [1]).serialized(), nowMs: f.nowMs)) == .malformed)
        // A too-long post cannot even be signed, and a crafted one is rejected at admission.
        let g = f.createPack(by: alice)
        #expect(throws: ModelError.self) {
            let key = alice.pseudonym(genesisNonce: [UInt8](repeating: 0, count: 16))
            _ = try SignedOp.sign(
                OpBody(
                    packID: g.id, author: key.publicKey, hlc: f.nextHLC(),
                    kind: .post(Post(title: "t", body: String(repeating: "x", count: 900)))), with: key)
        }
        #expect(r.count == 0)
    }

    @Test mutating func lockedPackNeedsALocationInsideTheFence() throws {
        var r = Replica()
        let center = try GeoPoint(lat: 40.4433, lon: -79.9436)
        let g = f.createPack(by: alice, fence: Geofence(center: center, radiusMeters: 1000), locked: true)
        _ = r.admit(g, nowMs: f.nowMs)
        let inside = Geohash.encode(center, precision: 7)
        let outside = Geohash.encode(try GeoPoint(lat: 40.50, lon: -79.9436), precision: 7)
        #expect(rejection(r.admit(f.post(by: bob, in: g), nowMs: f.nowMs)) == .missingLocation)
        #expect(rejection(r.admit(f.post(by: bob, in: g, location: outside), nowMs: f.nowMs)) == .outsideFence)
        #expect(r.admit(f.post(by: bob, in: g, location: inside), nowMs: f.nowMs).isAdmitted)
    }

    @Test mutating func expiredAndDeletedPacksAdmitNothingAndPurgeLeavesATombstone() {
        var r = Replica()
        let g = f.createPack(by: alice)
        _ = r.admit(g, nowMs: f.nowMs)
        let late = f.nowMs + 25 * Lifetime.hour
        #expect(rejection(r.admit(f.post(by: bob, in: g), nowMs: late)) == .packExpired)
        let purgeTime = f.nowMs + Lifetime.maxMs + Lifetime.purgeGraceMs
        #expect(
            r.purge(nowMs: purgeTime) == [
                Tombstone(
                    pack: g.id, reason: .expired,
                    expiresMs: g.hlc.physicalMs + Lifetime.maxMs + Lifetime.purgeGraceMs)
            ])
        #expect(r.count == 0)
        // A stale peer re-sending the genesis cannot bring it back, even with an early clock.
        #expect(rejection(r.admit(g, nowMs: f.nowMs)) == .packExpired)

        let h = f.createPack(by: alice)
        _ = r.admit(h, nowMs: f.nowMs)
        #expect(r.admit(f.op(.delete(Delete(target: h.id)), by: alice, in: h), nowMs: f.nowMs).isAdmitted)
        #expect(rejection(r.admit(f.post(by: bob, in: h), nowMs: f.nowMs)) == .packDeleted)
        #expect(r.packs(nowMs: f.nowMs).isEmpty)
    }
}
