import SkwadModel
import SkwadReplica
@testable import SkwadSim

/// A small campus world: two campuses, fenced packs (half locked, one admin), a workload of
/// posts, comments and votes. Tests add a network, partitions or churn with overrides.
let smallCampus = """
    name = "small-campus"
    duration_ms = 60_000
    sample_ms = 1_000

    [nodes]
    count = 160
    placement = "campuses"
    background = 0.1
    box = [40.42, -80.00, 40.46, -79.92]

    [[campus]]
    name = "west"
    center = [40.4433, -79.9436]
    radius_m = 600

    [[campus]]
    name = "east"
    center = [40.4445, -79.9530]
    radius_m = 500

    [packs]
    initial = 8
    radius_m = [300, 900]
    locked = 0.5
    admin = 1
    admin_radius_m = 1500

    [workload]
    start_ms = 1_000
    end_ms = 20_000
    posts_per_node_hour = 30
    comments_per_node_hour = 30
    votes_per_node_hour = 60
    max_ops = 400

    [strategy]
    strategies = ["push-pull"]
    """

func scenario(_ text: String = smallCampus, _ overrides: [String] = []) throws -> Scenario {
    try Scenario.load(tomlText: text, overrides: overrides)
}

/// For every pack, do all its members show the same feed and hold the same op set? With
/// `complete`, they must also hold every op of the pack; otherwise ops held by nobody at the
/// end are tolerated (their origin lost its data before passing them on), and returned.
func packViewsIdentical(_ world: World, _ replicas: [Replica], complete: Bool = true) -> (identical: Int, total: Int, lost: [OpRef]) {
    let now = world.scenario.epochMs + world.scenario.durationMs
    var same = 0
    var lost: [OpRef] = []
    for p in world.packs {
        let id = world.ops[Int(p.genesis)].op.id
        let first = Int(p.members[0])
        let feed = replicas[first].feed(packs: [id], sort: .new, limit: 10_000, nowMs: now)
        let ids = replicas[first].opIDs(inPack: id).map(\.id)
        let ok = p.members.allSatisfy { m in
            replicas[Int(m)].feed(packs: [id], sort: .new, limit: 10_000, nowMs: now) == feed
                && replicas[Int(m)].opIDs(inPack: id).map(\.id) == ids
        }
        let held = Set(ids)
        let missing = p.ops.filter { !held.contains(world.ops[Int($0)].op.id) }
        lost += missing
        if ok && (!complete || missing.isEmpty) { same += 1 }
    }
    return (same, world.packs.count, lost)
}
