import SkwadTestTraits
import Foundation
import Testing
import SkwadModel
import SkwadReplica
@testable import SkwadGossip
import SkwadTestKit

/// Issue 47, finding 2 (SECURITY "Crawling"): a crawler that joins as a member. From one
/// /24, 50 sessions sent `Join`, answered pings and exchanges, shuffled and walked vicinity
/// targets; a 10-node network told them, through `Shuffle`, `ShuffleReply` and `Vicinity`,
/// every node's address with its 150 m cell within a minute. A member that never reconciled
/// is now told those names as a stranger is (cells cut to precision 4, no vicinity names).
@Suite(.heavy) struct MemberCrawlTests {
    /// 10 nodes on a 5 × 2 grid about 400 m apart (precision-7 cells).
    static func cell(_ i: Int) -> String {
        Geohash.encode(try! GeoPoint(lat: 40.425 + Double(i / 5) * 0.0036, lon: -79.975 + Double(i % 5) * 0.0047), precision: 7)
    }

    static let walk: [String] = (0..<36).map { k in
        Geohash.encode(try! GeoPoint(lat: 40.422 + Double(k / 6) * 0.002, lon: -79.978 + Double(k % 6) * 0.004), precision: 7)
    }

    static func vicinity(claiming cell: String, target: String?, reply: Bool) -> [UInt8] {
        var m = WireMessage(); var v = Skwad_Gossip_V1_Vicinity()
        v.info.cell = cell; v.reply = reply; v.target = target ?? ""
        m.vicinity = v
        return try! m.serializedBytes()
    }

    static func shuffleReply() -> [UInt8] {
        var m = WireMessage(); m.shuffleReply = Skwad_Gossip_V1_ShuffleReply()
        return try! m.serializedBytes()
    }

    @Test func fiftyMemberSessionsFromOneNetworkGroupLearnAtMostFivePreciseThirdPartyAddresses() throws {
        let nodes = 10
        var h = Harness(count: nodes, cells: (0..<nodes).map(Self.cell))
        h.start { i in i == 0 ? [] : [0] }
        h.run(ms: 10_000)
        h.wire = []
        // Session k (198.51.100.(k+1)) joins node k % 10, claiming that node's own cell.
        struct Session { var peer: HostilePeer; let node: Int }
        var sessions: [PeerAddress: Session] = [:]
        func deliver(_ bytes: [UInt8], to i: Int, from a: PeerAddress) {
            var r = h.nodes[i].replica
            let ds = h.nodes[i].engine.receive(datagram: bytes, from: a, nowMs: h.nowMs, replica: &r)
            h.nodes[i].replica = r
            h.apply(i, ds)
        }
        for k in 0..<50 {
            let node = k % nodes
            var p = HostilePeer(address: PeerAddress("198.51.100.\(k + 1):7400"), seed: UInt64(900 + k))
            var r = h.nodes[node].replica
            guard p.handshake(with: &h.nodes[node].engine, nowMs: h.nowMs, replica: &r) else { continue }
            h.nodes[node].replica = r
            sessions[p.address] = Session(peer: p, node: node)
        }
        #expect(sessions.count == 50)
        var fine: [PeerAddress: String] = [:]  // third-party node address → a cell finer than 5 km learnt for it
        var namingMessages = 0, pingsAnswered = 0, step = 0
        var members: Set<PeerAddress> = []
        func learn(_ a: String, _ cell: String, from node: Int) {
            guard let i = Harness.index(PeerAddress(a)), i < nodes, i != node, cell.count >= 5 else { return }
            fine[PeerAddress(a)] = cell
        }
        // 60 virtual seconds in steps of 500 ms.
        for _ in 0..<120 {
            for a in sessions.keys.sorted() {
                var s = sessions[a]!
                let claim = Self.cell(s.node)
                if step % 20 == 0 { deliver(s.peer.seal(WireForge.join(cell: claim)), to: s.node, from: a) }
                let target = Self.walk[(step + s.node) % Self.walk.count]
                deliver(s.peer.seal(Self.vicinity(claiming: claim, target: target, reply: false)), to: s.node, from: a)
                if step % 4 == 1 {
                    deliver(s.peer.seal(WireForge.shuffle(origin: a.value, cell: claim, ttl: 0, peers: [])), to: s.node, from: a)
                }
                sessions[a] = s
            }
            step += 1
            h.run(ms: 500)
            for i in 0..<nodes { for p in h.nodes[i].engine.activePeers where sessions[p] != nil { members.insert(p) } }
            let sent = h.wire.filter { Harness.index($0.to) == nil }
            h.wire = []
            for w in sent {
                guard var s = sessions[w.to], s.node == w.from, let pt = s.peer.open(w.bytes),
                    let m = try? WireMessage(serializedBytes: pt)
                else { continue }
                switch m.body {
                case .ping(let x):
                    deliver(s.peer.seal(WireForge.ack(seq: x.seq, cell: Self.cell(s.node))), to: s.node, from: w.to)
                    pingsAnswered += 1
                case .shuffle(let x):
                    namingMessages += 1
                    for p in x.peers { learn(p.address, p.cell, from: w.from) }
                    deliver(s.peer.seal(Self.shuffleReply()), to: s.node, from: w.to)
                case .shuffleReply(let x):
                    namingMessages += 1
                    for p in x.peers { learn(p.address, p.cell, from: w.from) }
                case .vicinity(let v):
                    namingMessages += 1
                    for p in v.peers { learn(p.address, p.cell, from: w.from) }
                    if !v.reply {
                        let answer = Self.vicinity(claiming: Self.cell(s.node), target: nil, reply: true)
                        deliver(s.peer.seal(answer), to: s.node, from: w.to)
                    }
                case .forwardJoin(let f): learn(f.joiner.address, f.joiner.cell, from: w.from)
                default: break
                }
                sessions[w.to] = s
            }
        }
        #expect(members.count >= 10, "sessions that were active members of a node: \(members.count)")
        #expect(pingsAnswered > 0 && namingMessages > 500, "pings answered \(pingsAnswered), naming messages \(namingMessages)")
        #expect(fine.count <= 5, "learnt \(fine.count) third-party addresses with cells finer than 5 km: \(fine.keys.sorted())")
    }
}
