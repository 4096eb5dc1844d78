import Foundation
import NIOCore
import NIOPosix
import SkwadCrypto
import SkwadGossip
import SkwadModel
import SkwadReplica

/// The node's online half: the pure gossip engine lives inside the actor next to the
/// replica it reads and feeds; this file carries out its directives (datagrams through
/// the transport, ticks as sleeping tasks, admitted ops into the store) through the engine's
/// one `DirectiveInterpreter`.
/// A class: the node reaches it on every datagram and directive, and a struct holding the
/// engine was copied whole by each optional read of one of its fields.
final class NetworkState {
    var engine: GossipEngine
    var transport: any DatagramTransport
    /// Binds the transport again when it closes under the node.
    let binder: DatagramBinder
    /// Times the socket closed under the node and was bound again (`transportEnded`).
    var rebinds = 0
    /// The one task that reads the transport's bounded inbound queue.
    var reader: Task<Void, Never>?
    /// The one interpreter of the engine's directives, which keeps the one live tick timer
    /// (engine ms; SkwadGossip's `DirectiveInterpreter` and `TickTimer`, as every driver).
    var interpreter = DirectiveInterpreter()
    /// Checked picture blocks not yet stored: written in one transaction (NodePictures.swift).
    var pendingBlocks: [(root: [UInt8], index: Int, data: [UInt8])] = []

    init(engine: GossipEngine, transport: any DatagramTransport, binder: DatagramBinder) {
        self.engine = engine
        self.transport = transport
        self.binder = binder
    }
}

/// A neighbour as the REPL shows it.
public struct PeerSummary: Sendable, Equatable {
    public let address: String
    public let state: String
    public let cell: String?
}

extension Node {
    /// Binds the UDP socket and joins through the configured peers. Returns the address
    /// bound (useful with port 0).
    @discardableResult
    public func goOnline(group: EventLoopGroup, listen: String? = nil, peers: [String]? = nil) async throws -> String {
        try await goOnline(over: .udp(group: group), listen: listen, peers: peers)
    }

    /// Binds a transport through `binder` and joins through the configured peers, and starts
    /// the binder's LAN beacon if it has one (`startLanBeacon`). Returns the address bound
    /// (useful with port 0).
    @discardableResult
    public func goOnline(over binder: DatagramBinder, listen: String? = nil, peers: [String]? = nil) async throws -> String {
        guard network == nil else { throw NodeError("already online") }
        let listenText = listen ?? config.listen
        let (host, port) = try DatagramBinder.listenAddress(listenText)
        // Config seeds are the only names ever resolved (DNS at start); from then on every
        // address is a canonical IP literal (PROTOCOL §8).
        let seedTexts = peers ?? config.peers
        let seeds = try seedTexts.map(DatagramBinder.resolve)
        if let bad = seeds.first(where: { !$0.isDialable }) {
            throw NodeError("peer \(bad.value) is not the address of one host (broadcast, multicast or unspecified)")
        }
        let transport = try await binder.bind(host, port)
        var engine = GossipEngine(
            config: config.gossip, seed: SecureRandom.bytes(8).reduce(0) { $0 << 8 | UInt64($1) },
            secrets: .secure(random: { SecureRandom.bytes($0) }))
        let me = transport.localAddress.value
        engine.selfAddress = PeerAddress(me)
        let dialable = DialableMemo()
        engine.addressFilter = { dialable.isDialable($0) }
        engine.contactKey = contactKey
        engine.localAddresses = DatagramBinder.advertised(me).map(PeerAddress.init)
        network = NetworkState(engine: engine, transport: transport, binder: binder)
        startReader()
        let nowMs = now()
        carryOut(network!.engine.setInterest(cell: currentCell, subscriptions: Set(joined.keys), nowMs: nowMs))
        carryOut(network!.engine.start(seeds: seeds.filter { $0.value != me }, nowMs: nowMs))
        resumePictures()
        askKeySyncForHeld()
        online.lanNotice = await startLanBeacon(binder, bound: transport.localAddress)
        return me
    }

