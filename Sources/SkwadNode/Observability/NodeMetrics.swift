import CoreMetrics
import Foundation
import Metrics
import Prometheus

/// The node's counters as Prometheus metrics (swift-metrics over swift-prometheus, with a
/// registry of its own: nothing is bootstrapped process-wide). `update` takes the flat
/// `stats` list (Node.statsPairs) and moves each metric to it; `render` is the text
/// exposition format for GET /metrics.
///
/// Names: `skwad_` + the stat's name with `.` as `_`; families with a varying last part
/// carry it as a label: `drop.X` → `skwad_drops_total{reason="X"}`, `sent.X` →
/// `skwad_messages_sent_total{kind="X"}`, `reject.X` / `ops.rejected.X` →
/// `skwad_ops_rejected_total{layer=...,reason="X"}`. Levels (sessions, ops in the replica,
/// peers, memory) are gauges; everything else only grows and is a counter (`_total`).
/// Bounded: at most `capacity` distinct metrics (stat names come from this node's code, not
/// from the network, but a cap keeps the registry finite whatever the engine adds).
public final class NodeMetrics: @unchecked Sendable {
    public static let capacity = 512
    static let gauges: Set<String> = [
        "sessions", "limits.addresses", "ops.in_replica", "ops.pending",
        "peers.active", "peers.passive", "process.resident_memory_bytes"
    ]

    private let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory
    private let lock = NSLock()
    private var counters: [String: (CoreMetrics.Counter, Int)] = [:]
    private var levels: [String: Meter] = [:]

    public init() { factory = PrometheusMetricsFactory(registry: registry) }

    /// Moves every metric to the given values (counters by their increase since the last
    /// update; a counter that went down — the node went offline and back — starts over).
    public func update(_ stats: [(String, Int)]) {
        lock.withLock {
            for (name, value) in stats {
                let (label, dims) = Self.metric(for: name)
                if Self.gauges.contains(name) {
                    if levels[name] == nil, counters.count + levels.count < Self.capacity {
                        levels[name] = Meter(label: label, dimensions: dims, factory: factory)
                    }
                    levels[name]?.set(value)
                } else {
                    if counters[name] == nil, counters.count + levels.count < Self.capacity {
                        counters[name] = (CoreMetrics.Counter(label: label + "_total", dimensions: dims, factory: factory), 0)
                    }
                    guard let (counter, last) = counters[name] else { continue }
                    let delta = value >= last ? value - last : value
                    if delta > 0 { counter.increment(by: delta) }
                    counters[name] = (counter, value)
                }
            }
        }
    }

    /// The Prometheus text exposition of every metric.
    public func render() -> String { registry.emitToString() }

    /// The metric name and labels for a stat name.
    static func metric(for name: String) -> (String, [(String, String)]) {
        func tail(_ prefix: String) -> String { String(name.dropFirst(prefix.count)) }
        if name.hasPrefix("drop.") { return ("skwad_drops", [("reason", sanitize(tail("drop.")))]) }
        if name.hasPrefix("sent.") { return ("skwad_messages_sent", [("kind", sanitize(tail("sent.")))]) }
        if name.hasPrefix("sent_bytes.") { return ("skwad_message_bytes_sent", [("kind", sanitize(tail("sent_bytes.")))]) }
        if name.hasPrefix("reject.") { return ("skwad_ops_rejected", [("layer", "gossip"), ("reason", sanitize(tail("reject.")))]) }
        if name.hasPrefix("ops.rejected.") {
            return ("skwad_ops_rejected", [("layer", "replica"), ("reason", sanitize(tail("ops.rejected.")))])
        }
        if name == "process.resident_memory_bytes" { return ("process_resident_memory_bytes", []) }
        return ("skwad_" + sanitize(name), [])
    }

    /// Letters, digits and `_` only (Prometheus names and label values we produce stay plain).
    static func sanitize(_ s: String) -> String {
        String(s.prefix(64).map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" })
    }
}
