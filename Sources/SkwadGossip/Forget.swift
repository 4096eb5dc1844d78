import SkwadModel

/// A part of the engine that keeps state about single peers, by address. When the engine
/// gives up on a peer (`forget`) or retires a relayed link for a direct one
/// (`retireRelayedTwins`), every such part drops it in one call (`forgetInParts`); the peer
/// table, told why, drops the peer's roles itself. What a part keeps past that it keeps on
/// purpose, and its `forget` says what and why: budgets per address (a peer must not get its
/// allowance back by being forgotten; each such table is bounded on its own) and work in
/// flight that ends by itself. `ForgetTests` holds every stored property of the engine to it.
protocol PeerState {
    /// Drops what this part holds about `peer`.
    mutating func forget(_ peer: PeerAddress)
}

extension GossipEngine {
    /// What every part holds about `peer`, dropped (the peer table's roles are the caller's:
    /// `forget`, `retireRelayedTwins`). The rate limits (`limits`) hold budgets only.
    mutating func forgetInParts(_ peer: PeerAddress) {
        channels.forget(peer)
        spread.forget(peer)
        membership.forget(peer)
        reach.forget(peer)
        pictures.forget(peer)
    }
}

extension SecureChannels: PeerState {
    /// Its sessions and handshake go. Kept: its datagram and byte budget (`addressLimits`).
    mutating func forget(_ peer: PeerAddress) { drop(peer) }
}

extension Spread: PeerState {
    /// Its Plumtree mark goes: a link that comes back starts eager. Kept, each ending by
    /// itself: the IHAVEs owed to it (the next tick sends them to links only), its
    /// announcements of ids we lack (grafted from each announcer in turn, then left to
    /// reconciliation), a directory pull owed to it as a new link (the next tick, links
    /// only), reconciliations it left unanswered (counted when the round ends), and the stem
    /// link (chosen again at its next use when it is no link).
    mutating func forget(_ peer: PeerAddress) { plumtree.setLazy(peer, false) }
}

extension MembershipState: PeerState {
    /// A neighbour request to it goes. Kept: the seeds (configuration), pings relayed for it
    /// or toward it (each ends with its ack, or the oldest goes: `indirectCapacity`), and
    /// when it last joined (a budget: `MembershipGuard.lastJoinMs`).
    mutating func forget(_ peer: PeerAddress) { if pendingNeighbor?.address == peer { pendingNeighbor = nil } }
}

extension Reach: PeerState {
    /// What it told us it sees us as, our direct tries toward it, fallbacks through it, and
    /// contact checks of it go (each part says what it keeps).
    mutating func forget(_ peer: PeerAddress) {
        reflexive.forget(peer)
        introductions.forget(peer)
        retries.schedules[peer] = nil
        contacts.forget(peer)
    }
}
