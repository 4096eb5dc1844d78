// SkwadSim: a deterministic discrete-event simulator of many Skwad nodes in one process.
//
// DETERMINISM MODEL
// - Virtual time only: a UInt64 count of milliseconds since the start of the run. Replicas
//   and engines see `epochMs + virtual time` as their wall clock. Nothing reads a clock.
// - One event queue (SkwadLab's `VirtualTimeQueue`, which the engine tests' in-memory network
//   uses too) ordered by (time, sequence number); the sequence number is
//   assigned when an event is scheduled, so events at the same millisecond run in the order
//   they were scheduled. No hash-map iteration order ever decides anything.
// - All randomness is SplitMix64 (`SimRandom`), seeded from the run seed: separate streams
//   for placement, workload, churn, partitions, the network and each node's protocol, so a
//   change in one part does not reshuffle the others. Integer draws use our own unbiased
//   bounded draw, not the standard library's, so they do not change with the toolchain.
// - The world (nodes, packs, the signed op schedule, churn and partition schedules) is
//   built once per (scenario, seed) and replayed identically for every strategy compared.
// - Same scenario + same seed + same binary => byte-identical report (tested). Across
//   platforms, libm's sin/cos/log may round differently in the last bit; that is the one
//   place where two machines could disagree.
//
// FIDELITY BOUNDARY (what is real, what is modelled)
// - Real: ops are real Ed25519-signed envelopes (SignedOp.sign with derived pseudonym keys,
//   real pack genesis nonces and admin keys); every node that stores ops holds a real
//   SkwadReplica `Replica` and admits ops through it (admission rules, pending buffer,
//   views). Each op's signature is verified for real the first time any node receives it;
//   later checks of the same envelope hit a memo keyed by op id (signature checks are pure).
// - Modelled: the network is a delay line — latency = base + distance (great circle between
//   the two nodes) × ms per km + uniform jitter, rounded up to whole ms; independent loss per
//   datagram; an optional uplink bandwidth cap per node (FIFO queueing, no receive-side cap,
//   no congestion collapse); partitions drop datagrams sent between groups while active
//   (checked at send time; datagrams already in flight arrive); churn takes nodes offline
//   (datagrams to them are lost, their timers die) and brings them back with or without
//   their data. No NAT, no MTU fragmentation, no reordering beyond what jitter produces,
//   no clock skew between nodes, no CPU time: handling a message takes zero virtual time.
// - Baseline strategies (Demers et al. 1987) assume full membership knowledge per pack
//   (a node can pick a uniform random member of each pack it belongs to) and exchange op
//   references whose sizes are the real envelope sizes; byte costs follow the model in
//   Baselines/BaselineMessage.swift. Locations are the nodes' true positions (self-reported
//   and honest: no node lies about where it is).
// - Skwad's own engine plugs in through `SimProtocol` (datagram bytes in, directives out),
//   exactly the sans-IO surface the NIO shell drives.
