// SkwadStore: see docs/ARCHITECTURE.md.
