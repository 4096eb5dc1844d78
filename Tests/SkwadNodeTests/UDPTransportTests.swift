import Testing
import NIOCore
import NIOPosix
import Synchronization
import SkwadGossip
@testable import SkwadNode
import SkwadTestKit

@Suite struct UDPTransportTests {
    @Test func twoSocketsOnLoopbackExchangeDatagrams() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let a = try await UDPTransport.bind(host: "127.0.0.1", port: 0, group: group)
        let b = try await UDPTransport.bind(host: "127.0.0.1", port: 0, group: group)
        a.send([1, 2, 3], to: b.localAddress)
        a.send([UInt8](repeating: 7, count: UDPTransport.maxDatagram + 1), to: b.localAddress)   // never sent
        a.send([4], to: b.localAddress)
        let r = try await withTimeout(seconds: 10) {
            var got: [Datagram] = []
            for await d in b.datagrams { got.append(d); if got.count == 2 { break } }
            return got
        }
        #expect(r.map(\.bytes) == [[1, 2, 3], [4]])
        #expect(r.allSatisfy { $0.from == a.localAddress })
        await a.close(); await b.close()
        try await group.shutdownGracefully()
    }

    /// Finding 2: no SO_REUSEADDR, so a second socket cannot bind a node's port.
    @Test func aSecondBindOnTheSamePortFails() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let a = try await UDPTransport.bind(host: "127.0.0.1", port: 0, group: group)
        let port = a.socketAddress.port!
        await #expect(throws: TransportError.self) { _ = try await UDPTransport.bind(host: "127.0.0.1", port: port, group: group) }
        await a.close()
        try await group.shutdownGracefully()
    }

    /// Finding 7: the inbound queue is bounded; what does not fit is dropped and counted.
    @Test func theInboundQueueIsBoundedAndCountsDrops() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let a = try await UDPTransport.bind(host: "127.0.0.1", port: 0, group: group)
        let b = try await UDPTransport.bind(host: "127.0.0.1", port: 0, group: group, inboundCapacity: 4)
        for i in 0..<50 { a.send([UInt8(i)], to: b.localAddress) }
        // Nobody reads b's queue: once 4 wait, the rest are dropped and counted.
        try await withTimeout(seconds: 20) { while b.inboundFull < 10 { try await Task.sleep(for: .milliseconds(20)) } }
        let got = try await withTimeout(seconds: 10) {
            var n = 0
            for await _ in b.datagrams { n += 1; if n == 4 { break } }
            return n
        }
        #expect(got == 4 && b.inboundFull >= 10)
        await a.close(); await b.close()
        try await group.shutdownGracefully()
    }

    /// Finding 8: addresses from the wire are canonical literals, never names.
    @Test func onlyCanonicalLiteralsBecomeSocketAddresses() {
        #expect(UDPTransport.socketAddress(canonical: PeerAddress("127.0.0.1:7400")).map(describe) == "127.0.0.1:7400")
        #expect(UDPTransport.socketAddress(canonical: PeerAddress("[::1]:7400")).map(describe) == "[::1]:7400")
        for bad in ["localhost:7400", "127.0.0.1:0049499", "127.000.0.1:7400", "example.com:80", "[::0001]:7400", "127.0.0.1:0"] {
            #expect(UDPTransport.socketAddress(canonical: PeerAddress(bad)) == nil)
        }
    }

    @Test func badAddressesAreOneLineErrors() throws {
        #expect(throws: TransportError.self) { try UDPTransport.resolve("localhost") }
        #expect(throws: TransportError.self) { try UDPTransport.resolve("127.0.0.1:99999") }
        #expect(describe(try UDPTransport.resolve("127.0.0.1:7400")) == "127.0.0.1:7400")
    }
}
