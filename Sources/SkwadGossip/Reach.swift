import SkwadModel
import SkwadReplica

/// Reach across NATs (PROTOCOL §9): what our links see us as, the introductions we made and
/// the punches we tried, what we relay, contact codes, and our own addresses (set by the shell).
///
/// Its inputs (in the files named below, each an `extension Reach`) read the engine only
/// through what they are handed (the peer table, the shell's address filter, a session's
/// binding) and count into the engine's `GossipStats`; each returns the `ReachAction`s the
/// engine carries out, in order (a relayed frame: the address it is received from). A send
/// cannot change what the part decides next within the same input (the session layer only
/// emits on a send), so the engine's sends after the input are the sends it made during it.
struct Reach: Sendable {
    /// What our links say they see us as (Reflexive.swift).
    var reflexive = ReflexiveAddresses()
    /// Pairs we introduced, addresses we punched toward (Introductions.swift).
    var introductions = IntroductionState()
    /// Bytes we relay for members (Relay.swift).
    var relay = RelayState()
    /// Direct tries of our relayed links (DirectPreference.swift).
    var retries = DirectRetries()
    /// Our contact key, the proofs we give, the codes we check (Contacts.swift).
    var contacts = ContactProofs()
    /// Each interface's address with our port; nil: never behind a NAT (the simulator).
    var localAddresses: [PeerAddress]?
}

extension Reach: PeerState {
    /// What it told us it sees us as, our direct tries toward it, fallbacks through it, and
    /// contact checks of it go (each part says what it keeps).
    mutating func forget(_ peer: PeerAddress) {
        reflexive.forget(peer)
        introductions.forget(peer)
        retries.schedules[peer] = nil
        contacts.forget(peer)
    }
}

extension Reach: TimedPart {
    /// The soonest direct try of a relayed member.
    func nextDeadlineMs(nowMs: UInt64) -> UInt64 { retries.nextDueMs }
}

/// What the reach part asks of the engine, in order.
enum ReachAction {
    /// A message to a peer, sealed and sent by the engine.
    case send(Message, to: PeerAddress)
    /// A `Join` with our current info (a direct try, a fallback through a relay).
    case join(PeerAddress)
    /// A punch toward an introduced address: a `Join` within the budget for addresses learnt
    /// from others (`GossipEngine.introduce`), counted in `punches` when it goes.
    case punch(PeerAddress)
    /// Most of our links now see us behind a NAT (true) or not: our info changes, and our
    /// proven links are told (`Interest`).
    case behindNat(Bool)
}

extension GossipEngine {
    /// The reach part's due work at a tick (`EnginePart.reach`).
    mutating func retryDirect(nowMs: UInt64, into out: inout [GossipDirective]) {
        carry(reach.retryDirect(nowMs: nowMs, peers: peers, stats: &stats), nowMs: nowMs, into: &out)
    }

    mutating func onObserved(_ observed: PeerAddress, from: PeerAddress, nowMs: UInt64, into out: inout [GossipDirective]) {
        let acts = reach.observed(
            observed, from: from, nowMs: nowMs, peers: peers, accept: channels.addressFilter, behindNat: info.behindNat, stats: &stats)
        carry(acts, nowMs: nowMs, into: &out)
    }

    mutating func introduceSharers(of peer: PeerAddress, nowMs: UInt64, into out: inout [GossipDirective]) {
        carry(reach.introduceSharers(of: peer, nowMs: nowMs, peers: peers, stats: &stats), nowMs: nowMs, into: &out)
    }

    mutating func onIntroduce(_ target: PeerAddress, padding: Int, from: PeerAddress, nowMs: UInt64, into out: inout [GossipDirective]) {
        let acts = reach.introduced(
            target, padding: padding, from: from, nowMs: nowMs, peers: peers, accept: channels.addressFilter,
            established: channels.isEstablished(target), stats: &stats)
        carry(acts, nowMs: nowMs, into: &out)
    }

    mutating func onRelay(to target: PeerAddress, frame: [UInt8], from: PeerAddress, nowMs: UInt64, into out: inout [GossipDirective]) {
        let acts = reach.passOn(to: target, frame: frame, from: from, nowMs: nowMs, peers: peers, behindNat: info.behindNat, stats: &stats)
        carry(acts, nowMs: nowMs, into: &out)
    }

    mutating func onRelayed(
        from source: PeerAddress, frame: [UInt8], relayedBy: PeerAddress, nowMs: UInt64, replica: inout Replica,
        into out: inout [GossipDirective]
    ) {
        guard let relayed = reach.relayed(from: source, relayedBy: relayedBy, peers: peers, stats: &stats) else { return }
        receive(frame, from: relayed, nowMs: nowMs, replica: &replica, into: &out)
    }

    /// A punch toward `peer` was never answered: reach it through `via` (Relay.swift).
    mutating func punchFailed(_ peer: PeerAddress, via: PeerAddress, nowMs: UInt64, into out: inout [GossipDirective]) {
        carry(reach.punchFailed(peer, via: via, peers: peers, stats: &stats), nowMs: nowMs, into: &out)
    }

    mutating func onContactProbe(tag: [UInt8], padding: Int, from: PeerAddress, nowMs: UInt64, into out: inout [GossipDirective]) {
        let acts = reach.contactProbe(tag: tag, padding: padding, from: from, binding: channels.binding(from), nowMs: nowMs, stats: &stats)
        carry(acts, nowMs: nowMs, into: &out)
    }

    mutating func onContactProof(key: [UInt8], signature: [UInt8], from: PeerAddress, nowMs: UInt64) {
        reach.contactProof(key: key, signature: signature, from: from, binding: channels.binding(from), nowMs: nowMs, stats: &stats)
    }

    /// Carries out what the reach part asked, in its order.
    private mutating func carry(_ acts: [ReachAction], nowMs: UInt64, into out: inout [GossipDirective]) {
        for a in acts {
            switch a {
            case .send(let m, let to): send(m, to: to, nowMs: nowMs, into: &out)
            case .join(let to): send(joinMessage, to: to, nowMs: nowMs, into: &out)
            case .punch(let target): if introduce(target, nowMs: nowMs, into: &out) { stats.punches += 1 }
            case .behindNat(let behind):
                info.behindNat = behind
                for p in links where isProven(p) { send(.interest(info), to: p, nowMs: nowMs, into: &out) }
            }
        }
    }
}
