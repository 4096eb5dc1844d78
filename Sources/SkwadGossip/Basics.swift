import SkwadModel

/// Where a datagram comes from or goes to. Opaque to the engine: a canonical "HOST:PORT"
/// IP literal for UDP (Address.swift), any unique string in the simulator.
public struct PeerAddress: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let value: String
    /// The string's (seeded, SipHash) hash, computed once. Addresses key every table the
    /// engine keeps, several lookups per datagram, so the string is not hashed on each.
    /// Tables then mix this with their own seed.
    private let hash: Int
    public init(_ value: String) { self.value = value; hash = value.hashValue }
    public var description: String { value }
    public static func < (a: PeerAddress, b: PeerAddress) -> Bool { a.value < b.value }
    public static func == (a: PeerAddress, b: PeerAddress) -> Bool { a.hash == b.hash && a.value == b.value }
    public func hash(into hasher: inout Hasher) { hasher.combine(hash) }
    /// What `Set` and `Dictionary` use: the cached hash mixed with the table's seed
    /// (a multiply-xorshift finaliser, after SplitMix64), without running SipHash again.
    /// The cached hash is itself seeded per process, so a peer that picks addresses still
    /// cannot aim them at one bucket.
    public func _rawHashValue(seed: Int) -> Int {
        var z = UInt64(bitPattern: Int64(hash ^ seed)) &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int(bitPattern: UInt(z ^ (z >> 31)))
    }
}

/// What the engine asks its shell to do. The engine itself does no I/O.
public enum GossipDirective: Sendable, Equatable {
    /// Send these bytes as one datagram.
    case send([UInt8], to: PeerAddress)
    /// The engine admitted this op into the replica (the shell persists it; a REPL shows it).
    case admitted(SignedOp)
    /// Call `tick` no later than this many milliseconds from now. The shell keeps one timer:
    /// a request due sooner than the pending one replaces it; a later one is ignored.
    case scheduleTick(afterMs: UInt64)
    case peerUp(PeerAddress)
    case peerDown(PeerAddress)
    /// A peer wants these blocks of a picture (PROTOCOL §10b): the shell answers with
    /// `answerBlocks` for the blocks it holds, naming the picture's pack.
    case blocksWanted(root: [UInt8], indexes: [Int], peer: PeerAddress)
    /// A block of a picture being fetched, checked against its manifest: the shell keeps it.
    case blockReceived(root: [UInt8], pack: PackID, index: Int, data: [UInt8])
    /// Every block of a picture is here.
    case pictureComplete(root: [UInt8], pack: PackID)
}

/// SplitMix64: the engine's injected random source (seeded from secure randomness by a
/// real node, from the scenario seed by the simulator).
public struct SplitMix: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    public mutating func bytes(_ n: Int) -> [UInt8] {
        var out: [UInt8] = []; out.reserveCapacity(n)
        while out.count < n { var x = next(); for _ in 0..<8 where out.count < n { out.append(UInt8(truncatingIfNeeded: x)); x >>= 8 } }
        return out
    }
}

/// Every drop, with its reason; every byte in and out.
public struct GossipStats: Sendable, Equatable {
    public var datagramsIn = 0, datagramsOut = 0, bytesIn = 0, bytesOut = 0
    public var opsAdmitted = 0, opsDuplicate = 0, opsSent = 0
    public var drops: [String: Int] = [:]
    public var opsRejected: [String: Int] = [:]
    public var handshakes = 0, reconciliations = 0, reconBytesOut = 0, directoryRounds = 0, candidates = 0, evictions = 0, stemmed = 0,
        fluffed = 0, failsafes = 0
    /// Settled answers not sent for an invite-only pack with an op under our embargo (§3b).
    public var settledWithheld = 0
    /// Session layer (§8): COOKIE frames sent, handshakes admitted by a cookie, pending
    /// sessions that took over, unproven sessions expired, established sessions dropped as
    /// silent (no answer for 5 s to a message that always gets one), table evictions.
    public var cookiesSent = 0, cookieHandshakes = 0, sessionsReplaced = 0, sessionsExpired = 0, sessionsSilent = 0
    public var sessionEvictions = 0, limitEvictions = 0
    /// Introductions (§9): sent (two per pair), heard from members, punches they caused.
    public var introductionsSent = 0, introductionsHeard = 0, punches = 0
    /// `Join`s sent by `introduce`: to an address the shell named, or a punch (§9).
    public var joinsIntroduced = 0
    /// Pairs introduced for a shared fence (no shared pack).
    public var fenceIntroductions = 0
    /// Relays (§9): punches that fell back on a relay, frames we sent through one, bytes we
    /// passed on for members.
    public var relayFallbacks = 0, relayFramesOut = 0, relayedBytes = 0
    /// Direct links first (§9): direct handshakes tried from relayed links, relayed links
    /// retired for a direct one.
    public var directRetries = 0, relayedToDirect = 0
    /// Contact codes (§9): proofs of our key we gave, codes we checked and found proven or false.
    public var contactProofsSent = 0, contactsProven = 0, contactsFailed = 0
    /// Messages sent, by kind (before encryption; a queued message counts when queued):
    /// the kinds sent at least once.
    public var messagesSent: [String: Int] { byKind(sentByKind) }
    /// Plaintext bytes of those messages, by kind (frame, AEAD and IP headers not included).
    public var bytesSent: [String: Int] { byKind(sentBytesByKind) }
    /// Both, counted by `MessageKind` in arrays (no string-keyed dictionary update per
    /// message sent).
    private var sentByKind = [Int](repeating: 0, count: MessageKind.allCases.count)
    private var sentBytesByKind = [Int](repeating: 0, count: MessageKind.allCases.count)

