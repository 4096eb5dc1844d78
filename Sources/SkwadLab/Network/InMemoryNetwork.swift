import SkwadGossip
import SkwadModel
import SkwadReplica

/// One deterministic in-memory network of real `GossipEngine`s in virtual time: the engine
/// tests' network (the simulator drives engines through the same `DirectiveInterpreter`, with
/// its own event queue and metrics). It carries out every directive: a send becomes a
/// delivery after the latency `Model` chooses (or a loss, a partition, a drop by `filter`),
/// `scheduleTick` sets the node's one timer (earliest request wins, as in the real node),
/// admitted ops and peer changes are recorded. Every datagram sent is logged in `wire`.
/// Seeded: the same calls give the same run. Node `i` has the address "n<i>".
///
/// Ties: at equal times a datagram is delivered before a tick, datagrams in the order they
/// were sent, ticks in node order.
public struct InMemoryNetwork<Model: LinkModel> {
    public struct Node {
        public var engine: GossipEngine
        public var replica: Replica
        public var interpreter = DirectiveInterpreter()
        /// Datagrams received, per sender.
        public var received: [PeerAddress: Int] = [:]
        /// A node that is down receives nothing (datagrams to it are dropped) and does not tick.
        public var up = true

        public init(engine: GossipEngine, replica: Replica) { self.engine = engine; self.replica = replica }

        /// When the node's tick timer is due; setting it forces the next tick.
        public var nextTickMs: UInt64? {
            get { interpreter.timer.dueMs }
            set { interpreter.timer.force(dueMs: newValue) }
        }
    }

    /// One datagram sent: by node index, to the address the engine named.
    public struct Sent {
        public let from: Int
        public let to: PeerAddress
        public let bytes: [UInt8]
    }

    /// What became of datagrams, counted.
    public struct Counters: Sendable, Equatable {
        public var delivered = 0, lost = 0, partitioned = 0, filtered = 0, toNobody = 0, toDownNode = 0
    }

    public var nodes: [Node] = []
    public var nowMs: UInt64
    public var model: Model
    /// Drops a datagram when it returns true (from, to, bytes): one-way cuts, targeted loss.
    public var filter: ((Int, Int, [UInt8]) -> Bool)?
    /// As `filter`, also told the time of sending (from, to, bytes, ms): state that expires,
    /// such as a NAT's mappings.
    public var timedFilter: ((Int, Int, [UInt8], UInt64) -> Bool)?
    /// Every datagram sent, for inspection (`recordWire = false` turns the log off for long runs).
    public var wire: [Sent] = []
    public var recordWire = true
    /// Ops each node's engine admitted, in order.
    public var admitted: [Int: [OpID]] = [:]
    /// Links that came up (true) or went down, per node, in order.
    public var peerEvents: [Int: [(PeerAddress, Bool)]] = [:]
    public private(set) var counters = Counters()
    /// Datagrams in flight: (to, from, bytes) by arrival time, then send order.
    var queue = VirtualTimeQueue<(to: Int, from: Int, bytes: [UInt8])>()

    public init(nowMs: UInt64 = 1_790_000_000_000, model: Model) {
        self.nowMs = nowMs; self.model = model
    }

    public static func address(_ i: Int) -> PeerAddress { MemoryAddress.of(i) }
    public static func index(_ a: PeerAddress) -> Int? { MemoryAddress.index(a) }

    /// Adds a node running `engine` (its address is set to "n<index>"); returns its index.
    @discardableResult
    public mutating func add(_ engine: GossipEngine, replica: Replica) -> Int {
        var e = engine
        e.selfAddress = Self.address(nodes.count)
        nodes.append(Node(engine: e, replica: replica))
        return nodes.count - 1
    }

    /// Carries out what node `i`'s engine just asked for.
    public mutating func apply(_ i: Int, _ directives: [GossipDirective]) {
        let now = nowMs
        var told = MemorySink()
        nodes[i].interpreter.carry(directives, nowMs: now, into: &told)
        let sends = told.sends
        if !told.ops.isEmpty { admitted[i, default: []] += told.ops }
        if !told.peers.isEmpty { peerEvents[i, default: []] += told.peers }
        // The log keeps every send, also to addresses that name no node.
        if recordWire {
            for d in directives { if case .send(let b, let to) = d { wire.append(Sent(from: i, to: to, bytes: b)) } }
        }
        let named = directives.reduce(0) { if case .send = $1 { $0 + 1 } else { $0 } }
        counters.toNobody += named - sends.count
        for (bytes, j) in sends {
            guard j < nodes.count else { counters.toNobody += 1; continue }
            if let f = filter, f(i, j, bytes) { counters.filtered += 1; continue }
            if let f = timedFilter, f(i, j, bytes, now) { counters.filtered += 1; continue }
            switch model.transmit(from: i, to: j, bytes: bytes.count, nowMs: now) {
            case .lost: counters.lost += 1
            case .partitioned: counters.partitioned += 1
            case .arrives(let at): queue.push(at: max(at, now), (to: j, from: i, bytes: bytes))
            }
        }
    }

