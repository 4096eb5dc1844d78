import Testing
@testable import SkwadCrypto

@Suite struct Blake2bTests {
    @Test func emptyString256() {
        #expect(Hex.encode(Blake2b.hash256([])) == "0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8")
    }

    // RFC 7693 Appendix A: BLAKE2b-512("abc").
    @Test func rfc7693abc() {
        let h = Blake2b.hash(Array("abc".utf8), outputCount: 64)
        #expect(
            Hex.encode(h)
                == "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1"
                + "7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923"
        )
    }

    @Test func keyedDiffersAndPartsAreUnambiguous() {
        let k = [UInt8](repeating: 7, count: 32)
        #expect(Blake2b.hash256([1, 2, 3]) != Blake2b.hash256([1, 2, 3], key: k))
        #expect(Blake2b.hash256(parts: [[1], [2, 3]]) != Blake2b.hash256(parts: [[1, 2], [3]]))
    }

    @Test func hexRoundTripAndRejects() {
        #expect(Hex.decode("00ff10") == [0, 255, 16])
        #expect(Hex.decode("0") == nil)
        #expect(Hex.decode("zz") == nil)
        #expect(Hex.encode([0xde, 0xad]) == "dead")
    }
}
