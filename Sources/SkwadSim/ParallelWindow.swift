import Dispatch
import SkwadLab
import SkwadModel
import SkwadReplica

/// The simulator on several threads, with the same result byte for byte as on one.
///
/// No message arrives sooner than `lookaheadMs` after it is sent (the network's smallest
/// delay), so the messages and timers due in a window of that length touch each node
/// independently: what one node does inside the window cannot reach another before it ends.
/// A window is run in two phases:
/// 1. **Each node on its own** (the nodes shared among threads): its events of the window in
///    their order, and the timers it sets that fall due inside the window, each call's
///    directives kept. A node changes only its own state and replica here.
/// 2. **Everything shared, in the sequential order:** the kept directives carried out event
///    by event in (time, sequence) order, timers set inside the window taking the sequence
///    numbers they would have had, so that metrics, the network's random draws and the
///    queue's order are those of the one-thread loop.
/// An event of any other kind (an op made, a sample, churn, a partition) ends the window and
/// runs alone. Only strategies whose nodes share no state (`SimStrategy.independentNodes`)
/// run this way.
extension Simulator {
    /// Below this many events a window runs on the calling thread (still in two phases).
    static var minParallelEvents: Int { 64 }

    /// One call into a node inside a window: what it was, and what it left to carry out.
    struct Call {
        enum Outcome { case ran, offline, stale }
        var outcome = Outcome.ran
        var directives: [SimDirective<Payload>] = []
        /// Per `.deliver` directive, in order: what the replica said (nil: a bad signature).
        var admits: [AdmitOutcome?] = []
        /// Per `.timer` directive due inside the window, in order: the call it became.
        var children: [Int] = []
    }

    /// A timer set inside the window and due inside it, waiting in a node's own order (its
    /// heap entry holds the time, and the order it was set in as the sequence number).
    struct LocalTimer { var tag: UInt32; var call: Int }

    static func isNodeEvent(_ k: SimEvent.Kind) -> Bool { k == .message || k == .timer }

    /// Runs the window that `first` opens. Returns an event that ended the window early, to
    /// be run alone next.
    mutating func runWindow(
        first: VirtualTimeQueue<SimEvent>.Entry, duration: UInt64, lookaheadMs: UInt64
    ) -> VirtualTimeQueue<SimEvent>.Entry? {
        var batch = [first]
        var breaker: VirtualTimeQueue<SimEvent>.Entry?
        let end = min(first.time &+ lookaheadMs, duration &+ 1)
        while let t = queue.peekTime, t < end, let e = queue.pop() {
            if Self.isNodeEvent(e.payload.kind) { batch.append(e) } else { breaker = e; break }
        }
        let windowEnd = breaker?.time ?? end

        // Phase 1: each node on its own.
        // Per node of the window (its slot): its events; per event: its node's slot and its
        // place among them.
        var slotOf: [Int32: Int] = [:]
        var order: [Int32] = []
        var eventsOf: [[Int]] = []
        var place: [(slot: Int, index: Int)] = []
        place.reserveCapacity(batch.count)
        for (i, e) in batch.enumerated() {
            if let s = slotOf[e.payload.node] {
                place.append((s, eventsOf[s].count))
                eventsOf[s].append(i)
            } else {
                place.append((order.count, 0))
                slotOf[e.payload.node] = order.count; order.append(e.payload.node); eventsOf.append([i])
            }
        }
        let phaseStart = ContinuousClock.now
        let calls = runNodes(batch: batch, windowEnd: windowEnd, order: order, eventsOf: eventsOf)
        parallelTime += ContinuousClock.now - phaseStart

        // Phase 2: the shared state, in the sequential order.
        var local = TimeHeap<(node: Int32, call: Int)>()
        var next = 0
        while true {
            let fromBatch: Bool
            if next < batch.count, let t = local.peekTime {
                let b = batch[next], l = local.peek!
                fromBatch = b.time != t ? b.time < t : b.seq < l.seq
            } else if next < batch.count {
                fromBatch = true
            } else if local.peekTime != nil {
                fromBatch = false
            } else {
                break
            }
            let node: Int32, call: Call, time: UInt64
            var from = -1
            if fromBatch {
                let e = batch[next]
                next += 1
                node = e.payload.node; time = e.time
                call = calls[place[next - 1].slot][place[next - 1].index]
                if e.payload.kind == .message, payloads[Int(e.payload.b)] != nil {
                    payloads[Int(e.payload.b)] = nil
                    freeSlots.append(e.payload.b)
                    from = Int(e.payload.a)
                }
            } else {
                let l = local.pop()!
                node = l.payload.node; time = l.time
                call = calls[slotOf[node]!][l.payload.call]
            }
            nowMs = time
            events += 1
            switch call.outcome {
            case .stale: continue
            case .offline: metrics.droppedOffline += 1; continue
            case .ran: break
            }
            sender = from
            replay(call, node: Int(node), windowEnd: windowEnd, local: &local)
            sender = -1
        }
        return breaker
    }

