import SkwadModel
import SkwadReplica

/// What a neighbour told us about itself.
public struct NodeInfo: Sendable, Equatable {
    public var cell: String? { didSet { place = Self.decode(cell) } }
    /// 8-byte prefixes of the pack ids it subscribed to.
    public var subscriptions: Set<[UInt8]>
    /// The decoded cell, kept so the geofence rule and distances do not decode per use.
    public private(set) var place: Geohash.Cell?
    /// Most of its links see it from an address that is not its own (§9 "Introductions").
    public var behindNat = false

    public init(cell: String? = nil, subscriptions: Set<[UInt8]> = []) {
        self.cell = cell; self.subscriptions = subscriptions; place = Self.decode(cell)
    }

    /// `place` is `decode(cell)`, which the caller did already.
    init(cell: String?, place: Geohash.Cell?, subscriptions: Set<[UInt8]>) {
        self.cell = cell; self.subscriptions = subscriptions; self.place = place
    }

    static func decode(_ cell: String?) -> Geohash.Cell? { cell.flatMap { try? Geohash.decode($0) } }
    static func prefix(_ id: PackID) -> [UInt8] { Array(id.bytes.prefix(8)) }

    /// `NodeInfo(cell: cell)`, without decoding the cell again.
    var cellOnly: NodeInfo {
        var x = self
        x.subscriptions = []
        x.behindNat = false
        return x
    }

    func subscribed(_ id: PackID) -> Bool { !subscriptions.isEmpty && subscriptions.contains(Self.prefix(id)) }

    /// Metres between the centres of our two cells; infinity when either is unknown.
    func distance(to other: Geohash.Cell?) -> Double {
        guard let a = place, let b = other else { return .infinity }
        return a.center.distance(to: b.center)
    }
}

/// The geofence rule (PROTOCOL.md §12): may this pack's op go to a neighbour that
/// announced `info`?
/// - locked pack: only when the neighbour's cell lies inside the fence (plus the cell's margin);
/// - fenced unlocked pack: inside the fence, or subscribed;
/// - pack without a fence: subscribed;
/// - a pack's genesis and edits (`isGenesis`) go where the pack is in the directory
///   (PROTOCOL §11a): unfenced packs everywhere, unlocked packs (admin ones too) to nodes
///   inside or near the fence (or subscribed), locked packs inside only.
public func mayReceive(_ info: NodeInfo, pack: PackState, isGenesis: Bool) -> Bool {
    mayReceive(info, pack: pack.scope, isGenesis: isGenesis)
}

public func mayReceive(_ info: NodeInfo, pack: PackScope, isGenesis: Bool) -> Bool {
    // An invite-only pack's genesis goes where its ops go: to its holders, never by the directory.
    if isGenesis && !pack.isPrivate { return GossipEngine.inDirectory(pack, of: info) }
    let inside = pack.fence.map { f in info.place.map { f.contains(cell: $0) } ?? false } ?? false
    if pack.locked { return inside }
    return inside || info.subscribed(pack.id)
}
