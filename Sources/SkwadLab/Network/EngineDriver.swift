import SkwadGossip
import SkwadModel

/// Node addresses of in-memory networks (engine tests and the simulator): "n<index>".
public enum MemoryAddress {
    public static func of(_ i: Int) -> PeerAddress { PeerAddress("n\(i)") }
    /// The node index an address names; nil for any other string.
    public static func index(_ a: PeerAddress) -> Int? {
        guard a.value.first == "n", let i = Int(a.value.dropFirst()), i >= 0 else { return nil }
        return i
    }
}
