// SkwadSim: see docs/ARCHITECTURE.md.