    /// Phase 1 over every node of the window, on up to `threads` threads. What it reads of
    /// the simulator is copied into `Shared` for the call only (a copy kept alive into phase 2
    /// would make its first write copy the whole array).
    private mutating func runNodes(
        batch: [VirtualTimeQueue<SimEvent>.Entry], windowEnd: UInt64, order: [Int32], eventsOf: [[Int]]
    ) -> [[Call]] {
        var calls = [[Call]](repeating: [], count: order.count)
        let threads = batch.count < Self.minParallelEvents ? 1 : min(self.threads, order.count)
        let shared = Shared(
            world: world, memo: memo, up: up, incarnation: incarnation, payloads: payloads, verified: verified,
            batch: batch, windowEnd: windowEnd)
        let work = (order: order, eventsOf: eventsOf)
        nodes.withUnsafeMutableBufferPointer { nodeBuf in
            replicas.withUnsafeMutableBufferPointer { replicaBuf in
                calls.withUnsafeMutableBufferPointer { callBuf in
                    // Each thread takes every `threads`-th node of the window: no two touch one.
                    let lanes = Lanes(nodes: nodeBuf.baseAddress!, replicas: replicaBuf.baseAddress!, calls: callBuf.baseAddress!)
                    DispatchQueue.concurrentPerform(iterations: threads) { thread in
                        var ctx = SimContext<Payload>(world: shared.world)
                        var s = thread
                        while s < work.order.count {
                            let n = Int(work.order[s])
                            lanes.calls[s] = Self.runNode(
                                n, events: work.eventsOf[s], shared, node: &lanes.nodes[n], replica: &lanes.replicas[n], ctx: &ctx)
                            s += threads
                        }
                    }
                }
            }
        }

        return calls
    }

    /// Where phase 1 writes: each node's state and replica, each window slot's calls. Threads
    /// write disjoint elements only.
    struct Lanes: @unchecked Sendable {
        let nodes: UnsafeMutablePointer<S.Node>
        let replicas: UnsafeMutablePointer<Replica>
        let calls: UnsafeMutablePointer<[Call]>
    }

    /// What phase 1 reads of the simulator (nothing writes it then).
    struct Shared: @unchecked Sendable {
        let world: World
        let memo: SignatureMemo
        let up: [Bool]
        let incarnation: [UInt32]
        let payloads: [Payload?]
        let verified: [Bool]
        let batch: [VirtualTimeQueue<SimEvent>.Entry]
        let windowEnd: UInt64
    }

