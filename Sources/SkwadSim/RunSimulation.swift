import SkwadModel
import SkwadReplica
import SkwadGossip

/// Everything one strategy's run leaves behind: its report, its time series and the final
/// replicas (tests compare their views).
public struct StrategyOutcome {
    public let report: StrategyReport
    public let samples: [CoverageSample]
    public let replicas: [Replica]
    /// What Skwad's engine held at the end, per live node (nil for the baselines).
    public var footprint: Footprint? = nil
    /// Wall time in the parallel windows' first phase (ParallelWindow.swift), and in all.
    public var parallelSeconds = 0.0, runSeconds = 0.0
}

/// The state a live node of Skwad's engine held at the end of a run, as means per node: what
/// its memory goes to (the CLI prints it beside the peak RSS; docs/BENCHMARKS.md).
public struct Footprint: Sendable {
    public var packs = 0.0, ops = 0.0, sessions = 0.0, peerRecords = 0.0

    static func of(_ nodes: [SkwadGossipNode], replicas: [Replica], up: [Bool]) -> Footprint {
        var f = Footprint()
        var n = 0.0
        for (i, node) in nodes.enumerated() where up[i] {
            n += 1
            f.packs += Double(replicas[i].packCount); f.ops += Double(replicas[i].count)
            f.sessions += Double(node.engine.sessionCount); f.peerRecords += Double(node.engine.peerRecordCount)
        }
        guard n > 0 else { return f }
        f.packs /= n; f.ops /= n; f.sessions /= n; f.peerRecords /= n
        return f
    }
}

/// A whole simulation: the report plus each strategy's outcome.
public struct SimulationResult {
    public let report: SimReport
    public let world: World
    public let outcomes: [StrategyOutcome]

    /// The time series of every strategy as CSV.
    public func csv() -> String { coverageCSV(outcomes.map { ($0.report.strategy, $0.samples) }) }
    /// Coverage over time per strategy as an SVG document.
    public func svg() -> String {
        coverageSVG(
            title: "\(report.scenario): coverage of eligible nodes (seed \(report.seed), \(report.nodes) nodes, \(report.ops) ops)",
            series: outcomes.map { ($0.report.strategy, $0.samples) })
    }
}

/// The library entry point: builds the world of `scenario` for `seed`, runs each of its
/// strategies over it, and reports. `progress` is called at every sample.
public func runSimulation(scenario: Scenario, seed: UInt64, progress: (SimProgress) -> Void = { _ in }) -> SimReport {
    simulate(scenario: scenario, seed: seed, progress: progress).report
}

/// As `runSimulation`, keeping the world, time series and final replicas. `threads`: how
/// many threads run the nodes (the result is the same byte for byte; ParallelWindow.swift).
public func simulate(
    scenario: Scenario, seed: UInt64, threads: Int = 1, progress: (SimProgress) -> Void = { _ in }
) -> SimulationResult {
    let world = World.build(scenario, seed: seed)
    let memo = SignatureMemo()
    var outcomes: [StrategyOutcome] = []
    let kinds = scenario.strategy.strategies
    for (i, kind) in kinds.enumerated() {
        if kind == .skwad {
            var config = GossipConfig()
            config.spread.stemFluff = scenario.strategy.stemFluff
            let strategy = SkwadGossipStrategy(config: config, memo: memo, seed: seed)
            if world.hostile.contains(true) {
                let mixed = HostileStrategy(honest: strategy)
                outcomes.append(
                    runStrategy(mixed, world: world, memo: memo, index: i, of: kinds.count, threads: threads, progress: progress))
            } else {
                outcomes.append(
                    runStrategy(strategy, world: world, memo: memo, index: i, of: kinds.count, threads: threads, progress: progress))
            }
        } else {
            let strategy = BaselineStrategy(
                kind: kind, roundMs: scenario.strategy.roundMs, phase: scenario.strategy.phase,
                k: scenario.strategy.rumorK, seed: seed)
            outcomes.append(
                runStrategy(strategy, world: world, memo: memo, index: i, of: kinds.count, threads: threads, progress: progress))
        }
    }
    let n = Double(max(1, world.ops.count))
    let meanEligible = world.ops.reduce(0) { $0 + world.packs[Int($1.pack)].members.count }
    let checks = memo.counts
    let report = SimReport(
        scenario: scenario.name, seed: seed, nodes: world.nodeCount, packs: world.packs.count,
        lockedPacks: world.packs.filter(\.locked).count, adminPacks: world.packs.filter(\.isAdmin).count,
        ops: world.ops.count, opsSkipped: world.skippedOps, meanEligiblePerOp: rounded(Double(meanEligible) / n),
        durationMs: scenario.durationMs, signatureChecks: checks.real, signatureChecksMemoized: checks.memoized,
        runs: outcomes.map(\.report))
    return SimulationResult(report: report, world: world, outcomes: outcomes)
}

