// SkwadGossip: see docs/ARCHITECTURE.md.