    public func goOffline() async {
        await stopLanBeacon()
        guard network != nil else { return }
        storePendingBlocks()
        let n = network!
        network = nil
        await n.transport.close()
        n.reader?.cancel()
    }

    /// Goes offline and gives the data directory up (its lock), so another node may open it.
    /// The node must not be used afterwards.
    public func close() async {
        await goOffline()
        dataDir.lock.release()
    }

    /// Joins through a member's address (from a join code), as through a seed, once.
    func contact(_ text: String) throws {
        guard network != nil else { throw NodeError("go online first: joining reaches the pack through a member") }
        carryOut(network!.engine.introduce(try peerAddress(text), nowMs: now()))
    }

    /// The address "host:port" names (a host name resolved), or a one-line reason; an
    /// address of no unicast host (broadcast, multicast, unspecified: §8) is refused.
    func peerAddress(_ text: String) throws -> PeerAddress {
        let a: PeerAddress
        do { a = try DatagramBinder.resolve(text) } catch { throw NodeError("cannot reach \(text): \(error)") }
        guard a.isDialable else {
            throw NodeError("cannot reach \(text): not the address of one host (broadcast, multicast or unspecified)")
        }
        return a
    }

    /// The transport in use (nil offline): tests close it under the node.
    var currentTransport: (any DatagramTransport)? { network?.transport }

    public var listenAddress: String? { network.map { $0.transport.localAddress.value } }

    /// The one task that reads the current transport; when its stream ends while the node is
    /// still online, the socket closed under us.
    func startReader() {
        guard let transport = network?.transport else { return }
        network!.reader = Task { [weak self] in
            for await d in transport.datagrams {
                guard let self else { return }
                await self.networkReceive(d.bytes, from: d.from)
            }
            await self?.transportEnded(transport)
        }
    }

    /// The socket closed without `goOffline`: a read error SwiftNIO deems fatal, or a send
    /// error that means the socket is gone (EBADF, ENOTSOCK; a send error for one destination
    /// is counted and dropped by the transport, never closes it: `UDPTransport`). The node
    /// binds the same address again (every second, at most 60 times) and keeps serving; the
    /// engine's state is untouched. Counted as `transport.rebinds`.
    func transportEnded(_ old: any DatagramTransport) async {
        for _ in 0..<60 {
            guard let n = network, n.transport === old else { return }  // offline, or already bound again
            do {
                guard let fresh = try await n.binder.rebind(old.localAddress) else { return }  // no address to bind again
                guard network != nil, network!.transport === old else { await fresh.close(); return }
                network!.transport = fresh
                network!.rebinds += 1
                startReader()
                return
            } catch {
                try? await Task.sleep(nanoseconds: 1_000_000_000)
            }
        }
    }

    var currentCell: String? { location.map { Geohash.encode($0, precision: config.geohashPrecision) } }

    func networkReceive(_ bytes: [UInt8], from peer: PeerAddress) {
        guard network != nil else { return }
        let ds = network!.engine.receive(datagram: bytes, from: peer, nowMs: now(), replica: &replica)
        carryOut(ds)
        takeKeySyncs()
    }

    func networkTick(generation: UInt32) {
        guard network != nil, network!.interpreter.timer.fire(generation) else { return }
        let nowMs = now()
        purgeIfDue()
        var ds = network!.engine.setInterest(cell: currentCell, subscriptions: Set(joined.keys), nowMs: nowMs)
        ds += network!.engine.tick(nowMs: nowMs, replica: &replica)
        carryOut(ds)
        storePendingBlocks()
    }

    /// A local op just committed: push it at once.
    func publishLocal(_ op: SignedOp) {
        guard network != nil else { return }
        let nowMs = now()
        var ds = network!.engine.setInterest(cell: currentCell, subscriptions: Set(joined.keys), nowMs: nowMs)
        ds += network!.engine.publish(op, nowMs: nowMs, replica: replica)
        carryOut(ds)
    }