    /// Phase 1 for one node: its events of the window and the timers it sets inside it, in
    /// its own order (at one time, the window's events before timers set inside it, which
    /// would have been pushed after them; those timers by when they were set).
    private static func runNode(
        _ n: Int, events: [Int], _ shared: Shared, node: inout S.Node, replica: inout Replica, ctx: inout SimContext<Payload>
    ) -> [Call] {
        let batch = shared.batch, windowEnd = shared.windowEnd
        var calls: [Call] = Array(repeating: Call(), count: events.count)
        var timers = TimeHeap<LocalTimer>()
        var set = 0
        var next = 0
        while next < events.count || timers.peekTime != nil {
            let index: Int
            let time: UInt64
            if next < events.count, timers.peekTime.map({ batch[events[next]].time <= $0 }) ?? true {
                let e = batch[events[next]]
                index = next; time = e.time
                next += 1
                ctx.node = n; ctx.nowMs = time
                switch e.payload.kind {
                case .message:
                    guard let payload = shared.payloads[Int(e.payload.b)] else { calls[index].outcome = .stale; continue }
                    guard shared.up[n] else { calls[index].outcome = .offline; continue }
                    node.receive(payload, from: Int(e.payload.a), replica: &replica, &ctx)
                default:
                    guard shared.up[n], e.payload.c == shared.incarnation[n] else { calls[index].outcome = .stale; continue }
                    node.timer(e.payload.b, replica: &replica, &ctx)
                }
            } else {
                let t = timers.pop()!
                index = t.payload.call; time = t.time
                ctx.node = n; ctx.nowMs = time
                node.timer(t.payload.tag, replica: &replica, &ctx)
            }
            for d in ctx.directives {
                switch d {
                case .deliver(let ref): calls[index].admits.append(admitHere(ref, shared, replica: &replica, nowMs: time))
                case .timer(let after, let tag) where time &+ after < windowEnd:
                    calls[index].children.append(calls.count)
                    timers.push(time: time &+ after, seq: UInt64(set), LocalTimer(tag: tag, call: calls.count))
                    calls.append(Call())
                    set += 1
                default: break
                }
            }
            calls[index].directives = ctx.directives
            ctx.directives.removeAll(keepingCapacity: true)
        }
        return calls
    }

    /// `deliver` without what is shared: the signature check (not counted) and the replica.
    private static func admitHere(_ ref: OpRef, _ shared: Shared, replica: inout Replica, nowMs: UInt64) -> AdmitOutcome? {
        let o = shared.world.ops[Int(ref)]
        if !shared.verified[Int(ref)] {
            guard (try? shared.memo.check(o.envelope)) != nil else { return nil }
        }
        return replica.admit(o.op, nowMs: shared.world.scenario.epochMs &+ nowMs)
    }

    /// Phase 2 for one call: its directives carried out as `drain` would, with what phase 1
    /// decided (the replica's answers, the timers kept inside the window).
    private mutating func replay(_ call: Call, node n: Int, windowEnd: UInt64, local: inout TimeHeap<(node: Int32, call: Int)>) {
        var admits = call.admits.makeIterator()
        var children = call.children.makeIterator()
        for d in call.directives {
            switch d {
            case .send(let payload, let to, let bytes, let ops):
                send(payload, from: n, to: to, bytes: bytes, ops: ops)
            case .deliver(let ref):
                if sender >= 0 { metrics.sighted(node: n, ref: ref, sender: sender) }
                let outcome = admits.next()!
                if !verified[Int(ref)] {
                    guard outcome != nil else { metrics.rejected[.badSignature, default: 0] += 1; continue }
                    memo.count(world.ops[Int(ref)].op.id)
                    verified[Int(ref)] = true
                }
                record(outcome!, ref: ref, at: n)
            case .admitted(let op):
                if let ref = world.ref(of: op.id) {
                    if sender >= 0 { metrics.sighted(node: n, ref: ref, sender: sender) }
                    metrics.hold(node: n, ref: ref, nowMs: nowMs)
                }
            case .timer(let after, let tag):
                if nowMs &+ after < windowEnd {
                    local.push(time: nowMs &+ after, seq: queue.reserveSeq(), (node: Int32(n), call: children.next()!))
                } else {
                    queue.push(time: nowMs + after, kind: .timer, node: Int32(n), b: tag, c: incarnation[n])
                }
            }
        }
    }
}
