import Testing
import SkwadCrypto
import SkwadModel

/// Join codes of invite-only packs (PROTOCOL.md §3b): they round-trip, and a typo is a clear error.
@Suite struct JoinCodeTests {
    static let pack = OpID.of(body: [1, 2, 3])

    @Test func aCodeRoundTripsWithAndWithoutAGenesisKey() throws {
        let a = JoinCode(pack: Self.pack, epoch: 0, key: [UInt8](repeating: 4, count: 32), address: "127.0.0.1:7400")
        let b = JoinCode(
            pack: Self.pack, epoch: 3, key: [UInt8](repeating: 5, count: 32), genesisKey: [UInt8](repeating: 6, count: 32),
            address: "10.1.2.3:9")
        for c in [a, b] {
            let text = c.encoded()
            #expect(text.hasPrefix("skw-") && JoinCode.looks(text))
            #expect(try JoinCode(parsing: text) == c)
            #expect(try JoinCode(parsing: text.uppercased()) == c)
        }
        // 78 bytes: 125 code characters, in groups of 5.
        #expect(a.encoded().count < 160)
        let named = JoinCode(pack: Self.pack, epoch: 0, key: [UInt8](repeating: 4, count: 32), address: "flat.example:7400")
        #expect(try JoinCode(parsing: named.encoded()) == named)
    }

    @Test func aTypoIsACleanError() throws {
        let text = JoinCode(pack: Self.pack, epoch: 0, key: [UInt8](repeating: 4, count: 32), address: "127.0.0.1:7400").encoded()
        var chars = Array(text)
        let i = 20
        chars[i] = chars[i] == "a" ? "b" : "a"
        #expect(throws: ModelError.self) { try JoinCode(parsing: String(chars)) }
        do { _ = try JoinCode(parsing: String(chars)) } catch { #expect("\(error)".contains("typo")) }
        #expect(throws: ModelError.self) { try JoinCode(parsing: String(text.dropLast(7))) }
        #expect(throws: ModelError.self) { try JoinCode(parsing: "skw-" + String(repeating: "u", count: 100)) }
        #expect(throws: ModelError.self) { try JoinCode(parsing: String(repeating: "x", count: 1000)) }
    }
}
