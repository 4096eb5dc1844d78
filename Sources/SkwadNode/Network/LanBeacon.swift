import Foundation
import NIOCore
import NIOPosix
import Synchronization
import SkwadCrypto
import SkwadGossip

/// Neighbours on the local network (PROTOCOL §9, "LAN beacon"): a node online on a non-loopback
/// address sends a small UDP datagram to the directed broadcast address of each of its IPv4 interfaces
/// (a broadcast is never routed off the link) and listens for others' on the same port. A
/// beacon names only the sender's gossip port and a random instance id (to skip our own): no
/// key, no cell, no pack. The beacon is part of the transport (`DatagramBinder.udp` starts it
/// beside the gossip socket): it announces on its own timer (every second for the first 10 s
/// online, so that two nodes meet within 2 s, and every 30 s after) and passes the sender's
/// address of a beacon heard on to the node (`heard`, which joins through it) at most once per
/// 30 s per address (64 addresses remembered) and at most 5 new addresses per second in all.
///
/// Layout (288 bytes, zero-padded, so that what it causes — a HELLO of 200 bytes sent at most
/// 4 times when unanswered — is no larger than 3× it): `"SKWB"` · version 1 · gossip port (u16, big-endian) · instance (8 bytes).
public final class LanBeacon: Sendable {
    public static let size = 288
    static let magic: [UInt8] = Array("SKWB".utf8)
    static let version: UInt8 = 1
    /// Announcing: every `fastIntervalMs` for the first `fastPhaseMs`, then every `slowIntervalMs`.
    static let fastPhaseMs: UInt64 = 10_000
    static let fastIntervalMs: UInt64 = 1_000
    static let slowIntervalMs: UInt64 = 30_000
    /// Beacons read per second, at most (the rest are refused, counted).
    static let heardPerSecond = 20
    /// Addresses passed on to the node: each at most once per `againMs` (`contactedCapacity`
    /// remembered, the oldest forgotten first), and at most `contactsPerSecond` in all.
    static let againMs: UInt64 = 30_000
    static let contactedCapacity = 64
    static let contactsPerSecond = 5

    private let channel: Channel
    private let announcer: Task<Void, Never>
    let instance: [UInt8]
    let gossipPort: Int
    /// Beacons heard, refused (wrong size, magic or version, from off our subnets, past the
    /// reader's rate), sent.
    let counters: Counters

    final class Counters: Sendable {
        let heard = Atomic<Int>(0), refused = Atomic<Int>(0), sent = Atomic<Int>(0)
    }

    private init(channel: Channel, instance: [UInt8], gossipPort: Int, counters: Counters) {
        self.channel = channel; self.instance = instance; self.gossipPort = gossipPort; self.counters = counters
        announcer = Task { [channel, counters] in
            let bytes = Self.datagram(gossipPort: gossipPort, instance: instance)
            var elapsed: UInt64 = 0
            while !Task.isCancelled {
                Self.announce(bytes, on: channel, counters: counters)
                let step = elapsed < Self.fastPhaseMs ? Self.fastIntervalMs : Self.slowIntervalMs
                elapsed &+= step
                try? await Task.sleep(nanoseconds: step * 1_000_000)
            }
        }
    }

    deinit { announcer.cancel() }