/// Runs one strategy (a baseline, or any engine adapted to `SimProtocol`) over a world.
public func runStrategy<S: SimStrategy>(
    _ strategy: S, world: World, memo: SignatureMemo = SignatureMemo(),
    index: Int = 0, of count: Int = 1, threads: Int = 1,
    progress: (SimProgress) -> Void = { _ in }
) -> StrategyOutcome {
    var sim = Simulator(world: world, strategy: strategy, memo: memo)
    sim.threads = max(1, threads)
    let started = ContinuousClock.now
    let m = sim.run(strategyIndex: index, strategyCount: count, progress: progress)
    let runTime = ContinuousClock.now - started
    var report = strategyReport(strategy: strategy, metrics: m, replicas: sim.replicas, events: sim.events)
    if let mixed = sim.nodes as? [HostileMixedNode] {
        report.hostile = HostileReport.of(mixed, world: world)
        describeLinks(&report, world: world) { mixed[$0].honest?.engine }
    }
    var footprint: Footprint?
    if let gossip = sim.nodes as? [SkwadGossipNode] {
        footprint = .of(gossip, replicas: sim.replicas, up: sim.up)
        describeLinks(&report, world: world) { gossip[$0].engine }
        report.splitPacks = splitPacks(world: world, replicas: sim.replicas, up: sim.up) { gossip[$0].engine.linkPeers }
        var sent: [String: Int] = [:]
        for (n, node) in gossip.enumerated() where sim.up[n] {
            for (k, v) in node.engine.stats.pairs where k.hasPrefix("sent.") || k.hasPrefix("sent_bytes.") { sent[k, default: 0] += v }
        }
        report.engineSent = sent
    }
    var outcome = StrategyOutcome(report: report, samples: m.samples, replicas: sim.replicas, footprint: footprint)
    outcome.parallelSeconds = sim.parallelTime.seconds
    outcome.runSeconds = runTime.seconds
    return outcome
}

/// Skwad's engine: each divergent pack's incomplete members' active links at the end, those
/// of them that are members of the pack, and (hostile runs) those held by adversaries.
func describeLinks(_ report: inout StrategyReport, world: World, engine: (Int) -> GossipEngine?) {
    for i in report.divergentPacks.indices {
        let pack = world.packs[report.divergentPacks[i].pack]
        let links = report.divergentPacks[i].incompleteNodes.map { engine($0)?.activePeers.compactMap(SkwadGossipNode.node) ?? [] }
        report.divergentPacks[i].incompleteLinks = links.map(\.count)
        report.divergentPacks[i].incompleteLinksInPack = links.map { $0.filter { pack.members.contains(Int32($0)) }.count }
        if world.hostile.contains(true) {
            report.divergentPacks[i].incompleteLinksHostile = links.map { $0.filter { world.hostile[$0] }.count }
        }
    }
}

