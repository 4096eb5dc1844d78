// SkwadReplica: see docs/ARCHITECTURE.md.
