/// Who misbehaves in a hostile scenario (`[hostile]`), fixed before the run like the rest
/// of the world: round(fraction × nodes) adversaries drawn among the nodes that author no
/// op (an adversary withholding its own ops would only hide what no honest node could get
/// anyway), and `eclipseTargets` honest nodes they collude against.
enum HostilePlan {
    static func draw(_ s: Scenario, seed: UInt64, nodes n: Int, ops: [SimOp]) -> (hostile: [Bool], targets: [NodeID]) {
        var hostile = [Bool](repeating: false, count: n)
        let want = Int((s.hostile.fraction * Double(n)).rounded())
        guard want > 0 else { return (hostile, []) }
        var authors = [Bool](repeating: false, count: n)
        for o in ops { authors[Int(o.origin)] = true }
        var rng = SimRandom.stream(seed, 300)
        var pool = (0..<n).filter { !authors[$0] }
        shuffle(&pool, &rng)
        for i in pool.prefix(want) { hostile[i] = true }
        var honest = (0..<n).filter { !hostile[$0] }
        shuffle(&honest, &rng)
        return (hostile, Array(honest.prefix(min(s.hostile.eclipseTargets, honest.count))))
    }

    static func shuffle(_ a: inout [Int], _ rng: inout SimRandom) {
        guard a.count > 1 else { return }
        for i in stride(from: a.count - 1, to: 0, by: -1) { a.swapAt(i, rng.below(i + 1)) }
    }
}