/// Fenced packs live at the end whose honest members up at the end form more than one
/// connected part of the graph whose edges are their links (`links(n)`, undirected).
func splitPacks(world: World, replicas: [Replica], up: [Bool], links: (Int) -> [PeerAddress]) -> Int {
    let endMs = world.scenario.epochMs &+ world.scenario.durationMs
    var split = 0
    for p in world.packs where p.fence != nil {
        let id = world.ops[Int(p.genesis)].op.id
        let members = p.members.map(Int.init).filter { up[$0] && !world.hostile[$0] }
        guard members.count > 1, members.contains(where: { replicas[$0].isLive(id, nowMs: endMs) }) else { continue }
        var part = Dictionary(uniqueKeysWithValues: members.map { ($0, $0) })
        func root(_ x: Int) -> Int {
            var x = x
            while let r = part[x], r != x { part[x] = part[r]; x = r }
            return x
        }
        for m in members {
            for l in links(m) {
                guard let n = SkwadGossipNode.node(l), part[n] != nil else { continue }
                let (a, b) = (root(m), root(n))
                if a != b { part[max(a, b)] = min(a, b) }
            }
        }
        if Set(members.map(root)).count > 1 { split += 1 }
    }
    return split
}

func strategyReport<S: SimStrategy>(strategy: S, metrics m: Metrics, replicas: [Replica], events: Int) -> StrategyReport {
    let world = m.world
    var toFull: [Double] = [], rounds: [Double] = [], missing = 0.0, createdOps = 0
    for (i, o) in world.ops.enumerated() where m.created[i] {
        createdOps += 1
        let eligible = m.eligible(OpRef(i))
        missing += Double(eligible - Int(m.holders[i])) / Double(max(1, eligible))
        guard m.fullAtMs[i] != .max else { continue }
        toFull.append(Double(m.fullAtMs[i] - o.createdMs))
        if let r = strategy.roundMs { rounds.append(Double(m.fullAtMs[i] / r) - Double(o.createdMs / r)) }
    }
    let (identical, checked, divergent) = identicalPacks(world: world, replicas: replicas)
    func traffic(_ perNode: [Int], total: Int) -> Traffic {
        Traffic(total: total, perNodeMean: rounded(Double(total) / Double(max(1, perNode.count))), perNodeMax: perNode.max() ?? 0)
    }
    let rmr = m.remoteDeliveries == 0 ? 0 : Double(m.opCopiesSent) / Double(m.remoteDeliveries) - 1
    return StrategyReport(
        strategy: strategy.name, events: events, opsCreated: m.createdCount, coverage: rounded(m.coverage),
        opsFullyCovered: toFull.count, fullyCoveredFraction: rounded(Double(toFull.count) / Double(max(1, createdOps))),
        residue: rounded(createdOps == 0 ? 0 : missing / Double(createdOps)),
        deliveryLatencyMs: Distribution.of(m.latencies.map(Double.init)), timeToFullCoverageMs: Distribution.of(toFull),
        roundsToFullCoverage: strategy.roundMs == nil ? nil : Distribution.of(rounds),
        messages: traffic(m.messagesSent.map(Int.init), total: m.messagesTotal),
        bytes: traffic(m.bytesSent.map { Int($0) }, total: m.bytesTotal),
        opCopiesSent: m.opCopiesSent, deliveries: m.remoteDeliveries, relativeMessageRedundancy: rounded(rmr),
        duplicatesReceived: m.duplicates, droppedLoss: m.droppedLoss, droppedPartition: m.droppedPartition,
        droppedOffline: m.droppedOffline,
        rejected: Dictionary(uniqueKeysWithValues: m.rejected.map { ($0.key.rawValue, $0.value) }),
        pendingHeld: m.pendingHeld, geofenceLeaks: m.leaks,
        heals: m.heals.map { h in HealReport(healMs: h.healMs, convergedAfterMs: h.convergedAtMs.map { $0 - h.healMs }) },
        packsIdentical: identical, packsChecked: checked, divergentPacks: divergent,
        directoryCoverage: directoryCoverage(world: world, replicas: replicas),
        originPrecision: m.originGuesses == 0 ? nil : rounded(Double(m.originRight) / Double(m.originGuesses)),
        samples: m.samples.count)
}

