import SkwadTestTraits
import Foundation
import Testing
import SkwadModel
import SkwadReplica
@testable import SkwadGossip
import SkwadTestKit

/// Need to know for strangers (issue 24, finding 4; PROTOCOL §9, SECURITY "Mapping the
/// network"): a crawler speaking the vicinity protocol from one /24 — a fresh address per
/// node, claiming to stand in the cell of the node it asks so that it enters that node's
/// vicinity view, walking `target` over the city, answering the exchanges it is asked for —
/// once mapped every node's address to its 150 m cell within a minute.
@Suite(.heavy) struct StrangerCrawlTests {
    /// 50 nodes on a 7 × 8 grid about 400 m apart (precision-7 cells).
    static func cell(_ i: Int) -> String {
        Geohash.encode(try! GeoPoint(lat: 40.425 + Double(i / 7) * 0.0036, lon: -79.975 + Double(i % 7) * 0.0047), precision: 7)
    }

    /// The targets a crawler walks: a 12 × 12 grid over the same box.
    static let walk: [String] = (0..<144).map { k in
        Geohash.encode(try! GeoPoint(lat: 40.422 + Double(k / 12) * 0.0025, lon: -79.978 + Double(k % 12) * 0.003), precision: 7)
    }

    /// A cell finer than about 5 km: precision 5 (4.9 km × 4.9 km at the equator) or finer.
    static func isFine(_ cell: String) -> Bool { cell.count >= 5 }

    static func vicinity(claiming cell: String, target: String?, reply: Bool) -> [UInt8] {
        var m = WireMessage(); var v = Skwad_Gossip_V1_Vicinity()
        v.info.cell = cell; v.reply = reply; v.target = target ?? ""
        m.vicinity = v
        return try! m.serializedBytes()
    }

    @Test func aCrawlerFromOneNetworkGroupLearnsAtMostFivePreciseAddresses() throws {
        var h = Harness(count: 50, cells: (0..<50).map(Self.cell))
        h.start { i in i == 0 ? [] : [0] }
        h.run(ms: 10_000)
        h.wire = []
        // One crawler address per node, all in 198.51.100.0/24.
        var crawlers: [Int: HostilePeer] = [:]
        var learned: [PeerAddress: String] = [:]  // address → the finest cell learnt for it
        var known: Set<Int> = [0]
        var walked = 0, requests = 0
        func learn(_ a: PeerAddress, _ cell: String) {
            guard !cell.isEmpty, let i = Harness.index(a), i < 50 else { return }
            known.insert(i)
            if cell.count > (learned[a]?.count ?? 0) { learned[a] = cell }
        }
        func deliver(_ bytes: [UInt8], to i: Int, from c: PeerAddress) {
            var r = h.nodes[i].replica
            let ds = h.nodes[i].engine.receive(datagram: bytes, from: c, nowMs: h.nowMs, replica: &r)
            h.nodes[i].replica = r
            h.apply(i, ds)
        }
        for _ in 0..<120 {
            for i in known.sorted() {
                if crawlers[i] == nil {
                    var p = HostilePeer(address: PeerAddress("198.51.100.\(i + 1):7400"), seed: UInt64(500 + i))
                    var r = h.nodes[i].replica
                    guard p.handshake(with: &h.nodes[i].engine, nowMs: h.nowMs, replica: &r) else { continue }
                    h.nodes[i].replica = r
                    crawlers[i] = p
                }
                // Claim the node's own cell (we are its nearest), walk the target over the city.
                let claim = learned[Harness.address(i)] ?? Self.cell(0)
                let target = requests % 3 == 0 ? nil : Self.walk[walked % Self.walk.count]
                walked += 1; requests += 1
                let frame = crawlers[i]!.seal(Self.vicinity(claiming: claim, target: target, reply: false))
                deliver(frame, to: i, from: crawlers[i]!.address)
                if requests % 10 == 0 {
                    // A shuffle now and then: its answer names peers of both views with their cells.
                    let a = crawlers[i]!.address.value
                    let shuffle = crawlers[i]!.seal(WireForge.shuffle(origin: a, cell: claim, ttl: 0, peers: []))
                    deliver(shuffle, to: i, from: crawlers[i]!.address)
                }
            }
            h.run(ms: 500)
            // Everything the nodes sent the crawler: answers, and their own exchanges with it.
            let sent = h.wire.filter { Harness.index($0.to) == nil }
            h.wire = []
            for s in sent {
                guard let c = crawlers[s.from], c.address == s.to, let pt = c.open(s.bytes),
                    let m = try? WireMessage(serializedBytes: pt)
                else { continue }
                let node = Harness.address(s.from)
                // Every message kind that carries the sender's cell or other peers' cells.
                switch m.body {
                case .ping(let x): learn(node, x.info.cell)
                case .ack(let x): learn(node, x.info.cell)
                case .interest(let x): learn(node, x.cell)
                case .neighborReply(let x): learn(node, x.info.cell)
                case .reconcile(let x): learn(node, x.asker.cell)
                case .shuffleReply(let x): for p in x.peers { learn(PeerAddress(p.address), p.cell) }
                default: break
                }
                guard case .vicinity(let v)? = m.body else { continue }
                learn(node, v.info.cell)
                for p in v.peers { learn(PeerAddress(p.address), p.cell) }
                if !v.reply {
                    // Answer, as an honest peer would: the node counts it as an exchange.
                    let claim = learned[Harness.address(s.from)] ?? Self.cell(0)
                    deliver(crawlers[s.from]!.seal(Self.vicinity(claiming: claim, target: nil, reply: true)), to: s.from, from: c.address)
                }
            }
        }
        let fine = learned.filter { Self.isFine($0.value) }
        #expect(requests > 1000, "the crawler asked every node it heard of, twice a second")
        #expect(fine.count <= 5, "learnt \(fine.count) addresses with cells finer than 5 km (of \(learned.count) learnt)")
    }
}

