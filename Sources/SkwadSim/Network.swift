import Foundation
import SkwadModel
import SkwadLab

/// The simulated network: a delay line with loss, an uplink cap per node and partitions.
/// See the fidelity boundary at the top of the module. A `LinkModel`: an `InMemoryNetwork`
/// (SkwadTestKit) can run engines over it as the simulator does.
struct NetworkModel: LinkModel {

    let cfg: Scenario.Network
    let locations: [GeoPoint]
    let groups: [[UInt16]]
    var rng: SimRandom
    /// When each node's uplink is free again, in virtual microseconds.
    var busyUntilUs: [UInt64]
    /// Indices of the partitions in force.
    var active: [Int] = []

    init(scenario: Scenario, world: World, seed: UInt64) {
        cfg = scenario.network
        locations = world.geography.locations
        groups = world.partitions.groups
        rng = SimRandom.stream(seed, 7)
        busyUntilUs = cfg.bandwidthBytesPerSecond > 0 ? Array(repeating: 0, count: scenario.nodes.count) : []
    }

    /// One-way delay between two nodes, in whole ms (at least 1).
    mutating func latencyMs(_ from: Int, _ to: Int) -> UInt64 {
        var ms = cfg.baseLatencyMs
        if cfg.msPerKm > 0 { ms += cfg.msPerKm * locations[from].distance(to: locations[to]) / 1000 }
        if cfg.jitterMs > 0 { ms += cfg.jitterMs * rng.unit() }
        return max(1, UInt64(ms.rounded(.up)))
    }

    /// Sends `bytes` from one node to another at `nowMs`: when it arrives, or why not.
    mutating func transmit(from: Int, to: Int, bytes: Int, nowMs: UInt64) -> LinkFate {
        var departMs = nowMs
        if !busyUntilUs.isEmpty {
            let startUs = max(nowMs * 1000, busyUntilUs[from])
            let doneUs = startUs + UInt64((Double(bytes) * 1_000_000 / cfg.bandwidthBytesPerSecond).rounded(.up))
            busyUntilUs[from] = doneUs
            departMs = (doneUs + 999) / 1000
        }
        for p in active where groups[p][from] != groups[p][to] { return .partitioned }
        if cfg.loss > 0 && rng.chance(cfg.loss) { return .lost }
        return .arrives(departMs + latencyMs(from, to))
    }
}
