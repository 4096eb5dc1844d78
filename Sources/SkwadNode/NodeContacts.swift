import SkwadCrypto
import SkwadGossip
import SkwadModel
import SkwadReplica

/// Contact codes (PROTOCOL §9 "Contact codes"): `invite` gives this node's, `connect` links to
/// the node a code names and checks that it holds the key the code's fingerprint names.
extension Node {
    /// What `connect` did: where it linked, the key it checked, the pack it joined.
    public struct Connected: Sendable {
        public let address: String
        public let fingerprint: String
        public let pack: PackSummary?
    }

    /// The key this node proves to holders of its contact code: derived from the master
    /// secret, so a code stays good across restarts and on a second device with the identity.
    var contactKey: SigningKeyPair { try! SigningKeyPair(seed: master.subkey("contact")) }

    /// This node's contact code: the addresses others can use (`whoami`'s), the fingerprint of
    /// its contact key, and `pack`'s id when given (a public pack; an invite-only pack has a
    /// join code, `invite(_:)`).
    public func contactCode(pack ref: String? = nil) throws -> String {
        guard network != nil else { throw NodeError("go online first: a contact code carries the addresses this node listens on") }
        let addresses = reachableAddresses.filter { !$0.hasPrefix("0.0.0.0:") }
        guard !addresses.isEmpty else { throw NodeError("no address others can reach this node at (no network interface is up)") }
        var prefix: [UInt8]?
        if let ref {
            let p = try resolvePack(ref)
            if replica.pack(p.id)?.isPrivate == true {
                throw NodeError("pack '\(p.name)' is invite-only: its join code is `invite \(p.name)`")
            }
            prefix = Array(p.id.bytes.prefix(8))
        }
        return ContactCode(fingerprint: ContactCode.fingerprint(of: contactKey.publicKey), addresses: addresses, packPrefix: prefix)
            .encoded()
    }

    /// Links to the node a contact code names: each of its addresses in turn gets a handshake
    /// (at most `waitMs` in all), then a probe; the node must prove the code's key on that very
    /// session. Then joins the code's pack, if any.
    public func connect(_ code: String, waitMs: UInt64 = 5000) async throws -> Connected {
        let c: ContactCode
        do { c = try ContactCode(parsing: code) } catch { throw NodeError("\(error)") }
        guard network != nil else { throw NodeError("go online first: connecting links this node to another") }
        let mine = Set(reachableAddresses + [listenAddress ?? ""])
        let targets = c.addresses.filter { !mine.contains($0) }
        guard !targets.isEmpty else { throw NodeError("that is this node's own contact code") }
        let perAddress = max(1000, waitMs / UInt64(targets.count))
        var answered: [String] = [], forged = false, refused: [Error] = []
        for text in targets {
            let addr: PeerAddress
            do { addr = try peerAddress(text) } catch {
                refused.append(error)
                continue
            }
            switch await prove(addr, fingerprint: c.fingerprint, waitMs: perAddress) {
            case .proven:
                var pack: PackSummary?
                if let prefix = c.packPrefix { pack = try await join(Hex.encode(prefix)) }
                return Connected(address: addr.value, fingerprint: Hex.encode(c.fingerprint), pack: pack)
            case .failed: forged = true; answered.append(text)
            case .unproven: answered.append(text)
            case .noSession: continue
            }
        }
        if refused.count == targets.count, let first = refused.first { throw first }
        if forged { throw NodeError("the node at \(answered.joined(separator: ", ")) proved another key: a wrong or forged code") }
        if !answered.isEmpty {
            throw NodeError(
                "the node at \(answered.joined(separator: ", ")) did not prove the code's key: a wrong, forged or mistyped code")
        }
        throw NodeError(
            "no answer from \(targets.joined(separator: ", ")) within \(waitMs / 1000) s: is that node online and on a network you reach?")
    }

    /// Links to a bare "host:port" (no key to check): a handshake, awaited at most `waitMs`.
    /// Returns the address linked.
    public func link(_ text: String, waitMs: UInt64 = 5000) async throws -> String {
        guard network != nil else { throw NodeError("go online first: connecting links this node to another") }
        let addr = try peerAddress(text)
        guard addr.value != listenAddress, !reachableAddresses.contains(addr.value) else {
            throw NodeError("that is this node's own address")
        }
        carryOut(network?.engine.introduce(addr, nowMs: now()) ?? [])
        for _ in 0..<max(1, waitMs / 10) {
            if network?.engine.isKeyed(with: addr) == true { return addr.value }
            try? await Task.sleep(nanoseconds: 10_000_000)
        }
        throw NodeError("no answer from \(addr.value) within \(waitMs / 1000) s: is a node listening there?")
    }

    private enum Proof { case proven, failed, unproven, noSession }

    /// Handshake with `addr`, then its proof (polled every 10 ms, at most `waitMs`).
    private func prove(_ addr: PeerAddress, fingerprint: [UInt8], waitMs: UInt64) async -> Proof {
        carryOut(network?.engine.introduce(addr, nowMs: now()) ?? [])
        var asked = false
        for _ in 0..<max(1, waitMs / 10) {
            guard let engine = network?.engine else { return .noSession }
            if !asked, engine.isKeyed(with: addr) {
                carryOut(network!.engine.checkContact(addr, fingerprint: fingerprint, nowMs: now()))
                asked = network?.engine.contactCheck(addr) == .pending
            }
            switch network?.engine.contactCheck(addr) {
            case .proven? where asked: return .proven
            case .failed? where asked: return .failed
            default: break
            }
            try? await Task.sleep(nanoseconds: 10_000_000)
        }
        return asked ? .unproven : .noSession
    }
}

extension Node {
    /// Whether `ref` names an invite-only pack held here (its invitation is a join code).
    public func isInviteOnly(_ ref: String) throws -> Bool { replica.pack(try resolvePack(ref).id)?.isPrivate == true }
}