/// The rules of need to know one by one, on one engine and a `HostilePeer`.
extension StrangerCrawlTests {
    static let t0: UInt64 = 1_790_000_000_000
    static let stranger = PeerAddress("198.51.100.7:7400")

    static func reconcile(cell: String) -> [UInt8] {
        var m = WireMessage(); var r = Skwad_Gossip_V1_Reconcile()
        r.directory = true; r.initiator = true; r.lower = Reconciliation.Bound.zero.wire
        r.asker = NodeInfo(cell: cell).wire
        r.ranges = [Reconciliation.RangeMessage(upper: .infinity, mode: .ids([])).wire]
        m.reconcile = r
        return try! m.serializedBytes()
    }

    /// Sends `peer`'s request to `e` and returns the first `Vicinity` answer it can read.
    static func ask(
        _ e: inout GossipEngine, _ r: inout Replica, from peer: inout HostilePeer, target: String?,
        nowMs: UInt64
    ) -> Skwad_Gossip_V1_Vicinity? {
        answers(peer.send(vicinity(claiming: cell(8), target: target, reply: false), to: &e, nowMs: nowMs, replica: &r), for: peer).first
    }

    /// The `Vicinity` answers among `ds` that `peer` can read.
    static func answers(_ ds: [GossipDirective], for peer: HostilePeer) -> [Skwad_Gossip_V1_Vicinity] {
        HostilePeer.sent(ds, to: peer.address).compactMap { f in
            guard let pt = peer.open(f), let m = try? WireMessage(serializedBytes: pt), case .vicinity(let v)? = m.body else { return nil }
            return v
        }
    }

