import NIOPosix
import Testing
import SkwadGossip
@testable import SkwadNode
import SkwadTestKit

/// The contract of the datagram seam, held by both implementations: the UDP socket and the
/// in-memory network the node and REPL tests use.
@Suite struct DatagramTransportTests {
    enum Kind: CaseIterable { case udp, memory }

    /// Binds two endpoints of one network of `kind` (b with `capacity`), runs `body`, closes.
    func withPair(
        _ kind: Kind, capacity: Int = 1024,
        _ body: (any DatagramTransport, any DatagramTransport, DatagramBinder) async throws -> Void
    ) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let memory = MemoryDatagramNetwork()
        let a: any DatagramTransport, b: any DatagramTransport, binder: DatagramBinder
        switch kind {
        case .udp:
            binder = .udp(group: group)
            a = try await UDPTransport.bind(host: "127.0.0.1", port: 0, group: group)
            b = try await UDPTransport.bind(host: "127.0.0.1", port: 0, group: group, inboundCapacity: capacity)
        case .memory:
            binder = DatagramBinder { host, port in try memory.bind(host: host, port: port) }
            a = try memory.bind()
            b = try memory.bind(inboundCapacity: capacity)
        }
        try await body(a, b, binder)
        await a.close(); await b.close()
        try await group.shutdownGracefully()
    }

    @Test(arguments: Kind.allCases) func datagramsArriveInOrderFromTheSendersAddressAndOversizedOnesNever(_ kind: Kind) async throws {
        try await withPair(kind) { a, b, _ in
            #expect(a.localAddress.isCanonical && b.localAddress.isCanonical && a.localAddress != b.localAddress)
            a.send([1, 2, 3], to: b.localAddress)
            a.send([UInt8](repeating: 7, count: UDPTransport.maxDatagram + 1), to: b.localAddress)  // never sent
            a.send([4], to: b.localAddress)
            let got = try await withTimeout(seconds: 10) {
                var got: [Datagram] = []
                for await d in b.datagrams { got.append(d); if got.count == 2 { break } }
                return got
            }
            #expect(got.map(\.bytes) == [[1, 2, 3], [4]])
            #expect(got.allSatisfy { $0.from == a.localAddress })
        }
    }

    /// A second bind on a held port fails (for UDP, finding 2: no SO_REUSEADDR, so no other
    /// socket can take or share a node's port).
    @Test(arguments: Kind.allCases) func aPortIsHeldUntilClosedAndTheStreamEndsOnClose(_ kind: Kind) async throws {
        try await withPair(kind) { a, _, binder in
            let addr = try #require(UDPTransport.socketAddress(canonical: a.localAddress))
            let host = try #require(addr.ipAddress), port = try #require(addr.port)
            await #expect(throws: (any Error).self) { _ = try await binder.bind(host, port) }
            await a.close()
            let ended = try await withTimeout(seconds: 10) {
                for await _ in a.datagrams {}; return true
            }
            #expect(ended)
            let again = try await binder.bind(host, port)  // what the node does when its socket closes under it
            #expect(again.localAddress == a.localAddress)
            await again.close()
        }
    }

    /// Finding 7: the inbound queue is bounded; what does not fit is dropped and counted.
    @Test(arguments: Kind.allCases) func theInboundQueueIsBoundedAndCountsDrops(_ kind: Kind) async throws {
        try await withPair(kind, capacity: 4) { a, b, _ in
            for i in 0..<50 { a.send([UInt8(i)], to: b.localAddress) }
            // Nobody reads b's queue: once 4 wait, the rest are dropped and counted.
            try await withTimeout(seconds: 20) { while b.inboundFull < 10 { try await Task.sleep(for: .milliseconds(20)) } }
            let got = try await withTimeout(seconds: 10) {
                var n = 0
                for await _ in b.datagrams { n += 1; if n == 4 { break } }
                return n
            }
            #expect(got == 4 && b.inboundFull >= 10)
        }
    }

    @Test func theMemoryNetworkDropsWhatNoOpenEndpointHolds() async throws {
        let memory = MemoryDatagramNetwork()
        let a = try memory.bind(), b = try memory.bind()
        a.send([1], to: PeerAddress("127.0.0.1:9"))
        a.send([2], to: PeerAddress("n3"))
        await b.close()
        a.send([3], to: b.localAddress)
        #expect(memory.undeliverable == 3)
        await a.close()
        b.send([4], to: a.localAddress)  // closed: nothing leaves
        #expect(memory.undeliverable == 3)
    }
}
