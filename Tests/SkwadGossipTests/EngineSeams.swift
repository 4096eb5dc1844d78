import SkwadModel
import Testing

@testable import SkwadGossip

/// What the tests ask of the engine's parts in one call: a part's input with the engine's
/// own peer table and info, as the engine hands them in.
extension GossipEngine {
    /// A peer heard of, offered as a remote contact or a next hop (`Vicinity.offerRemote`;
    /// neither of its actions sends).
    mutating func offerRemote(_ peer: PeerAddress, info peerInfo: NodeInfo, nowMs: UInt64) {
        var none: [GossipDirective] = []
        carry(vicinity.offerRemote(peer, info: peerInfo, peers: &peers, vicinityInputs(nowMs)), nowMs: nowMs, into: &none)
        #expect(none.isEmpty)
    }

    /// Our remote contacts that count inside `fence` (`Vicinity.remoteContacts`).
    func remoteContacts(inside fence: Geofence) -> [PeerAddress] { Vicinity.remoteContacts(inside: fence, peers: peers, ours: info) }

    /// The names a vicinity answer would carry (`VicinityInputs.sample`).
    func vicinitySample(for target: Geohash.Cell?, excluding: PeerAddress, limit: Int? = nil) -> [PeerRef] {
        vicinityInputs().sample(for: target, excluding: excluding, limit: limit, peers: peers)
    }
}
