import SkwadLab
import SkwadModel
import SkwadReplica

/// Progress of a run, reported at every sample (deterministic points in virtual time).
public struct SimProgress: Sendable {
    public let strategy: String
    public let strategyIndex: Int
    public let strategyCount: Int
    public let nowMs: UInt64
    public let durationMs: UInt64
    public let events: Int
    /// 0...1 over all the strategies of the run.
    public var fraction: Double {
        (Double(strategyIndex) + Double(nowMs) / Double(max(1, durationMs))) / Double(max(1, strategyCount))
    }
}

/// The discrete-event loop for one strategy over one world.
struct Simulator<S: SimStrategy> {
    typealias Payload = S.Node.Payload

    let world: World
    let strategy: S
    let memo: SignatureMemo
    var queue = VirtualTimeQueue<SimEvent>(capacity: 4096)
    var nodes: [S.Node]
    var replicas: [Replica]
    var up: [Bool]
    var incarnation: [UInt32]
    var online: Int
    var payloads: [Payload?] = []
    var freeSlots: [UInt32] = []
    var ctx: SimContext<Payload>
    var net: NetworkModel
    var metrics: Metrics
    var verified: [Bool]
    var events = 0
    var nowMs: UInt64 = 0
    /// Who sent the message being handled (-1 outside a message), for origin guessing.
    var sender = -1
    /// Threads for the nodes' work (ParallelWindow.swift); 1: one event at a time. The
    /// report is the same byte for byte either way.
    var threads = 1
    /// Wall time spent in the windows' first phase (each node on its own, on `threads`
    /// threads); the rest of a run goes one event at a time. Printed, never reported: the
    /// report is the same however fast the machine.
    var parallelTime = Duration.zero
    /// The windows' bookkeeping, kept from one to the next (ParallelWindow.swift): each
    /// thread's lane, the slots, and each node's slot in the window being run (-1: none).
    var lanes: [Lane] = []
    var slots = Slots()
    var slotOfNode: [Int32]

    init(world: World, strategy: S, memo: SignatureMemo) {
        self.world = world; self.strategy = strategy; self.memo = memo
        let n = world.nodeCount
        nodes = (0..<n).map { strategy.makeNode($0, world: world) }
        replicas = Array(repeating: Replica(config: world.replicaConfig), count: n)
        up = Array(repeating: true, count: n)
        incarnation = Array(repeating: 0, count: n)
        online = n
        ctx = SimContext(world: world)
        net = NetworkModel(scenario: world.scenario, world: world, seed: world.seed)
        metrics = Metrics(world: world)
        verified = Array(repeating: false, count: world.ops.count)
        slotOfNode = Array(repeating: -1, count: n)
    }

    var wallMs: UInt64 { world.scenario.epochMs &+ nowMs }

    mutating func run(strategyIndex: Int, strategyCount: Int, progress: (SimProgress) -> Void) -> Metrics {
        let s = world.scenario
        let duration = s.durationMs
        // Churn first: at equal times a node goes down or comes back before it would make
        // an op, as the workload generator assumed ([from, to) down intervals).
        for c in world.churn.changes where c.timeMs <= duration {
            queue.push(time: c.timeMs, kind: c.up ? .nodeUp : .nodeDown, node: c.node, b: c.keepData ? 1 : 0)
        }
        for (i, o) in world.ops.enumerated() where o.createdMs <= duration { queue.push(time: o.createdMs, kind: .localOp, a: Int32(i)) }
        for (i, p) in s.partitions.enumerated() {
            if p.startMs <= duration { queue.push(time: p.startMs, kind: .partitionStart, a: Int32(i)) }
            if p.healMs <= duration { queue.push(time: p.healMs, kind: .partitionHeal, a: Int32(i)) }
        }
        var t: UInt64 = 0
        while t < duration { queue.push(time: t, kind: .sample); t += s.sampleMs }
        queue.push(time: duration, kind: .sample)

        for n in world.churn.late.map(Int.init) { up[n] = false; online -= 1 }
        for n in 0..<world.nodeCount where up[n] {
            ctx.node = n; ctx.nowMs = 0
            nodes[n].start(replica: &replicas[n], &ctx)
            drain(n)
        }

        // The network's smallest delay: what a node does inside a window this long reaches no
        // other node before it ends (ParallelWindow.swift).
        let lookahead = UInt64(max(1, s.network.baseLatencyMs.rounded(.down)))
        var pending: VirtualTimeQueue<SimEvent>.Entry?
        while let entry = pending ?? queue.pop() {
            pending = nil
            guard entry.time <= duration else { break }
            if threads > 1 && strategy.independentNodes && Self.isNodeEvent(entry.payload.kind) {
                pending = runWindow(first: entry, duration: duration, lookaheadMs: lookahead)
                continue
            }
            nowMs = entry.time
            let e = entry.payload
            events += 1
            switch e.kind {
            case .message:
                let slot = Int(e.b)
                guard let payload = payloads[slot] else { continue }
                payloads[slot] = nil
                freeSlots.append(e.b)
                let n = Int(e.node)
                guard up[n] else { metrics.droppedOffline += 1; continue }
                ctx.node = n; ctx.nowMs = nowMs
                nodes[n].receive(payload, from: Int(e.a), replica: &replicas[n], &ctx)
                sender = Int(e.a)
                drain(n)
                sender = -1
            case .timer:
                let n = Int(e.node)
                guard up[n], e.c == incarnation[n] else { continue }
                ctx.node = n; ctx.nowMs = nowMs
                nodes[n].timer(e.b, replica: &replicas[n], &ctx)
                drain(n)
            case .localOp:
                localOp(OpRef(e.a))
            case .sample:
                metrics.sample(atMs: nowMs, online: online)
                progress(
                    SimProgress(
                        strategy: strategy.name, strategyIndex: strategyIndex, strategyCount: strategyCount,
                        nowMs: nowMs, durationMs: duration, events: events))
            case .nodeDown:
                let n = Int(e.node)
                guard up[n] else { continue }
                up[n] = false
                incarnation[n] &+= 1
                online -= 1
            case .nodeUp:
                let n = Int(e.node)
                guard !up[n] else { continue }
                up[n] = true
                online += 1
                if e.b == 0 {
                    replicas[n] = Replica(config: world.replicaConfig)
                    metrics.dropAll(node: n)
                }
                nodes[n] = strategy.makeNode(n, world: world)
                ctx.node = n; ctx.nowMs = nowMs
                nodes[n].start(replica: &replicas[n], &ctx)
                drain(n)
            case .partitionStart:
                net.active.append(Int(e.a))
            case .partitionHeal:
                net.active.removeAll { $0 == Int(e.a) }
                metrics.healed(atMs: nowMs)
            }
        }
        return metrics
    }