    mutating func countSent(_ kind: MessageKind, bytes: Int) {
        sentByKind[kind.rawValue] += 1
        sentBytesByKind[kind.rawValue] += bytes
    }

    private func byKind(_ counts: [Int]) -> [String: Int] {
        var out: [String: Int] = [:]
        for k in MessageKind.allCases where sentByKind[k.rawValue] > 0 { out[k.name] = counts[k.rawValue] }
        return out
    }

    mutating func drop(_ reason: DropReason) { drops[reason.rawValue, default: 0] += 1 }

    /// Flattened for `stats`.
    public var pairs: [(String, Int)] {
        var out: [(String, Int)] = [
            ("datagrams.in", datagramsIn), ("datagrams.out", datagramsOut), ("bytes.in", bytesIn),
            ("bytes.out", bytesOut), ("ops.admitted", opsAdmitted), ("ops.duplicate", opsDuplicate),
            ("ops.sent", opsSent), ("handshakes", handshakes), ("reconciliations", reconciliations), ("directory_rounds", directoryRounds),
            ("membership.candidates", candidates), ("membership.evictions", evictions), ("stem.sent", stemmed), ("stem.fluffed", fluffed),
            ("stem.failsafes", failsafes), ("stem.settled_withheld", settledWithheld),
            ("recon.bytes_out", reconBytesOut), ("cookies.sent", cookiesSent),
            ("cookies.handshakes", cookieHandshakes), ("sessions.replaced", sessionsReplaced),
            ("sessions.expired", sessionsExpired), ("sessions.silent", sessionsSilent), ("sessions.evicted", sessionEvictions),
            ("limits.evicted", limitEvictions), ("reach.introductions_sent", introductionsSent),
            ("reach.introductions_heard", introductionsHeard), ("reach.punches", punches),
            ("reach.joins_introduced", joinsIntroduced),
            ("reach.fence_introductions", fenceIntroductions), ("reach.relay_fallbacks", relayFallbacks),
            ("reach.relay_frames_out", relayFramesOut), ("reach.relayed_bytes", relayedBytes), ("reach.direct_retries", directRetries),
            ("reach.relayed_to_direct", relayedToDirect),
            ("contact.proofs_sent", contactProofsSent), ("contact.proven", contactsProven), ("contact.failed", contactsFailed)
        ]
        out += messagesSent.sorted { $0.key < $1.key }.map { ("sent.\($0.key)", $0.value) }
        out += bytesSent.sorted { $0.key < $1.key }.map { ("sent_bytes.\($0.key)", $0.value) }
        out += drops.sorted { $0.key < $1.key }.map { ("drop.\($0.key)", $0.value) }
        out += opsRejected.sorted { $0.key < $1.key }.map { ("reject.\($0.key)", $0.value) }
        return out
    }
}

public enum DropReason: String, Sendable {
    case malformedFrame, badVersion, noSession, decryptFailed, replay, tooLarge
    case rateLimited, amplification, queueFull, malformedMessage, pseudonymRateLimited, unreachable
    case badAddress, sessionTableFull
    /// A canonical address that names no unicast host (broadcast, multicast, unspecified, ...:
    /// `PeerAddress.isUnicastHost`), refused wherever a peer names it (PROTOCOL §8).
    case notUnicast
    /// Membership abuse (PROTOCOL §9): a Join over the limits, a walk or origin from a non-member,
    /// a PingReq about a non-member, an introduction over the budget.
    case joinLimited, notAMember, introductionLimited
    /// More new packs from one address than `genesesPerSecond` allows (PROTOCOL §13).
    case genesisRateLimited
    /// A network group past its budget of vicinity answers or targets (PROTOCOL §9, "Need to know").
    case vicinityLimited
    /// A relay request we do not serve (not between two members, or we are behind a NAT), or
    /// past the relay's byte budget (PROTOCOL §9, "Relays").
    case relayRefused, relayLimited
    /// A contact probe whose tag does not match our key or that came without a session, over
    /// the proof budget, or a proof nobody asked for (PROTOCOL §9, "Contact codes").
    case contactRefused, contactLimited, contactUnasked
    /// A bundle inside a bundle, or one of more than `Bundle.maxMessages` (PROTOCOL §8
    /// "Bundles"): the whole datagram is dropped, none of its messages handled.
    case nestedBundle, bundleOverCap
}

extension Dictionary where Key: Comparable {
    /// Bounded tables (PROTOCOL §9, §13): makes room for `key` in a table of at most
    /// `capacity` entries. When `key` is new and the table is full, the entry with the
    /// smallest `age` goes (ties: the smallest key, so that runs are deterministic).
    public mutating func makeRoom(for key: Key, capacity: Int, age: (Value) -> UInt64) {
        guard self[key] == nil, count >= capacity,
            let oldest = self.min(by: { a, b in (age(a.value), a.key) < (age(b.value), b.key) })
        else { return }
        self[oldest.key] = nil
    }
}
