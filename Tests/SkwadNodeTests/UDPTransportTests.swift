import Testing
import NIOCore
import NIOPosix
import Synchronization
import SkwadGossip
@testable import SkwadNode
import SkwadTestKit

@Suite struct UDPTransportTests {
    // Order, size limit, port held (finding 2: no SO_REUSEADDR), bounded queue (finding 7):
    // DatagramTransportTests, for this transport and the in-memory one.

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
