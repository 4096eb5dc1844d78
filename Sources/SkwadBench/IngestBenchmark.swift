import Foundation
import SkwadCrypto
import SkwadModel
import SkwadReplica
import SkwadStore

/// `skwad bench ingest`: how close the whole ingest path (decode, verify, admit, commit to
/// SQLite) comes to the cost of Ed25519 verification alone, measured in the same run.
struct IngestBenchmark {
    let ops: Int, packs: Int, users: Int, batch: Int

    /// Pseudonym stamps in the bench packs: enough to exercise the check at admission.
    static let powBits: UInt32 = 8
    /// Envelopes verified in parallel while the chunk before is admitted (two-core figure).
    static let chunk = 250

    /// A realistic mix, signed before timing: 10 % posts, 30 % comments, 60 % votes, over
    /// `packs` packs (every other one geofenced and locked, so its ops carry a location
    /// claim that admission checks), from `users` users with stamped pseudonyms.
    func workload() -> [[UInt8]] {
        var rng = SystemRandomNumberGenerator()
        let masters = (0..<users).map { _ in MasterSecret.generate() }
        let base = UInt64(Date().timeIntervalSince1970 * 1000) - 3_600_000
        var hlc = HybridClock()
        var out: [[UInt8]] = []
        var geneses: [(op: SignedOp, nonce: [UInt8], claim: String?)] = []
        for i in 0..<packs {
            let nonce = SecureRandom.bytes(16)
            let key = masters[i % users].pseudonym(genesisNonce: nonce)
            let locked = i % 2 == 0
            let center = try! GeoPoint(lat: 40.44 + Double(i) * 0.01, lon: -79.94)
            let fence = locked ? Geofence(center: center, radiusMeters: 1_000) : nil
            let stamp = ProofOfWork.mint(genesisNonce: nonce, author: key.publicKey.bytes, bits: Int(Self.powBits))
            let create = CreatePack(name: "bench\(i)", tags: ["bench"], fence: fence, locked: locked, nonce: nonce, powBits: Self.powBits)
            let body = OpBody(packID: nil, author: key.publicKey, hlc: hlc.tick(physicalMs: base), stamp: stamp, kind: .createPack(create))
            let op = try! SignedOp.sign(body, with: key)
            geneses.append((op, nonce, locked ? Geohash.encode(center, precision: 7) : nil)); out.append(op.envelope.serialized())
        }
        var keys: [[(key: SigningKeyPair, stamp: UInt64)]] = geneses.map { g in
            masters.map { m in
                let k = m.pseudonym(genesisNonce: g.nonce)
                return (k, ProofOfWork.mint(genesisNonce: g.nonce, author: k.publicKey.bytes, bits: Int(Self.powBits)))
            }
        }
        var targets: [[OpID]] = Array(repeating: [], count: packs)
        var posts: [[OpID]] = Array(repeating: [], count: packs)
        while out.count < ops {
            let p = Int.random(in: 0..<packs, using: &rng), u = Int.random(in: 0..<users, using: &rng)
            let roll = Int.random(in: 0..<100, using: &rng)
            let kind: OpKind
            if roll < 10 || posts[p].isEmpty {
                kind = .post(Post(title: "Post \(out.count)", body: String(repeating: "words ", count: 20), tags: ["bench"]))
            } else if roll < 40 {
                kind = .comment(Comment(post: posts[p].randomElement(using: &rng)!, body: "a comment of modest length"))
            } else {
                kind = .vote(Vote(target: targets[p].randomElement(using: &rng)!, value: Bool.random(using: &rng) ? 1 : -1))
            }
            let (key, stamp) = keys[p][u]
            let body = OpBody(
                packID: geneses[p].op.id, author: key.publicKey, hlc: hlc.tick(physicalMs: base),
                location: geneses[p].claim, stamp: stamp, kind: kind)
            let op = try! SignedOp.sign(body, with: key)
            if case .post = kind { posts[p].append(op.id) }
            if case .vote = kind {} else { targets[p].append(op.id) }
            out.append(op.envelope.serialized())
        }
        keys.removeAll()
        return out
    }

    func seconds(_ body: () throws -> Void) rethrows -> Double {
        let t0 = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
    }

