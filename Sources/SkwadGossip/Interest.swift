import SkwadModel
import SkwadReplica

/// What a neighbour told us about itself.
public struct NodeInfo: Sendable, Equatable {
    public var cell: String?
    /// 8-byte prefixes of the pack ids it subscribed to.
    public var subscriptions: Set<[UInt8]>
    public init(cell: String? = nil, subscriptions: Set<[UInt8]> = []) { self.cell = cell; self.subscriptions = subscriptions }

    static func prefix(_ id: PackID) -> [UInt8] { Array(id.bytes.prefix(8)) }

    func subscribed(_ id: PackID) -> Bool { subscriptions.contains(Self.prefix(id)) }
}

/// The geofence rule (PROTOCOL.md §12): may this pack's op go to a neighbour that
/// announced `info`?
/// - locked pack: only when the neighbour's cell lies inside the fence (plus the cell's margin);
/// - fenced unlocked pack: inside the fence, or subscribed;
/// - pack without a fence: subscribed;
/// - and a `CreatePack` of an unlocked pack goes to everyone, so that packs can be found.
public func mayReceive(_ info: NodeInfo, pack: PackState, isGenesis: Bool) -> Bool {
    let inside = pack.fence.map { f in info.cell.map { f.contains(geohash: $0) } ?? false } ?? false
    if pack.locked { return inside }
    if isGenesis { return true }
    return inside || info.subscribed(pack.id)
}
