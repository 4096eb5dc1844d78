import Foundation

extension Scenario {
    /// Parses a scenario from TOML text, after applying `--set KEY=VALUE` overrides. Unknown
    /// keys are errors that name the key; so are values of the wrong type or range.
    public static func load(tomlText: String, overrides: [String] = []) throws -> Scenario {
        var root = try TomlValue.parse(tomlText)
        try applyOverrides(overrides, to: &root)
        var r = TableReader(root, path: "")
        var s = Scenario()
        s.name = try r.string("name", s.name)
        s.durationMs = try r.ms("duration_ms", s.durationMs)
        s.sampleMs = try r.ms("sample_ms", s.sampleMs)
        s.epochMs = try r.ms("epoch_ms", s.epochMs)
        s.geohashPrecision = try r.int("geohash_precision", s.geohashPrecision, 1...12)
        if var t = try r.subtable("nodes") {
            s.nodes.count = try t.int("count", s.nodes.count, 1...1_000_000)
            s.nodes.placement = try t.choice("placement", s.nodes.placement)
            if let b = try t.numbers("box", count: 4) {
                guard b[0] < b[2], b[1] < b[3], (-90...90).contains(b[0]), (-90...90).contains(b[2]),
                    (-180...180).contains(b[1]), (-180...180).contains(b[3])
                else {
                    throw t.bad("box", "expected [lat_min, lon_min, lat_max, lon_max] with min < max")
                }
                s.nodes.box = Box(latMin: b[0], lonMin: b[1], latMax: b[2], lonMax: b[3])
            }
            s.nodes.background = try t.double("background", s.nodes.background, 0...1)
            s.nodes.late = try t.double("late", s.nodes.late, 0...1)
            s.nodes.lateJoinMs = try t.ms("late_join_ms", s.nodes.lateJoinMs)
            try t.finish()
        }
        for var t in try r.tableArray("campus") {
            let name = try t.string("name", "campus \(s.campuses.count + 1)")
            guard let c = try t.numbers("center", count: 2) else { throw t.bad("center", "required: [lat, lon]") }
            guard (-90...90).contains(c[0]), (-180...180).contains(c[1]) else {
                throw t.bad("center", "latitude -90...90, longitude -180...180")
            }
            let radius = try t.double("radius_m", 500, 1...1_000_000)
            let weight = try t.double("weight", 1, 0...1e9)
            try t.finish()
            s.campuses.append(Campus(name: name, lat: c[0], lon: c[1], radiusMeters: radius, weight: weight))
        }
        if s.nodes.placement == .campuses && s.campuses.isEmpty {
            throw ScenarioError("scenario: key 'nodes.placement': campus placement needs at least one [[campus]]")
        }
        if var t = try r.subtable("packs") {
            s.packs.initial = try t.int("initial", s.packs.initial, 0...1_000_000)
            s.packs.initialWindowMs = try t.ms("initial_window_ms", s.packs.initialWindowMs)
            if let rr = try t.numbers("radius_m", count: 2) {
                guard rr[0] >= 1, rr[0] <= rr[1], rr[1] <= Double(1_000_000) else {
                    throw t.bad("radius_m", "expected [min, max] with 1 <= min <= max <= 1000000")
                }
                s.packs.radiusMinMeters = rr[0]; s.packs.radiusMaxMeters = rr[1]
            }
            s.packs.lockedFraction = try t.double("locked", s.packs.lockedFraction, 0...1)
            s.packs.admin = try t.int("admin", s.packs.admin, 0...10_000)
            s.packs.adminRadiusMeters = try t.double("admin_radius_m", s.packs.adminRadiusMeters, 1...1_000_000)
            s.packs.global = try t.bool("global", s.packs.global)
            s.packs.remoteSubscribers = try t.int("remote_subscribers", s.packs.remoteSubscribers, 0...1_000_000)
            s.packs.powBits = UInt32(try t.int("pow_bits", Int(s.packs.powBits), 0...16))
            try t.finish()
        }
        if var t = try r.subtable("workload") {
            s.workload.startMs = try t.ms("start_ms", s.workload.startMs)
            s.workload.endMs = try t.ms("end_ms", s.workload.endMs)
            s.workload.packsPerNodeHour = try t.double("packs_per_node_hour", s.workload.packsPerNodeHour, 0...1e6)
            s.workload.postsPerNodeHour = try t.double("posts_per_node_hour", s.workload.postsPerNodeHour, 0...1e6)
            s.workload.commentsPerNodeHour = try t.double("comments_per_node_hour", s.workload.commentsPerNodeHour, 0...1e6)
            s.workload.votesPerNodeHour = try t.double("votes_per_node_hour", s.workload.votesPerNodeHour, 0...1e6)
            s.workload.maxOps = try t.int("max_ops", s.workload.maxOps, 0...10_000_000)
            try t.finish()
            guard s.workload.startMs <= s.workload.endMs else {
                throw ScenarioError("scenario: key 'workload.end_ms': must not be before workload.start_ms")
            }
        }
        if var t = try r.subtable("network") {
            s.network.baseLatencyMs = try t.double("base_latency_ms", s.network.baseLatencyMs, 0...600_000)
            s.network.msPerKm = try t.double("ms_per_km", s.network.msPerKm, 0...1_000)
            s.network.jitterMs = try t.double("jitter_ms", s.network.jitterMs, 0...600_000)
            s.network.loss = try t.double("loss", s.network.loss, 0...1)
            s.network.bandwidthBytesPerSecond = try t.double("bandwidth_bytes_per_s", s.network.bandwidthBytesPerSecond, 0...1e12)
            s.network.headerBytes = try t.int("header_bytes", s.network.headerBytes, 0...65_535)
            try t.finish()
        }
        for var t in try r.tableArray("partition") {
            let start = try t.ms("start_ms", 0)
            let heal = try t.ms("heal_ms", s.durationMs)
            guard heal >= start else { throw t.bad("heal_ms", "must not be before start_ms") }
            let by = try t.choice("by", PartitionSplit.longitude)
            let groups = try t.int("groups", 2, 2...1_000)
            try t.finish()
            s.partitions.append(Partition(startMs: start, healMs: heal, by: by, groups: groups))
        }
        if var t = try r.subtable("churn") {
            var c = Churn()
            c.fraction = try t.double("fraction", c.fraction, 0...1)
            c.startMs = try t.ms("start_ms", c.startMs)
            c.endMs = try t.ms("end_ms", c.endMs)
            c.meanUpMs = try t.double("mean_up_ms", c.meanUpMs, 1...1e12)
            c.meanDownMs = try t.double("mean_down_ms", c.meanDownMs, 1...1e12)
            c.keepData = try t.double("keep_data", c.keepData, 0...1)
            try t.finish()
            guard c.startMs <= c.endMs else { throw t.bad("end_ms", "must not be before start_ms") }
            s.churn = c
        }
        if var t = try r.subtable("strategy") {
            if let names = try t.strings("strategies") {
                guard !names.isEmpty else { throw t.bad("strategies", "name at least one strategy") }
                s.strategy.strategies = try names.map { n in
                    guard let k = StrategyKind(name: n) else {
                        throw t.bad(
                            "strategies", "unknown strategy '\(n)' (known: \(StrategyKind.all.map(\.description).joined(separator: ", ")))")
                    }
                    return k
                }
            }
            s.strategy.roundMs = try t.ms("round_ms", s.strategy.roundMs)
            guard s.strategy.roundMs > 0 else { throw t.bad("round_ms", "must be positive") }
            s.strategy.phase = try t.choice("phase", s.strategy.phase)
            s.strategy.rumorK = try t.int("rumor_k", s.strategy.rumorK, 1...1_000)
            s.strategy.spies = try t.double("spies", s.strategy.spies, 0...1)
            s.strategy.stemFluff = try t.double("stem_fluff", s.strategy.stemFluff, 0.01...1)
            try t.finish()
        }
        if var t = try r.subtable("hostile") {
            s.hostile.fraction = try t.double("fraction", s.hostile.fraction, 0...0.5)
            s.hostile.eclipseTargets = try t.int("eclipse_targets", s.hostile.eclipseTargets, 1...10_000)
            s.hostile.contacts = try t.int("contacts", s.hostile.contacts, 0...1_000)
            s.hostile.roundMs = try t.ms("round_ms", s.hostile.roundMs)
            guard s.hostile.roundMs > 0 else { throw t.bad("round_ms", "must be positive") }
            s.hostile.floodPerSecond = try t.double("flood_per_second", s.hostile.floodPerSecond, 0...10_000)
            s.hostile.lie = try t.bool("lie", s.hostile.lie)
            try t.finish()
        }
        try r.finish()
        guard s.sampleMs > 0 else { throw ScenarioError("scenario: key 'sample_ms': must be positive") }
        guard s.durationMs > 0 else { throw ScenarioError("scenario: key 'duration_ms': must be positive") }
        return s
    }
}
