import Foundation
import SkwadCrypto
import SkwadModel
import SkwadReplica
import SkwadStore

/// `skwad bench ingest`: how close the whole ingest path (decode, verify, admit, commit to
/// SQLite) comes to the cost of Ed25519 verification alone, measured in the same run.
struct IngestBenchmark {
    let ops: Int, packs: Int, users: Int, batch: Int

    /// A realistic mix, signed before timing: 10 % posts, 30 % comments, 60 % votes.
    func workload() -> [[UInt8]] {
        var rng = SystemRandomNumberGenerator()
        let masters = (0..<users).map { _ in MasterSecret.generate() }
        let base = UInt64(Date().timeIntervalSince1970 * 1000) - 3_600_000
        var hlc = HybridClock()
        var out: [[UInt8]] = []
        var geneses: [(op: SignedOp, nonce: [UInt8])] = []
        for i in 0..<packs {
            let nonce = SecureRandom.bytes(16)
            let key = masters[i % users].pseudonym(genesisNonce: nonce)
            let body = OpBody(packID: nil, author: key.publicKey, hlc: hlc.tick(physicalMs: base), kind: .createPack(CreatePack(name: "bench\(i)", nonce: nonce)))
            let op = try! SignedOp.sign(body, with: key)
            geneses.append((op, nonce)); out.append(op.envelope.serialized())
        }
        var keys: [[SigningKeyPair]] = geneses.map { g in masters.map { $0.pseudonym(genesisNonce: g.nonce) } }
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
            let key = keys[p][u]
            let body = OpBody(packID: geneses[p].op.id, author: key.publicKey, hlc: hlc.tick(physicalMs: base), kind: kind)
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
        let nowMs = UInt64(Date().timeIntervalSince1970 * 1000)
        for _ in 0..<runs {
            // 1. Raw libsodium verification, one thread.
            var ok = 0
            let tRaw = seconds { for t in triples where t.key.verify(signature: t.sig, message: t.body) { ok += 1 } }
            precondition(ok == triples.count)
            raw.append(Double(triples.count) / tRaw)

            // 2. The ingest path on one thread: receive (decode + verify + admit), commit in batches.
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-bench-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            let store = try Store(path: dir.appendingPathComponent("skwad.sqlite").path)
            var replica = Replica()
            let tIngest = try seconds {
                var pending: [SignedOp] = []
                pending.reserveCapacity(batch)
                for bytes in envelopes {
                    if case .admitted(let admitted) = replica.receive(bytes, nowMs: nowMs) { pending += admitted }
                    if pending.count >= batch { try store.append(pending); pending.removeAll(keepingCapacity: true) }
                }
                try store.append(pending)
            }
            precondition(replica.count == envelopes.count, "bench ops were not all admitted")
            ingest.append(Double(envelopes.count) / tIngest)

            // 3. Both cores: verification fanned out, admission and commits in order.
            let store2 = try Store(path: dir.appendingPathComponent("skwad2.sqlite").path)
            var replica2 = Replica()
            let tPar = try seconds {
                for start in stride(from: 0, to: envelopes.count, by: batch) {
                    let slice = Array(envelopes[start..<min(envelopes.count, start + batch)])
                    let verified = ParallelVerify.open(slice)
                    var admitted: [SignedOp] = []
                    for op in verified { if let op, case .admitted(let a) = replica2.admit(op, nowMs: nowMs) { admitted += a } }
                    try store2.append(admitted)
                }
            }
            precondition(replica2.count == envelopes.count)
            parallel.append(Double(envelopes.count) / tPar)
        }
        func median(_ xs: [Double]) -> Double { let s = xs.sorted(); return s[s.count / 2] }
        let r = median(raw), i = median(ingest), p = median(parallel)
        return """
            {"bench":"ingest","ops":\(envelopes.count),"runs":\(runs),"batch":\(batch),\
            "raw_verify_per_s":\(Int(r)),"ingest_per_s":\(Int(i)),"ratio":\(String(format: "%.3f", i / r)),\
            "ingest_two_cores_per_s":\(Int(p)),"ratio_two_cores":\(String(format: "%.3f", p / r)),\
            "cores":\(ProcessInfo.processInfo.activeProcessorCount)}
            """
    }
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
