import Foundation
import Testing
import SkwadCrypto
import SkwadModel
import SkwadReplica
@testable import SkwadGossip
import SkwadTestKit

/// What keeps a node behind a NAT quiet and introduced (PROTOCOL §9 "Revival", "Neighbor",
/// "Introductions"): addresses that never answered are not asked again because others name
/// them; eager shuffles back off; a member's `behind_nat` learnt late still gets it introduced.
@Suite struct NatIdleTests {
    static let t0: UInt64 = 1_790_000_000_000
    static let silent = PeerAddress("198.51.100.7:4444")

    static func wire(_ body: (inout WireMessage) -> Void) -> [UInt8] {
        var m = WireMessage()
        body(&m)
        return try! m.serializedBytes()
    }

    static func info(behindNat: Bool, cell: String? = nil) -> Skwad_Gossip_V1_NodeInfo {
        var i = Skwad_Gossip_V1_NodeInfo()
        i.behindNat = behindNat
        if let cell { i.cell = cell }
        return i
    }

    static func join(behindNat: Bool = false, cell: String? = nil) -> [UInt8] {
        wire {
            var j = Skwad_Gossip_V1_Join(); j.info = info(behindNat: behindNat, cell: cell); $0.join = j
        }
    }

    static func peerRef(_ a: PeerAddress) -> Skwad_Gossip_V1_Peer { var p = Skwad_Gossip_V1_Peer(); p.address = a.value; return p }

    /// An engine at 10.9.9.9 with members (hostile peers that shook hands and joined).
    static func engine(members count: Int, behindNat: Bool = false, cells: [String?] = []) -> (GossipEngine, Replica, [HostilePeer]) {
        var (e, r, ps) = HostileFixture.engine(peers: HostileFixture.addresses(count), nowMs: t0)
        for i in ps.indices {
            _ = ps[i].send(join(behindNat: behindNat, cell: i < cells.count ? cells[i] : nil), to: &e, nowMs: t0, replica: &r)
        }
        return (e, r, ps)
    }

    /// Messages of `kind` among what `p` was sent.
    static func messages(_ p: HostilePeer, _ ds: [GossipDirective]) -> [WireMessage.OneOf_Body] {
        HostilePeer.sent(ds, to: p.address).flatMap { p.messages(in: $0) }.compactMap { try? WireMessage(serializedBytes: $0).body }
    }

    static func run(_ e: inout GossipEngine, _ r: inout Replica, from: UInt64, to: UInt64) -> [GossipDirective] {
        var out: [GossipDirective] = []
        var now = from
        while now < to {
            now += 100
            out += e.tick(nowMs: now, replica: &r)
        }
        return out
    }

    /// An address whose handshake went unanswered (behind a NAT that lets in only replies):
    /// a member naming it again puts it in no view, and revival requests never go to it, for
    /// the 10 minutes it is remembered; once it speaks to us, it is back.
    @Test func anAddressThatNeverAnsweredIsNotAskedAgainUntilItSpeaks() {
        var (e, r, p) = Self.engine(members: 1)
        let first = e.introduce(Self.silent, nowMs: Self.t0)
        #expect(e.stats.joinsIntroduced == 1 && HostilePeer.sent(first, to: Self.silent).count == 1)
        _ = Self.run(&e, &r, from: Self.t0, to: Self.t0 + 5_000)
        #expect(e.peers.dead[Self.silent]?.unanswered == true)
        // Named in a shuffle, again and again; revival rounds every 5 s: nothing goes to it.
        var toSilent = 0
        for k in 0..<12 {
            let now = Self.t0 + 5_000 + UInt64(k) * 5_000
            let shuffle = Self.wire {
                var s = Skwad_Gossip_V1_Shuffle(); s.peers = [Self.peerRef(Self.silent)]; $0.shuffle = s
            }
            toSilent += HostilePeer.sent(p[0].send(shuffle, to: &e, nowMs: now, replica: &r), to: Self.silent).count
            toSilent += HostilePeer.sent(Self.run(&e, &r, from: now, to: now + 5_000), to: Self.silent).count
        }
        #expect(toSilent == 0, "\(toSilent) datagrams to an address that never answered")
        #expect(!e.passivePeers.contains(Self.silent) && !e.activePeers.contains(Self.silent))
        // It speaks (a handshake and a ping): it is no longer given up on, and names count again.
        var back = HostilePeer(address: Self.silent, seed: 9)
        let now = Self.t0 + 70_000
        #expect(back.handshake(with: &e, nowMs: now, replica: &r))
        _ = back.send(
            Self.wire {
                var ping = Skwad_Gossip_V1_Ping(); ping.seq = 1; $0.ping = ping
            }, to: &e, nowMs: now, replica: &r)
        #expect(e.peers.dead[Self.silent] == nil)
        #expect(e.passivePeers.contains(Self.silent))
    }

