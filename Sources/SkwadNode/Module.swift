// SkwadNode: see docs/ARCHITECTURE.md.
