import Testing
import SkwadModel
import SkwadReplica
@testable import SkwadGossip
import SkwadTestKit

/// One `forget` drops a peer from every part of the engine (`PeerState`, Parts.swift): an
/// engine holding state about one peer in every part that keeps any, once it gives up on the
/// peer (or retires it as a relayed twin), holds it nowhere but where a part keeps it on
/// purpose (`kept`), and its peer table holds it as dead only. The engine's stored properties
/// are read by reflection, and every value in them is searched for the peer's address: a new
/// part, or a new field of a part, that keeps a peer past `forget` fails here until its
/// `EnginePart` drops it (Parts.swift) or it is named in `kept` with its reason.
@Suite struct ForgetTests {
    static let t0: UInt64 = 1_790_000_000_000
    static let peer = PeerAddress("198.18.1.1:5000")
    static let other = PeerAddress("198.18.2.1:5000")

    /// The engine's stored properties that may hold state about single peers, each dropped by
    /// `GossipEngine.forgetInParts` through its `EnginePart` (the peer table by its own
    /// `forget`), and those that hold none. A new stored property of the engine must be put in
    /// one of the two.
    static let partsWithPeers: Set<String> = [
        "channels", "peers", "limits", "spread", "membership", "swim", "reach", "directory", "pictures"
    ]
    static let partsWithoutPeers: Set<String> = ["config", "rng", "stats", "info", "rounds", "vicinity"]

    /// Where a forgotten peer may still be found (a field and everything under it), and why.
    static let kept: [String: String] = [
        "peers": "the peer table remembers a peer given up on as dead, with its facts (checked on its own below)",
        "channels.addressLimits": "a budget of datagrams and bytes per address",
        "limits.genesis": "a budget of new packs per address",
        "membership.guardState.lastJoinMs": "a budget: one Join per source per 2 s",
        "swim.indirect": "a ping relayed for another: ends with its ack, or the oldest goes",
        "membership.seeds": "configuration",
        "reach.introductions.introduced": "a budget: a pair is introduced once per minute",
        "reach.introductions.punched": "a budget: one punch per address per minute",
        "reach.introductions.perMember": "a budget: introductions per member",
        "reach.relay.sources": "a budget of bytes relayed per source",
        "pictures.answerBudget": "a budget of blocks answered per peer",
        "directory.newLinks": "a directory pull owed to a new link: the next tick, links only",
        "spread.plumtree.queue": "IHAVEs owed: the next tick sends them to links only",
        "spread.plumtree.missing": "announcers of ids we lack: grafted in turn, then left to reconciliation",
        "spread.reconUnanswered": "a reconciliation left unanswered: counted when the round ends",
        "spread.stem.relay": "the stem link: chosen again at its next use when it is no link"
    ]

    /// Every path (stored property names from the engine down, dictionary keys and values
    /// alike) under which `value` holds `peer`, as a `PeerAddress` or as its string.
    static func paths(
        holding peer: PeerAddress, in value: Any, at path: String = "", seen: inout Set<ObjectIdentifier>, into found: inout Set<String>
    ) {
        if let a = value as? PeerAddress {
            if a == peer { found.insert(path) }
            return
        }
        if let s = value as? String {
            if s == peer.value { found.insert(path) }
            return
        }
        let m = Mirror(reflecting: value)
        if m.displayStyle == .class {
            guard seen.insert(ObjectIdentifier(value as AnyObject)).inserted else { return }
        }
        for c in m.children {
            // Dictionary entries are labelled `key` and `value`, an optional's value `some`,
            // tuples' elements `.0`, ...: none of them is part of the path.
            let label = c.label.flatMap { ["key", "value", "some"].contains($0) || $0.hasPrefix(".") ? nil : $0 }
            let next = label.map { path.isEmpty ? $0 : path + "." + $0 } ?? path
            paths(holding: peer, in: c.value, at: next, seen: &seen, into: &found)
        }
    }

    static func paths(holding peer: PeerAddress, in e: GossipEngine) -> Set<String> {
        var seen: Set<ObjectIdentifier> = [], found: Set<String> = []
        paths(holding: peer, in: e, seen: &seen, into: &found)
        return found
    }

    static func isKept(_ path: String) -> Bool { kept.keys.contains { path == $0 || path.hasPrefix($0 + ".") } }

