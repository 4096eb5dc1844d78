import Foundation
import SkwadGossip

/// The node's side of the LAN beacon (PROTOCOL §9, "LAN beacon"): the transport runs it
/// (`DatagramBinder.udp`: its socket, its timer, its limits on what it hears, in
/// `LanBeacon`); the node joins through each neighbour it passes on, and counts those joins.
struct LanState {
    let beacon: LanBeacon
    var joined = 0
}

extension Node {
    /// Starts the transport's beacon beside the socket bound at `bound` when the config allows
    /// and the transport has one (a real socket on a non-loopback address); a port already taken
    /// by something else than a beacon is one notice line, and the node stays online without it.
    func startLanBeacon(_ binder: DatagramBinder, bound: PeerAddress) async -> String? {
        guard config.lanBeacon, let start = binder.beacon else { return nil }
        do {
            guard
                let beacon = try await start(config.lanBeaconPort, bound, { [weak self] peer in Task { await self?.lanHeard(peer) } })
            else { return nil }
            online.lan = LanState(beacon: beacon)
            return nil
        } catch {
            return "notice: \(error); neighbours on this network are not found by themselves (use --peer)"
        }
    }

    func stopLanBeacon() async {
        guard let l = online.lan else { return }
        online.lan = nil
        await l.beacon.close()
    }

    /// A neighbour the beacon passed on (within its limits: `LanBeacon`): join through it.
    func lanHeard(_ peer: PeerAddress) {
        guard network != nil, online.lan != nil else { return }
        let before = network!.engine.stats.joinsIntroduced
        let ds = network!.engine.introduce(peer, nowMs: now())
        if network!.engine.stats.joinsIntroduced > before { online.lan!.joined += 1 }
        carryOut(ds)
    }

    /// `lan.*` counters for `stats`.
    var lanStats: [(String, Int)] {
        guard let l = online.lan else { return [] }
        return [
            ("lan.beacons_sent", l.beacon.counters.sent.load(ordering: .relaxed)),
            ("lan.beacons_heard", l.beacon.counters.heard.load(ordering: .relaxed)),
            ("lan.beacons_refused", l.beacon.counters.refused.load(ordering: .relaxed)),
            ("lan.joined_through", l.joined)
        ]
    }
}

extension Node {
    /// The addresses the transport advertises (`DatagramBinder.advertised`), then the
    /// reflexive ones our links confirm.
    var reachableAddresses: [String] {
        guard let listen = listenAddress else { return [] }
        var out = DatagramBinder.advertised(listen)
        for r in network?.engine.reflexiveAddresses ?? [] where !out.contains(r.value) { out.append(r.value) }
        return out
    }
}
