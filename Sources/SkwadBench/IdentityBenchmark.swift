import Foundation
import SkwadCrypto
import SkwadModel
import SkwadReplica

/// `skwad bench identity`: what the floors of PROTOCOL §2 cost here, and what the cap on
/// packs from others (§4) lets through of a flood from one source.
struct IdentityBenchmark {
    let samples: Int, offered: Int
    /// Stamp bits of the flooding source's geneses. The cap does not depend on them, so the
    /// flood is minted cheaply and admitted by a replica whose genesis floor matches; its
    /// cost at the real floor is reported as `floodCostSeconds` (offered × genesis mean).
    static let floodBits: UInt32 = 4

    func mintMs(bits: UInt32) -> (mean: Double, median: Double) {
        var times: [Double] = []
        for _ in 0..<samples {
            let nonce = SecureRandom.bytes(16), author = SecureRandom.bytes(32)
            let t0 = DispatchTime.now().uptimeNanoseconds
            _ = ProofOfWork.mint(genesisNonce: nonce, author: author, bits: Int(bits))
            times.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
        }
        times.sort()
        return (times.reduce(0, +) / Double(times.count), times[times.count / 2])
    }

    func run() -> String {
        let genesis = mintMs(bits: PowFloor.genesisBits)
        let pseudonym = mintMs(bits: PowFloor.pseudonymBits)
        var replica = Replica(config: ReplicaConfig(genesisPowFloor: Self.floodBits))
        let source = MasterSecret.generate()
        let nowMs = UInt64(Date().timeIntervalSince1970 * 1000)
        var clock = HybridClock()
        var admitted = 0, capped = 0
        for i in 0..<offered {
            let nonce = SecureRandom.bytes(16)
            let key = source.pseudonym(genesisNonce: nonce)
            let stamp = ProofOfWork.mint(genesisNonce: nonce, author: key.publicKey.bytes, bits: Int(Self.floodBits))
            let body = OpBody(
                packID: nil, author: key.publicKey, hlc: clock.tick(physicalMs: nowMs), stamp: stamp,
                kind: .createPack(CreatePack(name: "flood\(i)", nonce: nonce)))
            guard let op = try? SignedOp.sign(body, with: key) else { continue }
            switch replica.admit(op, nowMs: nowMs) {
            case .admitted: admitted += 1
            case .rejected(.tooManyPacks, _): capped += 1
            default: break
            }
        }
        func r(_ x: Double) -> String { String(format: "%.1f", x) }
        return """
            {"bench":"identity","genesisBits":\(PowFloor.genesisBits),"genesisMsMean":\(r(genesis.mean)),\
            "genesisMsMedian":\(r(genesis.median)),\
            "pseudonymBits":\(PowFloor.pseudonymBits),"pseudonymMsMean":\(r(pseudonym.mean)),"pseudonymMsMedian":\(r(pseudonym.median)),\
            "samples":\(samples),"packsOffered":\(offered),"packsAdmitted":\(admitted),"packsRefusedByCap":\(capped),\
            "maxRemotePacks":\(ReplicaConfig.defaultMaxRemotePacks),"floodCostSeconds":\(r(Double(offered) * genesis.mean / 1000))}
            """
    }
}
