import Foundation
import NIOCore
import SkwadGossip

/// The node's LAN beacon (PROTOCOL §9, "LAN beacon"; `LanBeacon`): started with a real UDP
/// socket on a non-loopback address when the config allows (`lan_beacon`), announced every
/// second for the first 10 s online (two nodes meet within 2 s) and every 30 s after.
/// A beacon heard makes the node join through its sender, at most once per 30 s per address
/// (64 addresses remembered) and at most 5 new addresses per second in all.
struct LanState {
    var beacon: LanBeacon
    var announcer: Task<Void, Never>?
    var contacted: [PeerAddress: UInt64] = [:]
    /// New addresses contacted in the current second, and when it began.
    var windowStartMs: UInt64 = 0
    var inWindow = 0
    var joined = 0

    static let perSecond = 5

    static let capacity = 64
    static let againMs: UInt64 = 30_000
    static let fastPhaseMs: UInt64 = 10_000
    static let fastIntervalMs: UInt64 = 1_000
    static let slowIntervalMs: UInt64 = 30_000
}

extension Node {
    /// Starts the beacon when we listen on a non-loopback address; a port already taken by
    /// something else than a beacon is one notice line, and the node stays online without it.
    func startLanBeacon(group: EventLoopGroup, bound: String) async -> String? {
        guard config.lanBeacon, let gossip = UDPTransport.socketAddress(canonical: PeerAddress(bound)),
            let ip = gossip.ipAddress, !ip.hasPrefix("127."), ip != "::1", let port = gossip.port
        else { return nil }
        do {
            let beacon = try await LanBeacon.start(port: config.lanBeaconPort, gossipPort: port, group: group) { [weak self] peer in
                Task { await self?.lanHeard(peer) }
            }
            online.lan = LanState(beacon: beacon)
            online.lan!.announcer = Task { [weak self] in
                var elapsed: UInt64 = 0
                while !Task.isCancelled {
                    beacon.announce()
                    let step = elapsed < LanState.fastPhaseMs ? LanState.fastIntervalMs : LanState.slowIntervalMs
                    elapsed &+= step
                    try? await Task.sleep(nanoseconds: step * 1_000_000)
                    guard self != nil else { return }
                }
            }
            return nil
        } catch {
            return "notice: \(error); neighbours on this network are not found by themselves (use --peer)"
        }
    }

    func stopLanBeacon() async {
        guard let l = online.lan else { return }
        online.lan = nil
        l.announcer?.cancel()
        await l.beacon.close()
    }

    /// A beacon named `peer`: join through it, within the limits above.
    func lanHeard(_ peer: PeerAddress) {
        guard network != nil, online.lan != nil else { return }
        let nowMs = now()
        if let last = online.lan!.contacted[peer], nowMs < last &+ LanState.againMs { return }
        if nowMs >= online.lan!.windowStartMs &+ 1000 { online.lan!.windowStartMs = nowMs; online.lan!.inWindow = 0 }
        guard online.lan!.inWindow < LanState.perSecond else { return }
        online.lan!.inWindow += 1
        if online.lan!.contacted[peer] == nil, online.lan!.contacted.count >= LanState.capacity,
            let oldest = online.lan!.contacted.min(by: { ($0.value, $0.key.value) < ($1.value, $1.key.value) })
        {
            online.lan!.contacted[oldest.key] = nil
        }
        online.lan!.contacted[peer] = nowMs
        let before = network!.engine.stats.joinsIntroduced
        let ds = network!.engine.introduce(peer, nowMs: nowMs)
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
    /// The interface addresses (`reachable(_:)`), then the reflexive ones our links confirm.
    var reachableAddresses: [String] {
        guard let listen = listenAddress else { return [] }
        var out = Self.reachable(listen)
        for r in network?.engine.reflexiveAddresses ?? [] where !out.contains(r.value) { out.append(r.value) }
        return out
    }

    /// `listen` as others may reach it: on `0.0.0.0`, each non-loopback IPv4 interface
    /// address with the port.
    static func reachable(_ listen: String) -> [String] {
        guard listen.hasPrefix("0.0.0.0:") else { return [listen] }
        let port = listen.dropFirst("0.0.0.0:".count)
        var seen = Set<String>()
        return ((try? System.enumerateDevices()) ?? []).compactMap { d -> String? in
            guard case .v4 = d.address, let ip = d.address?.ipAddress, !ip.hasPrefix("127."), seen.insert(ip).inserted else { return nil }
            return "\(ip):\(port)"
        }.sorted()
    }
}