    /// An engine whose every part holds state about `peer` (an active member with a session
    /// when `member`), some of it naming `other` too.
    static func filled(_ peer: PeerAddress, member: Bool) throws -> GossipEngine {
        var (e, r, ps) = HostileFixture.engine(peers: member ? [peer.value, other.value] : [other.value])
        if member {
            var join = WireMessage(); join.join = Skwad_Gossip_V1_Join()
            _ = ps[0].send(try join.serializedBytes(), to: &e, nowMs: t0, replica: &r)
            #expect(e.peers.active[peer] != nil)
        } else {
            _ = e.peers.promote(peer, info: NodeInfo(), nowMs: t0)
        }
        let pack = try PackID(bytes: [UInt8](repeating: 7, count: 32))
        let id = try OpID(bytes: [UInt8](repeating: 9, count: 32))
        let root = [UInt8](repeating: 5, count: 32)
        // channels: the session (above); its address budget.
        // limits
        e.limits.genesis[peer] = TokenBucket(rate: 1, burst: 1, nowMs: t0)
        // spread
        e.spread.plumtree.setLazy(peer, true)
        e.spread.plumtree.enqueue([id], for: peer)
        _ = e.spread.plumtree.announced(Plumtree.prefix(id), by: peer, nowMs: t0, graftTimeoutMs: 1)
        e.spread.reconUnanswered.insert(ReconAsked(pack: pack, peer: peer))
        e.spread.stem.relay = peer
        // membership
        e.membership.seeds = [peer]
        e.membership.pendingNeighbor = (peer, t0)
        e.swim.indirect[99] = (peer, 1, other)
        e.swim.indirect[100] = (other, 1, peer)
        _ = e.membership.guardState.admitJoin(from: peer, nowMs: t0)
        // reach
        e.reach.reflexive.record(PeerAddress("198.51.100.7:40000"), by: peer, nowMs: t0)
        e.reach.introductions.introduced[IntroductionState.Pair(peer, other)] = t0
        e.reach.introductions.punched[peer] = t0
        e.reach.introductions.introducer[peer] = other
        e.reach.introductions.introducer[PeerAddress("198.18.3.1:5000")] = peer
        _ = e.reach.introductions.takeMember(peer, nowMs: t0)
        _ = e.reach.relay.take(100, from: peer, nowMs: t0)
        e.reach.retries.schedules[peer] = .init(dueMs: t0 + 1, delayMs: 1)
        e.reach.contacts.checks[peer] = .init(fingerprint: [1], binding: [2], sentMs: t0)
        e.reach.contacts.results[peer] = (.pending, t0)
        // directory
        e.directory.newLinks.insert(peer)
        // pictures
        let ref = PictureRef(root: root, size: 2048, type: 1, chunks: 2)
        e.pictures.fetches[root] = .init(
            pack: pack, assembly: PictureAssembly(ref: ref), asked: [0: (peer, t0, true), 1: (other, t0, false)], origin: peer,
            misses: [peer: 1], lastProgressMs: t0, askedBefore: [1: [peer, other]])
        e.pictures.origins[root] = (peer, t0)
        e.pictures.origins[[UInt8](repeating: 6, count: 32)] = (other, t0)
        e.pictures.waits[root] = [.init(peer: peer, index: 0, atMs: t0), .init(peer: other, index: 1, atMs: t0)]
        e.pictures.waitCount = [peer: 1, other: 1]
        e.pictures.waitTotal = 2
        _ = e.pictures.takeAnswer(peer, nowMs: t0)
        return e
    }

    /// The parts are the engine's stored properties, every one of them on one of the two lists.
    @Test func everyPartIsListed() {
        let e = GossipEngine(seed: 1, secrets: .seeded)
        let labels = Set(Mirror(reflecting: e).children.compactMap(\.label))
        #expect(labels == Self.partsWithPeers.union(Self.partsWithoutPeers), "a new part of the engine: list it here, wire it into forget")
        for c in Mirror(reflecting: e).children
        where Self.partsWithPeers.contains(c.label ?? "") && c.label != "peers" && c.label != "limits" {
            #expect(c.value is any PeerState, "\(c.label!) keeps state about peers and must drop it in forgetInParts")
        }
    }

    /// Filled, every part that may hold a peer holds it; after `forget`, only what is kept on purpose.
    @Test(arguments: [PeerTable.Reason.dead, .unreachable])
    func forgetLeavesThePeerNowhere(_ why: PeerTable.Reason) throws {
        var e = try Self.filled(Self.peer, member: true)
        let before = Self.paths(holding: Self.peer, in: e)
        let partsHolding = Set(before.map { String($0.prefix { $0 != "." }) })
        #expect(partsHolding == Self.partsWithPeers, "the test fills every part that may hold a peer")
        #expect(before.contains { !Self.isKept($0) })
        var out: [GossipDirective] = []
        e.forget(Self.peer, why, nowMs: Self.t0 + 1, into: &out)
        let left = Self.paths(holding: Self.peer, in: e).filter { !Self.isKept($0) }
        #expect(left.isEmpty, "still held after forget: \(left.sorted())")
        // The peer table holds it as dead, with no role.
        #expect(e.peers.dead[Self.peer] != nil)
        #expect(e.peers.roles(of: Self.peer) == [.dead])
        // What the other peer is in is left alone, counts kept true.
        #expect(e.pictures.waitTotal == 1 && e.pictures.waitCount == [Self.other: 1])
        #expect(e.pictures.fetches.values.first?.asked[1]?.peer == Self.other)
        #expect(e.reach.introductions.introducer.isEmpty)
        #expect(e.swim.indirect.count == 2)
    }

    /// A relayed link retired for a direct one goes from every part the same way (one path).
    @Test func retiredRelayedTwinIsLeftNowhere() throws {
        let relayed = PeerAddress.relayed(PeerAddress("198.18.4.1:5000"), via: Self.other)
        var e = try Self.filled(relayed, member: false)
        #expect(Self.paths(holding: relayed, in: e).contains { !Self.isKept($0) })
        var out: [GossipDirective] = []
        e.retireRelayedTwins(of: PeerAddress("198.18.4.1:5000"), into: &out)
        let left = Self.paths(holding: relayed, in: e).filter { !Self.isKept($0) }
        #expect(left.isEmpty, "still held after retiring: \(left.sorted())")
        #expect(e.peers.roles(of: relayed).isEmpty)
    }
}