    func run(runs: Int) throws -> String {
        let envelopes = workload()
        let parsed = envelopes.map { try! Envelope(serialized: $0) }
        let triples = parsed.map { (key: try! OpBody(serialized: $0.body).author, sig: $0.signature, body: $0.body) }
        var raw: [Double] = [], ingest: [Double] = [], parallel: [Double] = []
        var ratio: [Double] = [], ratio2: [Double] = [], commitShare: [Double] = []
        var usVerify: [Double] = [], usOpen: [Double] = [], usIngest: [Double] = [], usCommit: [Double] = []
        let nowMs = UInt64(Date().timeIntervalSince1970 * 1000)
        for _ in 0..<runs {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-bench-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            let store = try Store(path: dir.appendingPathComponent("skwad.sqlite").path)
            let store2 = try Store(path: dir.appendingPathComponent("skwad2.sqlite").path)
            // Stamps at the bench's own 8 bits (minting thousands at the protocol floor would
            // only slow the set-up; admission checks one hash per pseudonym either way).
            let rules = ReplicaConfig(pseudonymPowFloor: Self.powBits, genesisPowFloor: Self.powBits, maxRemotePacks: .max)
            var replica = Replica(config: rules), replica2 = Replica(config: rules)
            var tRaw = 0.0, tOpen = 0.0, tIngest = 0.0, tPar = 0.0, tCommit = 0.0
            // The three measurements take turns batch by batch, so that load from other
            // processes weighs on all of them alike.
            for start in stride(from: 0, to: envelopes.count, by: batch) {
                let range = start..<min(envelopes.count, start + batch)

                // 1. Raw libsodium verification, one thread.
                var ok = 0
                tRaw += seconds { for t in triples[range] where t.key.verify(signature: t.sig, message: t.body) { ok += 1 } }
                precondition(ok == range.count)

                // 1b. Decode + hash + verify (`SignedOp.open`), without admission or commit.
                tOpen += seconds { for b in envelopes[range] where (try? SignedOp.open(b)) != nil { ok += 1 } }
                precondition(ok == 2 * range.count)

                // 2. The ingest path on one thread: receive (decode + verify + admit), then
                //    commit the batch in one transaction.
                var admitted: [SignedOp] = []
                admitted.reserveCapacity(range.count)
                tIngest += try seconds {
                    for bytes in envelopes[range] {
                        if case .admitted(let ops) = replica.receive(bytes, nowMs: nowMs) { admitted += ops }
                    }
                    tCommit += try seconds { try store.append(admitted) }
                }

                // 3. Both cores: decoding and verification of the next chunk fanned out over
                //    all cores while this thread admits the chunk before; one commit per batch.
                tPar += try seconds {
                    let chunks = stride(from: range.lowerBound, to: range.upperBound, by: Self.chunk).map {
                        Array(envelopes[$0..<min(range.upperBound, $0 + Self.chunk)])
                    }
                    var admitted2: [SignedOp] = []
                    var verified = ParallelVerify.open(chunks[0])
                    for k in chunks.indices {
                        let next = ResultBox()
                        let done = DispatchGroup()
                        if k + 1 < chunks.count {
                            let chunk = chunks[k + 1]
                            DispatchQueue.global().async(group: done) { next.ops = ParallelVerify.open(chunk) }
                        }
                        for op in verified { if let op, case .admitted(let a) = replica2.admit(op, nowMs: nowMs) { admitted2 += a } }
                        done.wait()
                        verified = next.ops
                    }
                    try store2.append(admitted2)
                }
            }
            precondition(replica.count == envelopes.count && replica2.count == envelopes.count, "bench ops were not all admitted")
            let committed = try store.opCount()
            precondition(committed == envelopes.count, "bench ops were not all committed")
            let n = Double(envelopes.count)
            raw.append(n / tRaw); ingest.append(n / tIngest); parallel.append(n / tPar)
            usVerify.append(tRaw / n * 1e6); usOpen.append(tOpen / n * 1e6)
            usIngest.append(tIngest / n * 1e6); usCommit.append(tCommit / n * 1e6)
            ratio.append(tRaw / tIngest); ratio2.append(tRaw / tPar); commitShare.append(tCommit / tIngest)
        }
        func median(_ xs: [Double]) -> Double { let s = xs.sorted(); return s[s.count / 2] }
        func f3(_ x: Double) -> String { String(format: "%.3f", x) }
        func f1(_ x: Double) -> String { String(format: "%.1f", x) }
        return """
            {"bench":"ingest","ops":\(envelopes.count),"runs":\(runs),"batch":\(batch),\
            "raw_verify_per_s":\(Int(median(raw))),"ingest_per_s":\(Int(median(ingest))),"ratio":\(f3(median(ratio))),\
            "ingest_two_cores_per_s":\(Int(median(parallel))),"ratio_two_cores":\(f3(median(ratio2))),\
            "commit_share":\(f3(median(commitShare))),\
            "us_per_op":{"verify":\(f1(median(usVerify))),"open":\(f1(median(usOpen))),\
            "ingest":\(f1(median(usIngest))),"commit":\(f1(median(usCommit)))},\
            "cores":\(ProcessInfo.processInfo.activeProcessorCount)}
            """
    }
}

/// Verified ops handed from a worker thread to the admitting thread (after `DispatchGroup.wait`).
final class ResultBox: @unchecked Sendable {
    var ops: [SignedOp?] = []
}

/// Opens envelopes (decode + verify) on all cores, keeping their order.
enum ParallelVerify {
    static func open(_ envelopes: [[UInt8]]) -> [SignedOp?] {
        let out = UnsafeMutableBufferPointer<SignedOp?>.allocate(capacity: envelopes.count)
        out.initialize(repeating: nil)
        defer { out.deallocate() }
        let workers = max(1, ProcessInfo.processInfo.activeProcessorCount)
        let chunk = (envelopes.count + workers - 1) / workers
        nonisolated(unsafe) let sink = out
        DispatchQueue.concurrentPerform(iterations: workers) { w in
            let lo = w * chunk, hi = min(envelopes.count, lo + chunk)
            guard lo < hi else { return }
            for i in lo..<hi { sink[i] = try? SignedOp.open(envelopes[i]) }
        }
        return Array(out)
    }
}
