// SkwadREPL: see docs/ARCHITECTURE.md.