    /// Carries out the engine's directives through the one interpreter: datagrams at once, then
    /// in directive order new tick timers (sleeping tasks), link changes (to listeners) and
    /// picture directives, whose answers (engine calls of their own) are carried by the next
    /// turn of this loop; then the admitted ops go into the store.
    func carryOut(_ directives: [GossipDirective]) {
        var pending = directives
        while !pending.isEmpty, let transport = network?.transport {
            var sink = NodeSink(transport: transport)
            network!.interpreter.carry(pending, nowMs: now(), into: &sink)
            for t in sink.ticks {
                Task { [weak self] in
                    try? await Task.sleep(nanoseconds: min(t.afterMs, 86_400_000) * 1_000_000)
                    await self?.networkTick(generation: t.generation)
                }
            }
            for (p, up) in sink.peers { eventSink?(up ? .peerJoined(p.value) : .peerLeft(p.value)) }
            pending = []
            for d in sink.pictures { pending += carryOutPicture(d) }
            if !sink.admitted.isEmpty { persistRemote(sink.admitted, nowMs: now()) }
            // What waits for a key sync (NodeKeySync.swift).
            if sink.peers.contains(where: \.up) && features.privatePacks.heldCount > 0 { askKeySyncForHeld() }
        }
    }

    public func peerSummaries() -> [PeerSummary] {
        guard let n = network else { return [] }
        return n.engine.activePeers.map { PeerSummary(address: $0.value, state: "active", cell: n.engine.cell(of: $0)) }
            + n.engine.passivePeers.map { PeerSummary(address: $0.value, state: "passive", cell: n.engine.cell(of: $0)) }
    }

    /// Online with no link up and seeds configured: the seeds, re-joins unanswered since the
    /// last link, and the wait before the next (nil otherwise).
    public func seedStatus() -> (seeds: [String], unanswered: Int, nextInMs: UInt64)? {
        network?.engine.seedStatus(nowMs: now())
    }

    public func networkStats() -> [(String, Int)] {
        guard let n = network else { return [] }
        return n.engine.stats.pairs + n.engine.pictureStats.pairs + [
            ("drop.inboundFull", n.transport.inboundFull), ("transport.rebinds", n.rebinds), ("sessions", n.engine.sessionCount),
            ("limits.addresses", n.engine.addressLimitCount), ("reach.reflexive_witnesses", n.engine.reflexiveWitnesses)
        ] + n.transport.sendFailures.map { ("transport.send_failed.\($0.reason)", $0.count) } + lanStats
    }
}

extension Node {
    /// Encoded size of an op this node holds (for benchmarks and stats).
    public func envelopeSize(_ id: OpID) -> Int? { replica.op(id)?.envelope.serialized().count }
}

/// The node's sink for the engine's directives: datagrams go out through the transport at
/// once; the rest is collected for `carryOut`, which reaches the node's other state.
struct NodeSink: DirectiveSink {
    let transport: any DatagramTransport
    var ticks: [(generation: UInt32, afterMs: UInt64)] = []
    var peers: [(peer: PeerAddress, up: Bool)] = []
    var pictures: [GossipDirective] = []
    var admitted: [SignedOp] = []

    init(transport: any DatagramTransport) { self.transport = transport }

    mutating func send(_ bytes: [UInt8], to: PeerAddress) { transport.send(bytes, to: to) }
    mutating func scheduleTick(generation: UInt32, afterMs: UInt64) { ticks.append((generation, afterMs)) }
    mutating func admitted(_ ops: [SignedOp]) { admitted += ops }
    mutating func peer(_ peer: PeerAddress, up: Bool) { peers.append((peer, up)) }
    mutating func picture(_ directive: GossipDirective) { pictures.append(directive) }
}