/// Packs whose members' replicas all hold the same (hlc, id) sequence, and the others.
func identicalPacks(world: World, replicas: [Replica]) -> (identical: Int, checked: Int, divergent: [DivergentPack]) {
    var identical = 0
    var divergent: [DivergentPack] = []
    for (index, p) in world.packs.enumerated() {
        let id = world.ops[Int(p.genesis)].op.id
        let members = p.members.filter { !world.hostile[Int($0)] }
        guard let first = members.first else { identical += 1; continue }
        let reference = replicas[Int(first)].opIDs(inPack: id).map(\.id)
        if members.dropFirst().allSatisfy({ replicas[Int($0)].opIDs(inPack: id).map(\.id) == reference }) { identical += 1; continue }
        let counts = members.map { replicas[Int($0)].opIDs(inPack: id).count }
        let most = counts.max() ?? 0
        var d = DivergentPack(
            pack: index, radiusM: p.fence.map { ($0.radiusMeters * 10).rounded() / 10 }, locked: p.locked,
            members: members.count, ops: most, completeMembers: counts.filter { $0 == most }.count)
        describeMissing(&d, pack: p, id: id, members: members, world: world, replicas: replicas)
        divergent.append(d)
    }
    divergent.sort { a, b in
        Double(a.completeMembers) / Double(a.members) != Double(b.completeMembers) / Double(b.members)
            ? Double(a.completeMembers) / Double(a.members) < Double(b.completeMembers) / Double(b.members) : a.pack < b.pack
    }
    return (identical, world.packs.count, Array(divergent.prefix(20)))
}

/// What the incomplete members of a divergent pack miss, against the union of the members' ops.
func describeMissing(_ d: inout DivergentPack, pack p: SimPack, id: PackID, members: [Int32], world: World, replicas: [Replica]) {
    var union = Set<OpID>()
    for m in members { for item in replicas[Int(m)].opIDs(inPack: id) { union.insert(item.id) } }
    var oldest = UInt64.max, newest = UInt64(0)
    for m in members {
        let r = replicas[Int(m)]
        let held = Set(r.opIDs(inPack: id).map(\.id))
        guard held.count < union.count else { continue }
        if r.pack(id) == nil { d.membersWithoutGenesis += 1 }
        if r.pendingCount > 0 { d.incompleteWithPending += 1 }
        for op in union where !held.contains(op) {
            d.missingPairs += 1
            if let ref = world.ref(of: op) {
                oldest = min(oldest, world.ops[Int(ref)].createdMs); newest = max(newest, world.ops[Int(ref)].createdMs)
            }
        }
        if d.incompleteSlackM.count < 8, let fence = p.fence {
            let n = Int(m)
            let slack = fence.radiusMeters - fence.center.distance(to: world.geography.cellCenters[n]) - world.geography.cellRadii[n]
            d.incompleteSlackM.append((slack * 10).rounded() / 10)
        }
        if d.incompleteNodes.count < 8 { d.incompleteNodes.append(Int(m)) }
    }
    if oldest != .max { d.oldestMissingCreatedMs = oldest; d.newestMissingCreatedMs = newest }
}

/// Of the packs each late joiner should know at the end (the directory rule of PROTOCOL
/// §11a, from its announced cell), the share it holds the genesis of. Nil without late joiners.
func directoryCoverage(world: World, replicas: [Replica]) -> Double? {
    let late = world.churn.late
    guard !late.isEmpty else { return nil }
    let endMs = world.scenario.epochMs &+ world.scenario.durationMs
    var should = 0, known = 0
    for p in world.packs {
        let genesis = world.ops[Int(p.genesis)]
        guard genesis.createdMs <= world.scenario.durationMs else { continue }
        let id = genesis.op.id
        // Live at the end as some replica sees it (expiry depends on participants).
        guard replicas.contains(where: { $0.isLive(id, nowMs: endMs) }) else { continue }
        let entry = PackScope(id: id, fence: p.fence, locked: p.locked)
        for n in late.map(Int.init) where GossipEngine.inDirectory(entry, of: NodeInfo(cell: world.cell(of: n))) {
            should += 1
            if replicas[n].pack(id) != nil { known += 1 }
        }
    }
    return should == 0 ? 1 : rounded(Double(known) / Double(should))
}

extension Duration {
    /// In seconds, as a `Double`.
    public var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