    /// The beacon beside a gossip socket bound at `bound`, when that is a non-loopback IPv4 or
    /// IPv6 address (nil otherwise: no neighbour could hear it): binds `0.0.0.0:port` with
    /// SO_REUSEADDR (every node on the host hears every beacon) and SO_BROADCAST, and starts
    /// announcing; `heard` gets the gossip address of valid beacons from a subnet of ours,
    /// within the limits above.
    static func start(
        port: Int, beside bound: PeerAddress, group: EventLoopGroup,
        heard: @escaping @Sendable (PeerAddress) -> Void
    ) async throws -> LanBeacon? {
        guard let gossip = UDPTransport.socketAddress(canonical: bound), let ip = gossip.ipAddress, !ip.hasPrefix("127."), ip != "::1",
            let gossipPort = gossip.port
        else { return nil }
        let instance = SecureRandom.bytes(8)
        let counters = Counters()
        let bootstrap = DatagramBootstrap(group: group)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .channelOption(.socketOption(.so_broadcast), value: 1)
            .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 2048))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Reader(instance: instance, counters: counters, heard: heard))
                }
            }
        let channel: Channel
        do { channel = try await bootstrap.bind(host: "0.0.0.0", port: port).get() } catch {
            throw NodeError("LAN beacon: cannot listen on UDP port \(port): \(error)")
        }
        return LanBeacon(channel: channel, instance: instance, gossipPort: gossipPort, counters: counters)
    }

    /// The beacon's bytes for `gossipPort`.
    static func datagram(gossipPort: Int, instance: [UInt8]) -> [UInt8] {
        var b = magic + [version, UInt8(truncatingIfNeeded: gossipPort >> 8), UInt8(truncatingIfNeeded: gossipPort)] + instance
        b += [UInt8](repeating: 0, count: size - b.count)
        return b
    }

    /// The gossip port a datagram announces, or nil when it is no beacon or ours.
    static func parse(_ bytes: [UInt8], ownInstance: [UInt8]) -> Int? {
        guard bytes.count == size, Array(bytes.prefix(4)) == magic, bytes[4] == version else { return nil }
        let port = Int(bytes[5]) << 8 | Int(bytes[6])
        guard port > 0, Array(bytes[7..<15]) != ownInstance else { return nil }
        return port
    }

    /// Sends one beacon to the broadcast address of every IPv4 interface that has one.
    /// Returns how many went out.
    @discardableResult
    static func announce(_ bytes: [UInt8], on channel: Channel, counters: Counters) -> Int {
        var sent = 0
        for target in Self.broadcastTargets(port: channel.localAddress?.port ?? 0) {
            var buffer = channel.allocator.buffer(capacity: bytes.count)
            buffer.writeBytes(bytes)
            channel.writeAndFlush(AddressedEnvelope(remoteAddress: target, data: buffer), promise: nil)
            sent += 1
        }
        counters.sent.add(sent, ordering: .relaxed)
        return sent
    }

    public func close() async {
        announcer.cancel()
        try? await channel.close()
    }

    /// The directed broadcast address of each IPv4 interface with a netmask (not loopback),
    /// worked out from its address and mask: an address added without `brd` has none set.
    static func broadcastTargets(port: Int) -> [SocketAddress] {
        var seen = Set<UInt32>()
        return ((try? System.enumerateDevices()) ?? []).compactMap { d -> SocketAddress? in
            guard case .v4 = d.address, let ip = d.address?.ipAddress.flatMap(ipv4), let mask = d.netmask?.ipAddress.flatMap(ipv4),
                mask != 0, mask != .max, ip >> 24 != 127
            else { return nil }
            let b = ip | ~mask
            guard seen.insert(b).inserted else { return nil }
            return try? SocketAddress(ipAddress: "\(b >> 24).\(b >> 16 & 255).\(b >> 8 & 255).\(b & 255)", port: port)
        }
    }

    /// (address, netmask) of each IPv4 interface with a mask.
    static func subnets() -> [(address: UInt32, mask: UInt32)] {
        ((try? System.enumerateDevices()) ?? []).compactMap { d in
            guard let a = d.address?.ipAddress.flatMap(ipv4), let m = d.netmask?.ipAddress.flatMap(ipv4), m != 0 else { return nil }
            return (a, m)
        }
    }

    static func ipv4(_ text: String) -> UInt32? {
        let parts = text.split(separator: ".")
        guard parts.count == 4 else { return nil }
        var v: UInt32 = 0
        for p in parts {
            guard let o = UInt8(p) else { return nil }
            v = v << 8 | UInt32(o)
        }
        return v
    }

    /// Reads beacons on the channel's event loop (its state is touched there only). The
    /// interfaces' subnets are read again at most every 10 s, not per datagram, and at most
    /// `heardPerSecond` beacons a second are read (the rest are counted as refused: a flood
    /// of well-formed beacons costs a counter, not a system call and a task each); of those,
    /// an address reaches the node (one task each) within `againMs` and `contactsPerSecond`.
    private final class Reader: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = AddressedEnvelope<ByteBuffer>
        let instance: [UInt8]
        let counters: Counters
        let heard: @Sendable (PeerAddress) -> Void
        private var subnets: [(address: UInt32, mask: UInt32)] = []
        private var subnetsRead: NIODeadline = .distantPast
        private var windowStart: NIODeadline = .distantPast
        private var inWindow = 0
        /// When each address was last passed on (ms of `NIODeadline.now()`), and the new
        /// addresses passed on in the current second, since when.
        private var contacted: [PeerAddress: UInt64] = [:]
        private var contactWindowStartMs: UInt64 = 0
        private var contactsInWindow = 0

        init(instance: [UInt8], counters: Counters, heard: @escaping @Sendable (PeerAddress) -> Void) {
            self.instance = instance; self.counters = counters; self.heard = heard
        }

        func onOurSubnet(_ ip: String, now: NIODeadline) -> Bool {
            guard let a = LanBeacon.ipv4(ip) else { return false }
            if now - subnetsRead > .seconds(10) { subnets = LanBeacon.subnets(); subnetsRead = now }
            return subnets.contains { a & $0.mask == $0.address & $0.mask }
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let envelope = unwrapInboundIn(data)
            // Our own beacon, looped back by the broadcast: neither heard nor refused.
            if envelope.data.readableBytes == LanBeacon.size,
                envelope.data.getBytes(at: envelope.data.readerIndex + 7, length: 8) == instance
            {
                return
            }
            let now = NIODeadline.now()
            if now - windowStart > .seconds(1) { windowStart = now; inWindow = 0 }
            guard inWindow < LanBeacon.heardPerSecond, envelope.data.readableBytes == LanBeacon.size,
                let bytes = envelope.data.getBytes(at: envelope.data.readerIndex, length: LanBeacon.size),
                let port = LanBeacon.parse(bytes, ownInstance: instance),
                let ip = envelope.remoteAddress.ipAddress, onOurSubnet(ip, now: now),
                let address = try? SocketAddress(ipAddress: ip, port: port)
            else { counters.refused.add(1, ordering: .relaxed); return }
            inWindow += 1
            counters.heard.add(1, ordering: .relaxed)
            let peer = PeerAddress(describe(address)), nowMs = now.uptimeNanoseconds / 1_000_000
            if let last = contacted[peer], nowMs < last &+ LanBeacon.againMs { return }
            if nowMs >= contactWindowStartMs &+ 1000 { contactWindowStartMs = nowMs; contactsInWindow = 0 }
            guard contactsInWindow < LanBeacon.contactsPerSecond else { return }
            contactsInWindow += 1
            contacted.makeRoom(for: peer, capacity: LanBeacon.contactedCapacity) { $0 }
            contacted[peer] = nowMs
            heard(peer)
        }
    }
}
