import Foundation
import SkwadCrypto
import SkwadModel
import SkwadReplica

/// `skwad bench places`: one pack holding `places` places and `reviews` reviews (each reviewer
/// writes 5, under the daily cap), admitted into a replica; then the time to compute every
/// place's summary (`Replica.places`, which resolves every rule of PROTOCOL §5 "Places" from the
/// ops) and one place's page (`Replica.place`). Goal (issue 27): ≤ 50 ms for 10,000 over 1,000.
struct PlaceBenchmark {
    let places: Int, reviews: Int, runs: Int
    static let goalMs = 50.0

    /// Ops signed as a node signs them, stamped with 0 bits (the replica runs without floors:
    /// what is measured is the views, not the stamps).
    struct Author {
        let key: SigningKeyPair
        let stamp: UInt64
        init(_ nonce: [UInt8]) {
            key = MasterSecret.generate().pseudonym(genesisNonce: nonce)
            stamp = ProofOfWork.mint(genesisNonce: nonce, author: key.publicKey.bytes, bits: 0)
        }
    }

    func run() -> String {
        var clock = HybridClock(), ms = UInt64(Date().timeIntervalSince1970 * 1000) - 3_600_000
        let nonce = SecureRandom.bytes(16)
        let alpha = Author(nonce)
        func sign(_ kind: OpKind, by a: Author, pack: PackID?) -> SignedOp {
            ms += 1
            let body = OpBody(packID: pack, author: a.key.publicKey, hlc: clock.tick(physicalMs: ms), stamp: a.stamp, kind: kind)
            return try! SignedOp.sign(body, with: a.key)
        }
        let g = sign(.createPack(CreatePack(name: "bench", nonce: nonce)), by: alpha, pack: nil)
        var ops = [g]
        let placeIDs: [OpID] = (0..<places).map { i in
            let record = Place(address: "\(i) Bench St", rentMin: UInt32(400 + i % 900), beds: UInt32(1 + i % 4))
            let p = sign(.place(record), by: alpha, pack: g.id)
            ops.append(p)
            return p.id
        }
        var reviewer = Author(nonce)
        for i in 0..<reviews {
            if i % 5 == 0 { reviewer = Author(nonce) }
            let r = Review(
                place: placeIDs[(i * 7919) % places], overallHalf: UInt32(i % 11), location: UInt32(1 + i % 5),
                management: UInt32(1 + (i / 3) % 5), amenities: UInt32(1 + (i / 7) % 5), again: i % 3 != 0, text: "review \(i)")
            ops.append(sign(.review(r), by: reviewer, pack: g.id))
        }
        let nowMs = ms + 1
        var replica = Replica(config: ReplicaConfig(pseudonymPowFloor: 0, genesisPowFloor: 0))
        let t0 = DispatchTime.now().uptimeNanoseconds
        var admitted = 0
        for op in ops where replica.admit(op, nowMs: nowMs).isAdmitted { admitted += 1 }
        let admitMs = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6
        var all: [Double] = [], one: [Double] = []
        var counted = 0
        for _ in 0..<runs {
            let a = DispatchTime.now().uptimeNanoseconds
            let views = replica.places(nowMs: nowMs)
            let b = DispatchTime.now().uptimeNanoseconds
            _ = replica.place(placeIDs[0], nowMs: nowMs)
            let c = DispatchTime.now().uptimeNanoseconds
            all.append(Double(b - a) / 1e6); one.append(Double(c - b) / 1e6)
            counted = views.reduce(0) { $0 + $1.summary.count }
        }
        all.sort(); one.sort()
        let o: [String: Any] = [
            "bench": "places", "places": places, "reviews": reviews, "runs": runs, "opsAdmitted": admitted,
            "reviewsCounted": counted, "admitMs": (admitMs * 100).rounded() / 100,
            "summariseAllMs": ["median": (all[all.count / 2] * 100).rounded() / 100, "max": (all.last! * 100).rounded() / 100],
            "onePlaceMs": ["median": (one[one.count / 2] * 100).rounded() / 100, "max": (one.last! * 100).rounded() / 100],
            "goalMs": Self.goalMs, "withinGoal": all[all.count / 2] <= Self.goalMs
        ]
        guard let d = try? JSONSerialization.data(withJSONObject: o, options: [.sortedKeys]) else { return "{}" }
        return String(decoding: d, as: UTF8.self)
    }
}