    /// A node whose only member names nobody it can reach: its eager shuffles (which ask for
    /// peers to fill the view) back off from 500 ms, doubling, instead of going every 500 ms.
    @Test func eagerShufflesBackOffWhileTheyBringNobody() {
        var (e, r, p) = Self.engine(members: 1)
        let ds = Self.run(&e, &r, from: Self.t0, to: Self.t0 + 30_000)
        let shuffles = Self.messages(p[0], ds).filter { if case .shuffle = $0 { true } else { false } }.count
        // 0.5 + 1 + 2 + 4 + 8 + 16 s: at most 6 eager ones in 30 s, and the shuffle round's own.
        #expect(shuffles >= 1 && shuffles <= 8, "\(shuffles) shuffles in 30 s (every 500 ms would be 60)")
    }

    /// Two members near each other joined saying they were not behind a NAT; later their
    /// pings carry `behind_nat` (a member learnt through a walk is known by its cell until
    /// then): they are introduced.
    @Test func aBehindNatFlagLearntFromAPingGetsAPairIntroduced() {
        let cells = [
            Geohash.encode(try! GeoPoint(lat: 48.8566, lon: 2.3522), precision: 7),
            Geohash.encode(try! GeoPoint(lat: 48.8600, lon: 2.3522), precision: 7)
        ]
        var (e, r, p) = Self.engine(members: 2, cells: cells)
        #expect(e.stats.introductionsSent == 0)
        var intro: [WireMessage.OneOf_Body] = []
        for i in 0..<2 {
            let ping = Self.wire {
                var g = Skwad_Gossip_V1_Ping(); g.seq = 8; g.info = Self.info(behindNat: true, cell: cells[i]); $0.ping = g
            }
            let ds = p[i].send(ping, to: &e, nowMs: Self.t0 + 1_000, replica: &r)
            intro += Self.messages(p[0], ds) + Self.messages(p[1], ds)
        }
        #expect(intro.filter { if case .introduce = $0 { true } else { false } }.count == 2, "\(intro)")
        #expect(e.stats.fenceIntroductions == 1)
    }

    /// A node that knows itself behind a NAT tells each new member so (an `Interest`): the
    /// member may hold its info from a `Join` sent before it knew.
    @Test func aNodeBehindANatTellsANewMemberSo() {
        var (e, r, p) = Self.engine(members: 1)
        e.localAddresses = [PeerAddress("10.9.9.9:7400")]
        let observed = Self.wire {
            var o = Skwad_Gossip_V1_Observed(); o.address = "203.0.113.5:40000"; $0.observed = o
        }
        _ = p[0].send(observed, to: &e, nowMs: Self.t0, replica: &r)
        #expect(e.info.behindNat)
        var q = HostilePeer(address: PeerAddress("198.18.9.1:5000"), seed: 7)
        #expect(q.handshake(with: &e, nowMs: Self.t0, replica: &r))
        let ds = q.send(Self.join(), to: &e, nowMs: Self.t0, replica: &r)
        let told = Self.messages(q, ds).contains { if case .interest(let i) = $0 { i.behindNat } else { false } }
        #expect(told)
    }

    /// A member walks a joiner to us (we take it on at once, its handshake under way), then
    /// introduces it: no second handshake, but when the first goes unanswered, we reach it
    /// through the introducer.
    @Test func anIntroductionOfALinkStillHandshakingNotesTheRelay() {
        var (e, r, p) = Self.engine(members: 1)
        let target = PeerAddress("198.51.100.20:6000")
        let walk = Self.wire {
            var f = Skwad_Gossip_V1_ForwardJoin(); f.joiner = Self.peerRef(target); f.ttl = 0; $0.forwardJoin = f
        }
        let w = p[0].send(walk, to: &e, nowMs: Self.t0, replica: &r)
        #expect(HostilePeer.sent(w, to: target).count == 1, "the walk's handshake")
        #expect(e.activePeers.contains(target))
        let intro = Self.wire {
            var i = Skwad_Gossip_V1_Introduce(); i.peer = target.value; i.padding = Data(count: 240); $0.introduce = i
        }
        let ds = p[0].send(intro, to: &e, nowMs: Self.t0 + 10, replica: &r)
        #expect(HostilePeer.sent(ds, to: target).isEmpty, "no second handshake")
        let later = Self.run(&e, &r, from: Self.t0 + 10, to: Self.t0 + 5_000)
        #expect(e.stats.relayFallbacks == 1)
        #expect(Self.messages(p[0], later).contains { if case .relay(let x) = $0 { x.to == target.value } else { false } })
    }
}
