import Testing
@testable import SkwadNode

/// The LAN beacon's bytes (PROTOCOL §9, "LAN beacon"): what is read, what is refused.
@Suite struct LanBeaconFormatTests {
    static let mine: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]
    static let theirs: [UInt8] = [9, 9, 9, 9, 9, 9, 9, 9]

    @Test func aBeaconNamesItsGossipPortAndNothingElse() {
        let b = LanBeacon.datagram(gossipPort: 40271, instance: Self.theirs)
        #expect(b.count == LanBeacon.size && b.count * 3 >= 4 * 200)  // 4 HELLOs of 200 bytes at most
        #expect(Array(b[15...]).allSatisfy { $0 == 0 })
        #expect(LanBeacon.parse(b, ownInstance: Self.mine) == 40271)
        #expect(LanBeacon.parse(b, ownInstance: Self.theirs) == nil)  // our own, looped back
    }

    @Test func anythingElseIsRefused() {
        let b = LanBeacon.datagram(gossipPort: 40271, instance: Self.theirs)
        #expect(LanBeacon.parse(Array(b.dropLast()), ownInstance: Self.mine) == nil)
        #expect(LanBeacon.parse(b + [0], ownInstance: Self.mine) == nil)
        var magic = b; magic[0] = UInt8(ascii: "X")
        #expect(LanBeacon.parse(magic, ownInstance: Self.mine) == nil)
        var version = b; version[4] = 2
        #expect(LanBeacon.parse(version, ownInstance: Self.mine) == nil)
        #expect(LanBeacon.parse(LanBeacon.datagram(gossipPort: 0, instance: Self.theirs), ownInstance: Self.mine) == nil)
        #expect(LanBeacon.ipv4("10.78.0.300") == nil && LanBeacon.ipv4("10.78.0.3") == 0x0A4E_0003)
    }
}
