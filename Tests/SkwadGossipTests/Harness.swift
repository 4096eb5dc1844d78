import SkwadTestKit

/// The engine tests' network: SkwadTestKit's `InMemoryNetwork` with links of 1–5 ms (seeded),
/// optional loss (`lossRate`) and filters. The simulator drives engines through the same
/// directive-carrying code (`DirectiveCarrier`).
typealias Harness = InMemoryNetwork<UniformLatency>