    /// Starts every node's engine with the seeds `seeds(i)` names.
    public mutating func start(seeds: (Int) -> [Int]) {
        for i in nodes.indices {
            let ds = nodes[i].engine.start(seeds: seeds(i).map { MemoryAddress.of($0) }, nowMs: nowMs)
            apply(i, ds)
        }
    }

    /// Node `i`'s user made `op`: its replica admits it and its engine publishes it.
    public mutating func publish(_ op: SignedOp, at i: Int) {
        _ = nodes[i].replica.admit(op, nowMs: nowMs)
        let ds = nodes[i].engine.publish(op, nowMs: nowMs, replica: nodes[i].replica)
        apply(i, ds)
    }

    public mutating func setInterest(_ i: Int, cell: String?, subscriptions: Set<PackID>) {
        let ds = nodes[i].engine.setInterest(cell: cell, subscriptions: subscriptions, nowMs: nowMs)
        apply(i, ds)
    }

    /// Runs virtual time forward by `ms`, delivering datagrams and ticks in order. Bounded:
    /// at most `maxSteps` events (a run that would take more stops early).
    public mutating func run(ms: UInt64, maxSteps: Int = 5_000_000) {
        let end = nowMs + ms
        var steps = 0
        while steps < maxSteps {
            steps += 1
            var tick: (due: UInt64, node: Int)?
            for i in nodes.indices where nodes[i].up {
                if let due = nodes[i].interpreter.timer.dueMs, due < (tick?.due ?? .max) { tick = (due, i) }
            }
            let tMsg = queue.peekTime ?? .max, tTick = tick?.due ?? .max
            let t = min(tMsg, tTick)
            guard t <= end else { break }
            nowMs = max(nowMs, t)
            if tMsg <= tTick, let m = queue.pop()?.payload {
                guard nodes[m.to].up else { counters.toDownNode += 1; continue }
                counters.delivered += 1
                let from = Self.address(m.from)
                nodes[m.to].received[from, default: 0] += 1
                var replica = nodes[m.to].replica
                let ds = nodes[m.to].engine.receive(datagram: m.bytes, from: from, nowMs: nowMs, replica: &replica)
                nodes[m.to].replica = replica
                apply(m.to, ds)
            } else if let (_, i) = tick {
                _ = nodes[i].interpreter.timer.fire(nodes[i].interpreter.timer.generation)
                var replica = nodes[i].replica
                let ds = nodes[i].engine.tick(nowMs: nowMs, replica: &replica)
                nodes[i].replica = replica
                apply(i, ds)
            }
        }
        nowMs = max(nowMs, end)
    }

    /// Active overlay connected and every active view at least `full` large.
    public func membershipConverged(full: Int) -> Bool {
        guard !nodes.isEmpty else { return true }
        var seen: Set<Int> = [0], stack = [0]
        while let i = stack.popLast() {
            for p in nodes[i].engine.activePeers {
                if let j = Self.index(p), j < nodes.count, !seen.contains(j) { seen.insert(j); stack.append(j) }
            }
        }
        return seen.count == nodes.count && nodes.allSatisfy { $0.engine.activePeers.count >= full }
    }
}

extension InMemoryNetwork where Model == UniformLatency {
    /// `count` engines (seeded `(i + 1) * 7919`), each announcing `cells[i]`, with replicas
    /// that admit without the stamp-work floors unless a test asks for them (tests of gossip
    /// make many packs and pseudonyms; `OpFactory(floors: false)` mints cheap stamps), over
    /// links of 1–5 ms.
    public init(
        count: Int, config: GossipConfig = .init(), cells: [String?]? = nil, replicaConfig: ReplicaConfig = .noFloors,
        model: UniformLatency = UniformLatency()
    ) {
        self.init(model: model)
        for i in 0..<count {
            var e = GossipEngine(config: config, seed: UInt64(i + 1) * 7919, secrets: .seeded)
            e.selfAddress = Self.address(i)
            _ = e.setInterest(cell: cells?[i] ?? nil, subscriptions: [], nowMs: nowMs)
            nodes.append(Node(engine: e, replica: Replica(config: replicaConfig)))
        }
    }

    /// Independent loss on every link.
    public var lossRate: Double {
        get { model.loss }
        set { model.loss = newValue }
    }
}

/// What one node's directives asked of the network: sends to a node index (an address that
/// names none is dropped here, as an unreachable one would be), admitted ops, link changes.
/// Ticks live in the interpreter's timer; picture directives are not carried in memory.
struct MemorySink: DirectiveSink {
    var sends: [([UInt8], Int)] = []
    var ops: [OpID] = []
    var peers: [(PeerAddress, Bool)] = []

    mutating func send(_ bytes: [UInt8], to: PeerAddress) {
        if let j = MemoryAddress.index(to) { sends.append((bytes, j)) }
    }
    mutating func scheduleTick(generation: UInt32, afterMs: UInt64) {}
    mutating func admitted(_ ops: [SignedOp]) { self.ops += ops.map(\.id) }
    mutating func peer(_ peer: PeerAddress, up: Bool) { peers.append((peer, up)) }
    mutating func picture(_ directive: GossipDirective) {}
}