    mutating func localOp(_ ref: OpRef) {
        let o = world.ops[Int(ref)]
        let n = Int(o.origin)
        guard up[n] else { metrics.notCreated += 1; return }
        metrics.opCreated(ref)
        admit(o.op, ref: ref, at: n)
        ctx.node = n; ctx.nowMs = nowMs
        nodes[n].localUpdate(ref, replica: &replicas[n], &ctx)
        drain(n)
    }

    /// Carries out the directives node `n` just issued.
    mutating func drain(_ n: Int) {
        var i = 0
        while i < ctx.directives.count {
            let d = ctx.directives[i]
            i += 1
            switch d {
            case .send(let payload, let to, let bytes, let ops):
                send(payload, from: n, to: to, bytes: bytes, ops: ops)
            case .deliver(let ref):
                if sender >= 0 { metrics.sighted(node: n, ref: ref, sender: sender) }
                deliver(ref, to: n)
            case .admitted(let op):
                if let ref = world.ref(of: op.id) {
                    if sender >= 0 { metrics.sighted(node: n, ref: ref, sender: sender) }
                    metrics.hold(node: n, ref: ref, nowMs: nowMs)
                }
            case .timer(let after, let tag):
                queue.push(time: nowMs + after, kind: .timer, node: Int32(n), b: tag, c: incarnation[n])
            }
        }
        ctx.directives.removeAll(keepingCapacity: true)
    }

    /// One datagram from `n`: counted, and queued for its arrival unless the network drops it.
    mutating func send(_ payload: Payload, from n: Int, to: Int, bytes: Int, ops: Int) {
        metrics.sent(from: n, bytes: bytes, ops: ops)
        guard to >= 0, to < world.nodeCount, to != n else { return }
        switch net.transmit(from: n, to: to, bytes: bytes, nowMs: nowMs) {
        case .lost: metrics.droppedLoss += 1
        case .partitioned: metrics.droppedPartition += 1
        case .arrives(let at):
            let slot: UInt32
            if let free = freeSlots.popLast() {
                slot = free; payloads[Int(slot)] = payload
            } else {
                slot = UInt32(payloads.count); payloads.append(payload)
            }
            queue.push(time: at, kind: .message, node: Int32(to), a: Int32(n), b: slot)
        }
    }

    /// Verifies (memoized) and admits an op a protocol handed over.
    mutating func deliver(_ ref: OpRef, to n: Int) {
        let o = world.ops[Int(ref)]
        if !verified[Int(ref)] {
            guard (try? memo.open(o.envelope)) != nil else { metrics.rejected[.badSignature, default: 0] += 1; return }
            verified[Int(ref)] = true
        }
        admit(o.op, ref: ref, at: n)
    }

    mutating func admit(_ op: SignedOp, ref: OpRef, at n: Int) {
        record(replicas[n].admit(op, nowMs: wallMs), ref: ref, at: n)
    }

    /// What the replica of `n` said to `ref`, in the metrics.
    mutating func record(_ outcome: AdmitOutcome, ref: OpRef, at n: Int) {
        switch outcome {
        case .admitted(let list):
            metrics.hold(node: n, ref: ref, nowMs: nowMs)
            for extra in list.dropFirst() {
                if let r = world.ref(of: extra.id) { metrics.hold(node: n, ref: r, nowMs: nowMs) }
            }
        case .duplicate: metrics.duplicates += 1
        case .pending: metrics.pendingHeld += 1
        case .rejected(let why, _): metrics.rejected[why, default: 0] += 1
        }
    }
}