    @Test func aStrangerIsToldACityCellAndNobodyUntilItReconciles() throws {
        var e = GossipEngine(seed: 21, secrets: .seeded)
        e.selfAddress = PeerAddress("10.0.0.1:7400")
        let pack = try PackID(bytes: [UInt8](repeating: 7, count: 32))
        _ = e.setInterest(cell: Self.cell(8), subscriptions: [pack], nowMs: Self.t0)
        for i in 0..<10 {
            let peer = PeerAddress("10.0.\(i + 1).1:7400")
            e.offerVicinity(peer, info: NodeInfo(cell: Self.cell(i)), heard: true, answered: true, nowMs: Self.t0)
        }
        var r = Replica()
        var p = HostilePeer(address: Self.stranger, seed: 3)
        #expect(p.handshake(with: &e, nowMs: Self.t0, replica: &r))
        // Claiming our own cell, walking a target: a coarse cell, no subscriptions, nobody.
        for target in [nil, Self.walk[0]] {
            let a = try #require(Self.ask(&e, &r, from: &p, target: target, nowMs: Self.t0))
            #expect(a.info.cell == String(Self.cell(8).prefix(GossipEngine.strangerPrecision)) && a.info.subscriptions.isEmpty)
            #expect(a.peers.isEmpty)
        }
        #expect(e.peers.vicinity[Self.stranger] == nil && e.peers.inbound[Self.stranger] == nil, "its claimed cell placed it nowhere")
        // A shuffle's answer names peers with city-scale cells only.
        let shuffle = WireForge.shuffle(origin: Self.stranger.value, cell: Self.cell(8), ttl: 0, peers: [])
        let shuffled = HostilePeer.sent(p.send(shuffle, to: &e, nowMs: Self.t0, replica: &r), to: Self.stranger)
        for f in shuffled {
            guard let pt = p.open(f), let m = try? WireMessage(serializedBytes: pt), case .shuffleReply(let s)? = m.body else { continue }
            #expect(s.peers.allSatisfy { $0.cell.count <= GossipEngine.strangerPrecision })
        }
        // Once it has reconciled it is proven: its claimed cell places it (a link now: it
        // claims our own cell), and it is told our info and the peers nearest to it.
        _ = p.send(Self.reconcile(cell: Self.cell(8)), to: &e, nowMs: Self.t0, replica: &r)
        let a = try #require(Self.ask(&e, &r, from: &p, target: nil, nowMs: Self.t0 + 1))
        #expect(e.peers.vicinity[Self.stranger] != nil)
        #expect(a.info.cell == Self.cell(8) && a.info.subscriptions.count == 1)
        #expect(a.peers.count == GossipConfig().membership.vicinitySample)
        // A proven peer that is no link learns our cell, not our subscriptions.
        let inbound = PeerAddress("198.51.100.8:7400")
        e.peers.rememberInbound(inbound, info: NodeInfo(cell: Self.cell(40)), nowMs: Self.t0)
        e.markReconciled(inbound, nowMs: Self.t0)
        #expect(e.audience(of: inbound) == .proven && e.info(for: inbound) == NodeInfo(cell: Self.cell(8)))
    }

    @Test func aNetworkGroupWalksAtMostTwoTargetsAndHearsAtMostEightNamingAnswersPerWindow() {
        var b = StrangerBudget()
        let w = StrangerBudget.windowMs
        var named = 0
        for _ in 0..<8 where b.mayName(group: "198.51.100", nowMs: 1) { named += 1 }
        #expect(named == StrangerBudget.names)
        let over = b.mayName(group: "198.51.100", nowMs: 2), other = b.mayName(group: "203.0.113", nowMs: 2)
        #expect(!over)
        #expect(other, "another group has its own budget")
        let later = b.mayName(group: "198.51.100", nowMs: 1 + w)
        #expect(later, "a new window")
        let first = b.mayWalk(group: "g", target: "dppn59z", nowMs: 1), second = b.mayWalk(group: "g", target: "dppn59y", nowMs: 1)
        #expect(first && second)
        let again = b.mayWalk(group: "g", target: "dppn59z", nowMs: 2)
        #expect(again, "a target already walked costs nothing more")
        let third = b.mayWalk(group: "g", target: "dppn59x", nowMs: 2)
        #expect(!third)
        for i in 0..<(StrangerBudget.capacity + 50) { _ = b.mayName(group: "10.\(i / 256).\(i % 256)", nowMs: 10 + UInt64(i)) }
        #expect(b.groups.count == StrangerBudget.capacity)
    }

    @Test func provenPeersHaveAStatedCapacity() {
        var e = GossipEngine(seed: 22, secrets: .seeded)
        for i in 0..<(GossipEngine.reconciledCapacity + 20) {
            e.markReconciled(PeerAddress("10.0.\(i / 200).\(i % 200):1"), nowMs: UInt64(i))
        }
        #expect(e.peers.reconciled.count == GossipEngine.reconciledCapacity)
        #expect(e.peers.reconciled[PeerAddress("10.0.0.0:1")] == nil, "the least recently reconciled went")
    }
}
