// Tests reach the shared lab tools (HostilePeer, WireForge, InMemoryNetwork, link models)
// through the test kit: one import in every test file.
@_exported import SkwadLab
// The raw HTTP client and the WebDriver client (SkwadBrowser), for the tests that speak to
// servers, chromedriver and the node's page.
@_exported import SkwadBrowser
