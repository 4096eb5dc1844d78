// Tests reach the shared lab tools (HostilePeer, WireForge, InMemoryNetwork, link models)
// through the test kit: one import in every test file.
@_exported import SkwadLab
