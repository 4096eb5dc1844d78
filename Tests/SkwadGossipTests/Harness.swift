import SkwadModel
import SkwadReplica
@testable import SkwadGossip
import SkwadTestKit

/// A tiny deterministic in-memory network for engine tests: virtual time, per-datagram
/// latency, optional loss and per-node filters. (The full simulator lives in SkwadSim.)
struct Harness {
    struct Node {
        var engine: GossipEngine
        var replica: Replica
        var nextTickMs: UInt64?
        var received: [PeerAddress: Int] = [:]   // datagrams received per sender
        var up = true
    }
    var nodes: [Node] = []
    var nowMs: UInt64 = 1_790_000_000_000
    var queue: [(at: UInt64, seq: Int, to: Int, from: PeerAddress, bytes: [UInt8])] = []
    var seq = 0
    var rng = SplitMix64(seed: 7)
    var lossRate = 0.0
    var admitted: [Int: [OpID]] = [:]
    /// Every datagram that was sent, for inspection.
    var wire: [(from: Int, to: PeerAddress, bytes: [UInt8])] = []

    static func address(_ i: Int) -> PeerAddress { PeerAddress("n\(i)") }
    static func index(_ a: PeerAddress) -> Int? { Int(a.value.dropFirst()) }

    /// Replicas admit without the stamp-work floors unless a test asks for them (tests of
    /// gossip make many packs and pseudonyms; `OpFactory(floors: false)` mints cheap stamps).
    init(count: Int, config: GossipConfig = .init(), cells: [String?]? = nil, replicaConfig: ReplicaConfig = .noFloors) {
        for i in 0..<count {
            var e = GossipEngine(config: config, seed: UInt64(i + 1) * 7919)
            e.selfAddress = Self.address(i)
            _ = e.setInterest(cell: cells?[i] ?? nil, subscriptions: [], nowMs: nowMs)
            nodes.append(Node(engine: e, replica: Replica(config: replicaConfig)))
        }
    }

    mutating func apply(_ i: Int, _ ds: [GossipDirective]) {
        for d in ds {
            switch d {
            case .send(let bytes, let to):
                wire.append((i, to, bytes))
                guard let j = Self.index(to), j < nodes.count else { continue }
                if lossRate > 0 && Double.random(in: 0..<1, using: &rng) < lossRate { continue }
                seq += 1
                queue.append((nowMs + UInt64.random(in: 1...5, using: &rng), seq, j, Self.address(i), bytes))
            case .scheduleTick(let after):
                // The earliest request wins (GossipDirective.scheduleTick).
                let due = nowMs + after
                nodes[i].nextTickMs = min(nodes[i].nextTickMs ?? .max, due)
            case .admitted(let op):
                admitted[i, default: []].append(op.id)
            case .peerUp, .peerDown:
                break
            }
        }
    }

    mutating func start(seeds: (Int) -> [Int]) {
        for i in nodes.indices {
            let ds = nodes[i].engine.start(seeds: seeds(i).map(Self.address), nowMs: nowMs)
            apply(i, ds)
        }
    }

    mutating func publish(_ op: SignedOp, at i: Int) {
        _ = nodes[i].replica.admit(op, nowMs: nowMs)
        let ds = nodes[i].engine.publish(op, nowMs: nowMs, replica: nodes[i].replica)
        apply(i, ds)
    }

    mutating func setInterest(_ i: Int, cell: String?, subscriptions: Set<PackID>) {
        let ds = nodes[i].engine.setInterest(cell: cell, subscriptions: subscriptions, nowMs: nowMs)
        apply(i, ds)
    }

    /// Runs virtual time forward by `ms`, delivering datagrams and ticks in order.
    mutating func run(ms: UInt64) {
        let end = nowMs + ms
        var steps = 0
        while steps < 5_000_000 {
            steps += 1
            let nextMsg = queue.min { ($0.at, $0.seq) < ($1.at, $1.seq) }
            let nextTick = nodes.indices.compactMap { i in nodes[i].up ? nodes[i].nextTickMs.map { ($0, i) } : nil }.min { $0 < $1 }
            let tMsg = nextMsg?.at ?? .max, tTick = nextTick?.0 ?? .max
            let t = min(tMsg, tTick)
            guard t <= end else { break }
            nowMs = t
            if tMsg <= tTick, let m = nextMsg {
                queue.removeAll { $0.seq == m.seq }
                guard nodes[m.to].up else { continue }
                nodes[m.to].received[m.from, default: 0] += 1
                var replica = nodes[m.to].replica
                let ds = nodes[m.to].engine.receive(datagram: m.bytes, from: m.from, nowMs: nowMs, replica: &replica)
                nodes[m.to].replica = replica
                apply(m.to, ds)
            } else if let (_, i) = nextTick {
                nodes[i].nextTickMs = nil
                var replica = nodes[i].replica
                let ds = nodes[i].engine.tick(nowMs: nowMs, replica: &replica)
                nodes[i].replica = replica
                apply(i, ds)
            }
        }
        nowMs = end
    }

    /// Active overlay connected and every active view full (within one of full for odd herds).
    func membershipConverged(full: Int) -> Bool {
        let n = nodes.count
        var seen: Set<Int> = [0], stack = [0]
        while let i = stack.popLast() {
            for p in nodes[i].engine.activePeers { if let j = Self.index(p), !seen.contains(j) { seen.insert(j); stack.append(j) } }
        }
        return seen.count == n && nodes.allSatisfy { $0.engine.activePeers.count >= full }
    }
}
