import Testing
import NIOCore
import NIOPosix
import Synchronization
@testable import SkwadNode
import SkwadTestKit

@Suite struct UDPTransportTests {
    @Test func twoSocketsOnLoopbackExchangeDatagrams() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let received = Mutex<[(bytes: [UInt8], from: String)]>([])
        let (stream, cont) = AsyncStream<Void>.makeStream()
        let a = try await UDPTransport.bind(host: "127.0.0.1", port: 0, group: group) { _, _ in }
        let b = try await UDPTransport.bind(host: "127.0.0.1", port: 0, group: group) { bytes, from in
            received.withLock { $0.append((bytes, describe(from))) }
            cont.yield()
        }
        a.send([1, 2, 3], to: b.localAddress)
        a.send([UInt8](repeating: 7, count: UDPTransport.maxDatagram + 1), to: b.localAddress)   // never sent
        a.send([4], to: b.localAddress)
        try await withTimeout(seconds: 10) {
            var got = 0
            for await _ in stream { got += 1; if got == 2 { break } }
        }
        let r = received.withLock { $0 }
        #expect(r.map(\.bytes) == [[1, 2, 3], [4]])
        #expect(r.allSatisfy { $0.from == describe(a.localAddress) })
        await a.close(); await b.close()
        try await group.shutdownGracefully()
    }

    @Test func badAddressesAreOneLineErrors() throws {
        #expect(throws: TransportError.self) { try UDPTransport.resolve("localhost") }
        #expect(throws: TransportError.self) { try UDPTransport.resolve("127.0.0.1:99999") }
        #expect(describe(try UDPTransport.resolve("127.0.0.1:7400")) == "127.0.0.1:7400")
    }
}
