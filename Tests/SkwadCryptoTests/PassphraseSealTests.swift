import Testing
@testable import SkwadCrypto

/// Identity transfer (PROTOCOL §2): a secret sealed under a passphrase opens with that
/// passphrase only, and a damaged or hostile blob is refused with a reason.
@Suite struct PassphraseSealTests {
    static let secret = (0..<32).map { UInt8($0) }
    static let cheap = PassphraseSeal.WorkFactor.cheapest

    @Test func sealedSecretOpensWithItsPassphraseOnly() throws {
        let blob = try PassphraseSeal.seal(Self.secret, passphrase: "correct horse", work: Self.cheap)
        #expect(blob.count == 4 + 1 + 4 + 4 + 16 + 24 + 32 + 16)
        #expect(try PassphraseSeal.open(blob, passphrase: "correct horse") == Self.secret)
        #expect(throws: PassphraseError.wrongPassphrase) { try PassphraseSeal.open(blob, passphrase: "correct horsE") }
        // A fresh salt and nonce each time: two seals of one secret share no ciphertext.
        let again = try PassphraseSeal.seal(Self.secret, passphrase: "correct horse", work: Self.cheap)
        #expect(Array(again[13...]) != Array(blob[13...]))
    }

    @Test func everyDamagedByteIsRefused() throws {
        let blob = try PassphraseSeal.seal(Self.secret, passphrase: "correct horse", work: Self.cheap)
        for i in blob.indices where !(5..<13).contains(i) {  // the work factor: below
            var b = blob
            b[i] ^= 0x01
            #expect(throws: PassphraseError.self) { try PassphraseSeal.open(b, passphrase: "correct horse") }
        }
        #expect(throws: PassphraseError.notASealedSecret) { try PassphraseSeal.open(Array(blob.prefix(60)), passphrase: "correct horse") }
        #expect(throws: PassphraseError.notASealedSecret) { try PassphraseSeal.open([], passphrase: "correct horse") }
    }

    @Test func aWorkFactorOutOfBoundsIsRefusedBeforeHashing() throws {
        var blob = try PassphraseSeal.seal(Self.secret, passphrase: "correct horse", work: Self.cheap)
        // 4 GiB of memory asked (0x00400000 KiB): refused at once, not attempted.
        blob.replaceSubrange(9..<13, with: [0x00, 0x40, 0x00, 0x00])
        #expect(throws: PassphraseError.workFactor) { try PassphraseSeal.open(blob, passphrase: "correct horse") }
        blob.replaceSubrange(5..<9, with: [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(throws: PassphraseError.workFactor) { try PassphraseSeal.open(blob, passphrase: "correct horse") }
        // Within bounds but not the sealer's: the key differs, so the tag fails.
        var other = try PassphraseSeal.seal(Self.secret, passphrase: "correct horse", work: Self.cheap)
        other[8] = 2
        #expect(throws: PassphraseError.wrongPassphrase) { try PassphraseSeal.open(other, passphrase: "correct horse") }
    }

    @Test func shortPassphrasesAndUnknownVersionsAreRefused() throws {
        #expect(throws: PassphraseError.tooShort) { try PassphraseSeal.seal(Self.secret, passphrase: "1234567", work: Self.cheap) }
        var blob = try PassphraseSeal.seal(Self.secret, passphrase: "12345678", work: Self.cheap)
        blob[4] = 2
        #expect(throws: PassphraseError.version(2)) { try PassphraseSeal.open(blob, passphrase: "12345678") }
    }
}
