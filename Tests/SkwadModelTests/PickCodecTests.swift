import Foundation
import Testing
import SkwadCrypto
@testable import SkwadModel

/// A `Pick` whose ids are not 32 bytes is refused by the codec, before any state (SECURITY.md
/// "Captions").
@Suite struct PickCodecTests {
    @Test func aPickWithAShortIdIsMalformed() throws {
        let key = SigningKeyPair.generate()
        var w = Skwad_V1_OpBody()
        w.version = wireVersion
        w.packID = Data(repeating: 1, count: 32)
        w.author = Data(key.publicKey.bytes)
        var k = Skwad_V1_Pick()
        k.ask = Data(repeating: 2, count: 8)
        k.caption = Data(repeating: 3, count: 32)
        w.pick = k
        let bytes = [UInt8](try w.serializedData())
        do { _ = try OpBody(serialized: bytes); Issue.record("a short ask id was accepted") } catch {
            #expect("\(error)".contains("pick ask"))
        }
        k.ask = Data(repeating: 2, count: 32)
        w.pick = k
        let body = try OpBody(serialized: [UInt8](try w.serializedData()))
        guard case .pick(let p) = body.kind else { Issue.record("not a pick"); return }
        #expect(p.ask.bytes == [UInt8](repeating: 2, count: 32))
    }
}
