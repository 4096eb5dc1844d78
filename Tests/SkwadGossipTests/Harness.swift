import SkwadTestKit

/// The engine tests' network: SkwadTestKit's `InMemoryNetwork` with links of 1–5 ms (seeded),
/// optional loss (`lossRate`) and filters. The simulator and the node carry directives out
/// through the same `DirectiveInterpreter`.
typealias Harness = InMemoryNetwork<UniformLatency>
