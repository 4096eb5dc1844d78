import Testing
import SkwadCrypto
import SkwadModel
import SkwadTestKit

@Suite struct EnvelopeEncodingTests {
    @Test func handWrittenEncodingMatchesProtobuf() throws {
        var rng = SplitMix64(seed: 12)
        for n in [0, 1, 127, 128, 300, 1000] {
            let env = Envelope(body: rng.bytes(n), signature: rng.bytes(64))
            let back = try Envelope(serialized: env.serialized())
            #expect(back == env || n == 0)
            #expect(env.serialized().count == (n == 0 ? 0 : 1 + (n < 128 ? 1 : 2) + n) + 66)
        }
    }
}
