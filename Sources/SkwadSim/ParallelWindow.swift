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

    /// One call into a node inside a window: what it was, and where what it left to carry
    /// out waits in its lane (plain indices: phase 2 copies a call without touching the heap).
    struct Call {
        enum Outcome: UInt8 { case ran, offline, stale }
        var outcome = Outcome.ran
        /// Its directives: `lane.directives[directives]`.
        var directives: Range<Int32> = 0..<0
        /// Per `.deliver` directive, in order, from here on: what the replica said (nil: a
        /// bad signature).
        var admits: Int32 = 0
        /// Per `.timer` directive due inside the window, in order, from here on: the call it
        /// became (its index among its node's calls).
        var children: Int32 = 0
    }

    /// What one thread of phase 1 leaves for phase 2, for every node it ran in the window:
    /// flat arrays, kept from window to window, so that phase 2 reads calls without reference
    /// counting (arrays per call, allocated on a worker thread and released on the main one,
    /// would cost more than the phase's work).
    struct Lane {
        var ctx: SimContext<Payload>
        /// The calls of each node the lane ran, a node's calls contiguous (`callBase`).
        var calls: [Call] = []
        var admits: [AdmitOutcome?] = []
        var children: [Int32] = []

        init(world: World) { ctx = SimContext(world: world) }

        mutating func clear() {
            ctx.directives.removeAll(keepingCapacity: true)
            calls.removeAll(keepingCapacity: true)
            admits.removeAll(keepingCapacity: true)
            children.removeAll(keepingCapacity: true)
        }
    }

    /// A window's nodes and their events: node `order[s]` holds slot `s`, its events are
    /// `batch[eventIndex[eventStart[s]..<eventStart[s + 1]]]` in order, and its calls start
    /// at `lanes[s % lanesUsed].calls[callBase[s]]`.
    struct Slots {
        var order: [Int32] = []
        var eventStart: [Int] = []
        var eventIndex: [Int] = []
        /// Per batch event: its slot and its place among its node's events.
        var place: [(slot: Int32, index: Int32)] = []
        var callBase: [Int] = []

        mutating func clear() {
            order.removeAll(keepingCapacity: true)
            eventStart.removeAll(keepingCapacity: true)
            eventIndex.removeAll(keepingCapacity: true)
            place.removeAll(keepingCapacity: true)
            callBase.removeAll(keepingCapacity: true)
        }
    }

    /// A timer set inside the window and due inside it, waiting in a node's own order (its
    /// heap entry holds the time, and the order it was set in as the sequence number).
    struct LocalTimer { var tag: UInt32; var call: Int32 }

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

        // Phase 1: each node on its own. Slots in order of first appearance; events grouped
        // by slot, in batch order (a counting sort: `eventStart` counts each slot's events,
        // then becomes their offsets). The slots are taken out of `self` for the window, as
        // `runNodes` writes them while it changes the simulator.
        var slots = self.slots
        self.slots = Slots()
        slots.clear()
        slots.place.reserveCapacity(batch.count)
        for e in batch {
            let n = Int(e.payload.node)
            var s = slotOfNode[n]
            if s < 0 {
                s = Int32(slots.order.count)
                slotOfNode[n] = s
                slots.order.append(e.payload.node)
                slots.eventStart.append(0)
            }
            slots.place.append((s, Int32(slots.eventStart[Int(s)])))
            slots.eventStart[Int(s)] += 1
        }
        var total = 0
        for s in slots.eventStart.indices { (slots.eventStart[s], total) = (total, total + slots.eventStart[s]) }
        slots.eventStart.append(total)
        slots.eventIndex.append(contentsOf: repeatElement(0, count: batch.count))
        for (i, p) in slots.place.enumerated() { slots.eventIndex[slots.eventStart[Int(p.slot)] + Int(p.index)] = i }
        slots.callBase.append(contentsOf: repeatElement(0, count: slots.order.count))

        let phaseStart = ContinuousClock.now
        let used = runNodes(batch: batch, windowEnd: windowEnd, slots: &slots)
        parallelTime += ContinuousClock.now - phaseStart

        // Phase 2: the shared state, in the sequential order.
        var local = TimeHeap<(slot: Int32, call: Int32)>()
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
            let slot: Int, index: Int, time: UInt64
            var from = -1
            if fromBatch {
                let e = batch[next]
                let p = slots.place[next]
                next += 1
                slot = Int(p.slot); index = Int(p.index); time = e.time
                if e.payload.kind == .message, payloads[Int(e.payload.b)] != nil {
                    payloads[Int(e.payload.b)] = nil
                    freeSlots.append(e.payload.b)
                    from = Int(e.payload.a)
                }
            } else {
                let l = local.pop()!
                slot = Int(l.payload.slot); index = Int(l.payload.call); time = l.time
            }
            let lane = slot % used
            let call = lanes[lane].calls[slots.callBase[slot] + index]
            nowMs = time
            events += 1
            switch call.outcome {
            case .stale: continue
            case .offline: metrics.droppedOffline += 1; continue
            case .ran: break
            }
            sender = from
            replay(call, lane: lane, slot: slot, node: Int(slots.order[slot]), windowEnd: windowEnd, local: &local)
            sender = -1
        }
        for n in slots.order { slotOfNode[Int(n)] = -1 }
        for l in 0..<used { lanes[l].clear() }
        self.slots = slots
        return breaker
    }

    /// Phase 1 over every node of the window, on up to `threads` threads, each writing its
    /// own lane. What it reads of the simulator is copied into `Shared` for the call only (a
    /// copy kept alive into phase 2 would make its first write copy the whole array).
    /// Returns how many lanes it used (slot `s` ran on lane `s % used`).
    private mutating func runNodes(batch: [VirtualTimeQueue<SimEvent>.Entry], windowEnd: UInt64, slots: inout Slots) -> Int {
        let threads = batch.count < Self.minParallelEvents ? 1 : min(self.threads, slots.order.count)
        while lanes.count < threads { lanes.append(Lane(world: world)) }
        let shared = Shared(
            world: world, memo: memo, up: up, incarnation: incarnation, payloads: payloads, verified: verified,
            batch: batch, windowEnd: windowEnd)
        let work = (order: slots.order, eventStart: slots.eventStart, eventIndex: slots.eventIndex)
        nodes.withUnsafeMutableBufferPointer { nodeBuf in
            replicas.withUnsafeMutableBufferPointer { replicaBuf in
                lanes.withUnsafeMutableBufferPointer { laneBuf in
                    slots.callBase.withUnsafeMutableBufferPointer { baseBuf in
                        // Each thread takes every `threads`-th node of the window: no two touch one.
                        let w = Writes(
                            nodes: nodeBuf.baseAddress!, replicas: replicaBuf.baseAddress!, lanes: laneBuf.baseAddress!,
                            callBase: baseBuf.baseAddress!)
                        DispatchQueue.concurrentPerform(iterations: threads) { thread in
                            var s = thread
                            while s < work.order.count {
                                let n = Int(work.order[s])
                                w.callBase[s] = w.lanes[thread].calls.count
                                Self.runNode(
                                    n, events: work.eventIndex[work.eventStart[s]..<work.eventStart[s + 1]], shared,
                                    node: &w.nodes[n], replica: &w.replicas[n], lane: &w.lanes[thread])
                                s += threads
                            }
                        }
                    }
                }
            }
        }
        return threads
    }

    /// Where phase 1 writes: each node's state and replica, each thread's lane, each slot's
    /// first call. Threads write disjoint elements only.
    struct Writes: @unchecked Sendable {
        let nodes: UnsafeMutablePointer<S.Node>
        let replicas: UnsafeMutablePointer<Replica>
        let lanes: UnsafeMutablePointer<Lane>
        let callBase: UnsafeMutablePointer<Int>
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
    /// would have been pushed after them; those timers by when they were set). Its calls go
    /// to the end of the lane's, the window's events first, in order.
    private static func runNode(
        _ n: Int, events: ArraySlice<Int>, _ shared: Shared, node: inout S.Node, replica: inout Replica, lane: inout Lane
    ) {
        let batch = shared.batch, windowEnd = shared.windowEnd
        let base = lane.calls.count
        lane.calls.append(contentsOf: repeatElement(Call(), count: events.count))
        var timers = TimeHeap<LocalTimer>()
        var set = 0
        var next = events.startIndex
        while next < events.endIndex || timers.peekTime != nil {
            let index: Int
            let time: UInt64
            let first = Int32(lane.ctx.directives.count)
            if next < events.endIndex, timers.peekTime.map({ batch[events[next]].time <= $0 }) ?? true {
                let e = batch[events[next]]
                index = next - events.startIndex; time = e.time
                next += 1
                lane.ctx.node = n; lane.ctx.nowMs = time
                switch e.payload.kind {
                case .message:
                    guard let payload = shared.payloads[Int(e.payload.b)] else { lane.calls[base + index].outcome = .stale; continue }
                    guard shared.up[n] else { lane.calls[base + index].outcome = .offline; continue }
                    node.receive(payload, from: Int(e.payload.a), replica: &replica, &lane.ctx)
                default:
                    guard shared.up[n], e.payload.c == shared.incarnation[n] else {
                        lane.calls[base + index].outcome = .stale
                        continue
                    }
                    node.timer(e.payload.b, replica: &replica, &lane.ctx)
                }
            } else {
                let t = timers.pop()!
                index = Int(t.payload.call); time = t.time
                lane.ctx.node = n; lane.ctx.nowMs = time
                node.timer(t.payload.tag, replica: &replica, &lane.ctx)
            }
            let last = lane.ctx.directives.count
            lane.calls[base + index].directives = first..<Int32(last)
            lane.calls[base + index].admits = Int32(lane.admits.count)
            lane.calls[base + index].children = Int32(lane.children.count)
            for i in Int(first)..<last {
                switch lane.ctx.directives[i] {
                case .deliver(let ref): lane.admits.append(admitHere(ref, shared, replica: &replica, nowMs: time))
                case .timer(let after, let tag) where time &+ after < windowEnd:
                    let child = Int32(lane.calls.count - base)
                    lane.children.append(child)
                    timers.push(time: time &+ after, seq: UInt64(set), LocalTimer(tag: tag, call: child))
                    lane.calls.append(Call())
                    set += 1
                default: break
                }
            }
        }
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
    private mutating func replay(
        _ call: Call, lane l: Int, slot: Int, node n: Int, windowEnd: UInt64, local: inout TimeHeap<(slot: Int32, call: Int32)>
    ) {
        var admit = Int(call.admits)
        var child = Int(call.children)
        for i in Int(call.directives.lowerBound)..<Int(call.directives.upperBound) {
            switch lanes[l].ctx.directives[i] {
            case .send(let payload, let to, let bytes, let ops):
                send(payload, from: n, to: to, bytes: bytes, ops: ops)
            case .deliver(let ref):
                if sender >= 0 { metrics.sighted(node: n, ref: ref, sender: sender) }
                let outcome = lanes[l].admits[admit]
                admit += 1
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
                    local.push(time: nowMs &+ after, seq: queue.reserveSeq(), (slot: Int32(slot), call: lanes[l].children[child]))
                    child += 1
                } else {
                    queue.push(time: nowMs + after, kind: .timer, node: Int32(n), b: tag, c: incarnation[n])
                }
            }
        }
    }
}
