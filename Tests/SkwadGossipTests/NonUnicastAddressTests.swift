import Foundation
import Testing
import SkwadReplica
@testable import SkwadGossip
import SkwadTestKit

/// Issue 47, finding 1: a member named 255.255.255.255:100 (a canonical address) in an
/// `Introduce`; the punch's HELLO failed in the shell and SwiftNIO closed the socket (30
/// rebinds for 10 introductions), and a `ForwardJoin` or `Shuffle` naming broadcast addresses
/// did the same. Every address a peer names now passes the node's filter
/// (`PeerAddress.isDialable`) where the message is decoded (AddressScreen.swift, PROTOCOL §8).
@Suite struct NonUnicastAddressTests {
    /// Canonical addresses of no unicast host, one per refused class.
    static let refused = [
        "255.255.255.255:100", "0.0.0.0:100", "0.1.2.3:100", "224.0.0.1:100", "239.255.255.250:1900", "240.1.2.3:100",
        "[::]:100", "[::2]:100", "[ff02::1]:100", "[fe80::1]:100", "[::ffff:255.255.255.255]:100", "[::ffff:224.0.0.1]:100"
    ]

    @Test func onlyUnicastHostsAreDialable() {
        for a in Self.refused {
            #expect(PeerAddress(a).isCanonical, "\(a) is canonical: only the unicast rule refuses it")
            #expect(!PeerAddress(a).isDialable, "\(a)")
            #expect(PeerAddress(a).refusal == .notUnicast, "\(a)")
        }
        // What a real node must still reach: loopback, LANs, carrier NATs, link-local IPv4, public hosts.
        let accepted = [
            "127.0.0.1:7400", "127.9.9.9:1", "10.0.0.1:7400", "172.16.4.2:7400", "192.168.1.20:7400", "100.64.0.9:7400",
            "169.254.3.4:7400", "203.0.113.7:7400", "223.255.255.254:7400", "[::1]:7400", "[2001:db8::1]:7400", "[fd00::5]:7400",
            "[::ffff:192.0.2.1]:7400", "[64:ff9b::c000:201]:7400"
        ]
        for a in accepted { #expect(PeerAddress(a).isDialable, "\(a)") }
        // Not canonical: refused as before, as a bad address.
        for a in ["255.255.255.255:0", "localhost:7400", "010.0.0.1:7400"] {
            #expect(!PeerAddress(a).isDialable)
            #expect(PeerAddress(a).refusal == .badAddress)
        }
    }

    static func peers(_ addresses: [String], cell: String) -> [Skwad_Gossip_V1_Peer] {
        addresses.map { a in
            var p = Skwad_Gossip_V1_Peer(); p.address = a; p.cell = cell; return p
        }
    }

    /// One message per way a peer can name an address, each naming `bad`.
    static func naming(_ bad: String, cell: String) -> [WireMessage] {
        var ms: [WireMessage] = []
        var m = WireMessage()
        var i = Skwad_Gossip_V1_Introduce(); i.peer = bad; i.padding = Data(count: IntroductionState.minPadding)
        m.introduce = i; ms.append(m)
        m = WireMessage(); var f = Skwad_Gossip_V1_ForwardJoin(); f.joiner.address = bad; f.joiner.cell = cell; f.ttl = 0
        m.forwardJoin = f; ms.append(m)
        m = WireMessage(); var s = Skwad_Gossip_V1_Shuffle(); s.peers = peers([bad], cell: cell); m.shuffle = s; ms.append(m)
        m = WireMessage(); var sr = Skwad_Gossip_V1_ShuffleReply(); sr.peers = peers([bad], cell: cell); m.shuffleReply = sr; ms.append(m)
        m = WireMessage(); var v = Skwad_Gossip_V1_Vicinity(); v.info.cell = cell; v.peers = peers([bad], cell: cell); v.reply = true
        m.vicinity = v; ms.append(m)
        m = WireMessage(); var n = Skwad_Gossip_V1_Neighbor(); n.highPriority = true; n.origin = bad; n.ttl = 2
        m.neighbor = n; ms.append(m)
        m = WireMessage(); var nr = Skwad_Gossip_V1_NeighborReply(); nr.accepted = true; nr.observed = bad; m.neighborReply = nr
        ms.append(m)
        m = WireMessage(); var o = Skwad_Gossip_V1_Observed(); o.address = bad; m.observed = o; ms.append(m)
        m = WireMessage(); var pr = Skwad_Gossip_V1_PingReq(); pr.seq = 9; pr.target = bad; m.pingReq = pr; ms.append(m)
        m = WireMessage(); var r = Skwad_Gossip_V1_Relay(); r.to = bad; r.frame = Data(count: 64); m.relay = r; ms.append(m)
        return ms
    }

    @Test func noEntryPointDialsIntroducesOrStoresAnAddressOfNoUnicastHost() throws {
        let addresses = HostileFixture.addresses(2)
        var (e, r, ps) = HostileFixture.engine(peers: addresses)
        let cell = "dppn59z"
        // Both peers are active members: introductions, walks and relays count from members only.
        for k in ps.indices { _ = ps[k].send(WireForge.join(cell: cell), to: &e, nowMs: HostileFixture.t0, replica: &r) }
        #expect(e.activePeers.count == 2)
        var out: [GossipDirective] = []
        var messages = 0
        for bad in Self.refused {
            for m in Self.naming(bad, cell: cell) {
                out += ps[0].send(try m.serializedBytes(), to: &e, nowMs: HostileFixture.t0 + 1, replica: &r)
                messages += 1
            }
        }
        // A minute of ticks: shuffles, view refills, vicinity and revival rounds, handshake retries.
        var now = HostileFixture.t0 + 1
        for _ in 0..<600 {
            now += 100
            let ds = e.tick(nowMs: now, replica: &r)
            out += ds
            // The members answer pings, so they stay members all along.
            for k in ps.indices {
                for pt in HostilePeer.sent(ds, to: ps[k].address).flatMap({ ps[k].messages(in: $0) }) {
                    guard let (number, body) = WireForge.body(pt), number == 8,
                        let seq = WireForge.pingSeq(body)
                    else { continue }
                    out += ps[k].send(WireForge.ack(seq: seq, cell: cell), to: &e, nowMs: now, replica: &r)
                }
            }
        }
        for bad in Self.refused.map(PeerAddress.init) {
            #expect(HostilePeer.sent(out, to: bad).isEmpty, "nothing sent to \(bad.value)")
            #expect(e.peers.records[bad] == nil, "\(bad.value) stored nowhere")
        }
        #expect(e.reflexiveWitnesses == 0, "no observed address kept")
        #expect(e.stats.punches == 0)
        #expect(e.stats.drops["notUnicast"] == messages, "each refusal counted once, by its reason")
        // The members are still linked and served: a ping is answered.
        let acks = ps[1].send(WireForge.ping(seq: 1, cell: cell), to: &e, nowMs: now, replica: &r)
        #expect(!HostilePeer.sent(acks, to: ps[1].address).isEmpty)
        #expect(e.activePeers.count == 2)
    }
}
