/// When churning nodes go down and come back, drawn once per (scenario, seed) so that every
/// strategy compared sees the same outages.
struct ChurnSchedule: Sendable {
    struct Change: Sendable {
        var timeMs: UInt64
        var node: Int32
        var up: Bool
        /// On the way back up: whether the node kept its data.
        var keepData: Bool
    }
    /// Sorted by time, then node.
    var changes: [Change] = []
    /// Per node, its down intervals [from, to) (empty for nodes that never churn).
    var down: [[(from: UInt64, to: UInt64)]] = []

    static func draw(_ s: Scenario, seed: UInt64) -> ChurnSchedule {
        var out = ChurnSchedule()
        out.down = Array(repeating: [], count: s.nodes.count)
        guard let c = s.churn, c.fraction > 0 else { out.addLateJoiners(s, seed: seed); return out }
        var rng = SimRandom.stream(seed, 2)
        for node in 0..<s.nodes.count where rng.chance(c.fraction) {
            var t = Double(c.startMs) + rng.exponential(mean: c.meanUpMs)
            while t < Double(c.endMs) {
                let from = UInt64(t)
                let back = min(Double(c.endMs), t + max(1, rng.exponential(mean: c.meanDownMs)))
                let to = max(from + 1, UInt64(back))
                let keep = rng.chance(c.keepData)
                out.down[node].append((from, to))
                out.changes.append(Change(timeMs: from, node: Int32(node), up: false, keepData: keep))
                out.changes.append(Change(timeMs: to, node: Int32(node), up: true, keepData: keep))
                t = Double(to) + rng.exponential(mean: c.meanUpMs)
            }
        }
        out.changes.sort { ($0.timeMs, $0.node, $0.up ? 1 : 0) < ($1.timeMs, $1.node, $1.up ? 1 : 0) }
        out.addLateJoiners(s, seed: seed)
        return out
    }

    /// Nodes offline and empty from the start until `lateJoinMs` (drawn from their own
    /// stream, among nodes that do not churn, so other draws stay as they were).
    var late: [Int32] = []

    mutating func addLateJoiners(_ s: Scenario, seed: UInt64) {
        guard s.nodes.late > 0, s.nodes.lateJoinMs > 0 else { return }
        var rng = SimRandom.stream(seed, 6)
        for node in 0..<s.nodes.count where down[node].isEmpty && rng.chance(s.nodes.late) {
            late.append(Int32(node))
            down[node].append((0, s.nodes.lateJoinMs))
            changes.append(Change(timeMs: s.nodes.lateJoinMs, node: Int32(node), up: true, keepData: false))
        }
        changes.sort { ($0.timeMs, $0.node, $0.up ? 1 : 0) < ($1.timeMs, $1.node, $1.up ? 1 : 0) }
    }

    func isUp(_ node: Int, at t: UInt64) -> Bool {
        for d in down[node] where t >= d.from && t < d.to { return false }
        return true
    }
}

/// Which group each node falls in, per partition.
struct PartitionPlan: Sendable {
    var groups: [[UInt16]] = []

    static func draw(_ s: Scenario, geography g: Geography, seed: UInt64) -> PartitionPlan {
        var rng = SimRandom.stream(seed, 3)
        var plan = PartitionPlan()
        let n = s.nodes.count
        for p in s.partitions {
            var group = [UInt16](repeating: 0, count: n)
            switch p.by {
            case .random:
                for i in 0..<n { group[i] = UInt16(rng.below(p.groups)) }
            case .longitude:
                let order = (0..<n).sorted { (g.locations[$0].lon, $0) < (g.locations[$1].lon, $1) }
                for (rank, i) in order.enumerated() { group[i] = UInt16(rank * p.groups / n) }
            case .campus:
                // Nodes of campus c go to group c mod groups; background nodes by longitude band.
                let order = (0..<n).sorted { (g.locations[$0].lon, $0) < (g.locations[$1].lon, $1) }
                for (rank, i) in order.enumerated() {
                    let c = g.campusOf[i]
                    group[i] = c >= 0 ? UInt16(Int(c) % p.groups) : UInt16(rank * p.groups / n)
                }
            }
            plan.groups.append(group)
        }
        return plan
    }
}
