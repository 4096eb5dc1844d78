import Testing
import SkwadCrypto
import SkwadModel

/// Contact codes (PROTOCOL.md §9 "Contact codes"): they round-trip, stay short, and a typo or a
/// damaged code is a clear one-line error.
@Suite struct ContactCodeTests {
    static let fingerprint = ContactCode.fingerprint(of: try! SigningKeyPair(seed: [UInt8](repeating: 9, count: 32)).publicKey)

    @Test func aCodeRoundTripsWithAndWithoutAPack() throws {
        let a = ContactCode(fingerprint: Self.fingerprint, addresses: ["192.168.1.20:40271"])
        let b = ContactCode(
            fingerprint: Self.fingerprint, addresses: ["192.168.1.20:40271", "203.0.113.7:61000", "lan.example:7400"],
            packPrefix: [1, 2, 3, 4, 5, 6, 7, 8])
        for c in [a, b] {
            let text = c.encoded()
            #expect(text.hasPrefix("skn-") && ContactCode.looks(text) && !JoinCode.looks(text))
            #expect(try ContactCode(parsing: text) == c)
            #expect(try ContactCode(parsing: text.uppercased()) == c)
            #expect(
                try ContactCode(parsing: text.replacingOccurrences(of: "-", with: " ").replacingOccurrences(of: "skn ", with: "skn-")) == c)
        }
        // One address: 33 bytes with the checksum, 53 code characters.
        #expect(a.encoded().count <= 70, "\(a.encoded())")
        #expect(ContactCode(fingerprint: Self.fingerprint, addresses: Array(repeating: "10.0.0.1:1", count: 9)).addresses.count == 4)
    }

    @Test func aTypoOrADamagedCodeIsAClearError() throws {
        let text = ContactCode(fingerprint: Self.fingerprint, addresses: ["10.0.0.1:7400"]).encoded()
        var chars = Array(text)
        chars[10] = chars[10] == "a" ? "b" : "a"
        #expect(throws: ModelError.self) { try ContactCode(parsing: String(chars)) }
        do {
            _ = try ContactCode(parsing: String(chars))
        } catch {
            #expect("\(error)".contains("typo"))
        }
        #expect(throws: ModelError.self) { try ContactCode(parsing: String(text.dropLast(6))) }
        #expect(throws: ModelError.self) { try ContactCode(parsing: "skn-" + String(repeating: "u", count: 40)) }
        #expect(throws: ModelError.self) { try ContactCode(parsing: "skw-" + text.dropFirst(4)) }
        #expect(throws: ModelError.self) { try ContactCode(parsing: text + String(repeating: "0", count: 400)) }
        // No address at all is not a code one can use.
        #expect(throws: ModelError.self) { try ContactCode(parsing: ContactCode(fingerprint: Self.fingerprint, addresses: []).encoded()) }
    }
}
