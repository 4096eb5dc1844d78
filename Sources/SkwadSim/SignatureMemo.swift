import Foundation
import SkwadModel

/// Memoized `SignedOp.open`: signature checks are pure, so once an envelope verified, the
/// same envelope (same op id, same signature bytes) verifies again without Ed25519. Shared by
/// every simulated node and every strategy of a run. The first check of each op is real.
/// Usable as SkwadGossip's `GossipEngine.opener`.
public final class SignatureMemo: @unchecked Sendable {
    private let lock = NSLock()
    private var verified: [OpID: SignedOp] = [:]
    /// Ids counted so far (`count`).
    private var counted: Set<OpID> = []
    private var realChecks = 0
    private var memoHits = 0

    public init() {}

    /// Decodes and verifies `bytes`, or returns the memoized result for the same envelope.
    public func open(_ bytes: [UInt8]) throws -> SignedOp {
        let env = try Envelope(serialized: bytes)
        return try open(env, id: OpID.of(body: env.body))
    }

    /// The same for an envelope already decoded, with its id (`OpID.of(body: env.body)`):
    /// the engine's `opener`, which has both, so nothing is decoded or hashed again.
    public func open(_ env: Envelope, id: OpID) throws -> SignedOp {
        let op = try check(env, id: id)
        count(id)
        return op
    }

    /// `check` of an envelope's bytes.
    func check(_ bytes: [UInt8]) throws -> SignedOp {
        let env = try Envelope(serialized: bytes)
        return try check(env, id: OpID.of(body: env.body))
    }

    /// The same without counting: the simulator's parallel window checks in any order and
    /// counts (`count`) in the order of the sequential run.
    func check(_ env: Envelope, id: OpID) throws -> SignedOp {
        lock.lock()
        if let op = verified[id], op.envelope.signature == env.signature {
            lock.unlock()
            return op
        }
        lock.unlock()
        let op = try SignedOp.open(env)
        lock.lock()
        verified[id] = op
        lock.unlock()
        return op
    }

    /// Counts one check of `id` that passed: the first of each id is the real one, whatever
    /// the order of concurrent callers (so the counts do not depend on it).
    func count(_ id: OpID) {
        lock.lock()
        if counted.insert(id).inserted { realChecks += 1 } else { memoHits += 1 }
        lock.unlock()
    }

    /// Ed25519 verifications actually performed, and checks answered from the memo.
    public var counts: (real: Int, memoized: Int) {
        lock.lock(); defer { lock.unlock() }
        return (realChecks, memoHits)
    }
}
