import SkwadCrypto
import SkwadModel

/// Whether a contact code's node proved the key the code names (`GossipEngine.contactCheck`).
public enum ContactCheck: Sendable, Equatable {
    /// A probe went out; no proof yet.
    case pending
    /// The node signed our session's binding with the key whose fingerprint the code carries.
    case proven(PublicKey)
    /// It answered with another key or a signature that does not verify: a wrong or forged code.
    case failed
}

/// Contact codes (PROTOCOL §9 "Contact codes"): our contact key and the proofs we give of it,
/// and the codes we are checking. A probe is answered only when its tag shows the code's
/// fingerprint over our session's binding: a stranger without the code learns nothing, and a
/// proof cannot be replayed on another session.
struct ContactProofs: Sendable {
    struct Check: Sendable {
        var fingerprint: [UInt8]
        /// The binding the probe was made on (a proof must sign it).
        var binding: [UInt8]
        var sentMs: UInt64
    }

    /// Our contact key (nil: we answer no probe, as in the simulator).
    var key: SigningKeyPair?
    var checks: [PeerAddress: Check] = [:]
    var results: [PeerAddress: (check: ContactCheck, atMs: UInt64)] = [:]
    var budget = TokenBucket(rate: proofsPerSecond, burst: proofsPerSecond, nowMs: 0)

    /// A peer given up on: a check of it under way and its result go (a proof holds for the
    /// session it was given on, and that session is gone). The proof budget is not per peer.
    mutating func forget(_ peer: PeerAddress) {
        checks[peer] = nil
        results[peer] = nil
    }

    /// A check of `peer` begins on the session whose binding is `binding`: returns its probe's
    /// tag. A full table loses its oldest check, and its oldest result.
    mutating func begin(_ peer: PeerAddress, fingerprint: [UInt8], binding: [UInt8], nowMs: UInt64) -> [UInt8] {
        checks.makeRoom(for: peer, capacity: Self.capacity) { $0.sentMs }
        checks[peer] = Check(fingerprint: fingerprint, binding: binding, sentMs: nowMs)
        results.makeRoom(for: peer, capacity: Self.capacity) { $0.atMs }
        results[peer] = (.pending, nowMs)
        return Self.tag(fingerprint: fingerprint, binding: binding)
    }

    /// A proof from `peer`, which must name the code's key and sign the binding of the session
    /// the probe went on or of `current`, the one now carrying it: the check is settled, proven
    /// (true) or failed (false); nil: no check of `peer` was under way.
    mutating func settle(_ peer: PeerAddress, key: [UInt8], signature: [UInt8], current: [UInt8]?, nowMs: UInt64) -> Bool? {
        guard let check = checks.removeValue(forKey: peer) else { return nil }
        let bindings = [check.binding] + (current.map { [$0] } ?? [])
        guard let pk = try? PublicKey(bytes: key), constantTimeEqual(ContactCode.fingerprint(of: pk), check.fingerprint),
            bindings.contains(where: { pk.verify(signature: signature, message: Self.signed($0)) })
        else {
            results[peer] = (.failed, nowMs)
            return false
        }
        results[peer] = (.proven(pk), nowMs)
        return true
    }

    static func tag(fingerprint: [UInt8], binding: [UInt8]) -> [UInt8] {
        Blake2b.hash256(Array("skwad/contact-probe/v1".utf8) + binding, key: fingerprint)
    }

    static func signed(_ binding: [UInt8]) -> [UInt8] { Array("skwad/contact-proof/v1".utf8) + binding }
}

extension GossipEngine {
    /// The key this node proves to whoever holds its contact code (the shell derives it from
    /// the master secret). Nil: probes go unanswered.
    public var contactKey: SigningKeyPair? {
        get { reach.contacts.key }
        set { reach.contacts.key = newValue }
    }

    /// Asks `peer` to prove the key whose fingerprint a contact code carries; its check is then
    /// `.pending` (`contactCheck`). Nothing is asked when there is no keyed session with it yet
    /// (the shell waits for one: `introduce` starts it) or the fingerprint is not one.
    public mutating func checkContact(_ peer: PeerAddress, fingerprint: [UInt8], nowMs: UInt64) -> [GossipDirective] {
        var out: [GossipDirective] = []
        guard let m = reach.checkContact(peer, fingerprint: fingerprint, binding: channels.binding(peer), nowMs: nowMs) else { return out }
        send(m, to: peer, nowMs: nowMs, into: &out)
        finish(nowMs: nowMs, into: &out)
        return out
    }

    /// What became of the last check of `peer` (nil: none asked, or forgotten).
    public func contactCheck(_ peer: PeerAddress) -> ContactCheck? { reach.contacts.results[peer]?.check }
}

extension Reach {
    /// A check of `peer` on the session whose binding is `binding`: the probe to send it.
    mutating func checkContact(_ peer: PeerAddress, fingerprint: [UInt8], binding: [UInt8]?, nowMs: UInt64) -> Message? {
        guard fingerprint.count == ContactCode.fingerprintCount, let binding else { return nil }
        let tag = contacts.begin(peer, fingerprint: fingerprint, binding: binding, nowMs: nowMs)
        return .contactProbe(tag: tag, padding: [UInt8](repeating: 0, count: ContactProofs.minPadding))
    }

    /// A probe on the session whose binding is `binding`: answered with our key and a
    /// signature over the binding when its tag is our fingerprint's, padded, and within the
    /// proof budget.
    mutating func contactProbe(
        tag: [UInt8], padding: Int, from: PeerAddress, binding: [UInt8]?, nowMs: UInt64, stats: inout GossipStats
    ) -> [ReachAction] {
        guard padding >= ContactProofs.minPadding else { stats.drop(.amplification); return [] }
        guard let key = contacts.key, let binding,
            constantTimeEqual(tag, ContactProofs.tag(fingerprint: ContactCode.fingerprint(of: key.publicKey), binding: binding))
        else { stats.drop(.contactRefused); return [] }
        guard contacts.budget.take(1, nowMs: nowMs) else { stats.drop(.contactLimited); return [] }
        stats.contactProofsSent += 1
        return [.send(.contactProof(publicKey: key.publicKey.bytes, signature: key.sign(ContactProofs.signed(binding))), to: from)]
    }

    /// A proof: only for a check under way with that address; it must name the code's key
    /// and sign the binding of the session the probe went on (or of `binding`, the one now
    /// carrying it).
    mutating func contactProof(
        key: [UInt8], signature: [UInt8], from: PeerAddress, binding: [UInt8]?, nowMs: UInt64, stats: inout GossipStats
    ) {
        switch contacts.settle(from, key: key, signature: signature, current: binding, nowMs: nowMs) {
        case nil: stats.drop(.contactUnasked)
        case false?: stats.contactsFailed += 1
        case true?: stats.contactsProven += 1
        }
    }
}

extension GossipEngine {
    /// Whether a session with `peer` is keyed (a contact check can be asked on it).
    public func isKeyed(with peer: PeerAddress) -> Bool { channels.isEstablished(peer) }
}
