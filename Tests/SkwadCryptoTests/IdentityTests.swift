import Testing
@testable import SkwadCrypto

@Suite struct IdentityTests {
    @Test func pseudonymsAreStablePerPackAndUnlinkableAcross() throws {
        let m = try MasterSecret(bytes: [UInt8](repeating: 1, count: 32))
        let other = try MasterSecret(bytes: [UInt8](repeating: 2, count: 32))
        let n1 = [UInt8](repeating: 9, count: 16), n2 = [UInt8](repeating: 8, count: 16)
        #expect(m.pseudonym(genesisNonce: n1).publicKey == m.pseudonym(genesisNonce: n1).publicKey)
        #expect(m.pseudonym(genesisNonce: n1).publicKey != m.pseudonym(genesisNonce: n2).publicKey)
        #expect(m.pseudonym(genesisNonce: n1).publicKey != other.pseudonym(genesisNonce: n1).publicKey)
    }

    @Test func sealedBoxToAPseudonym() throws {
        let key = SigningKeyPair.generate()
        let sealed = try SealedBox.seal(Array("spam report".utf8), to: key.publicKey.curve25519())
        let opened = try SealedBox.open(sealed, publicKey: key.publicKey.curve25519(), secretKey: key.curve25519SecretKey())
        #expect(String(decoding: opened, as: UTF8.self) == "spam report")
        var tampered = sealed; tampered[tampered.count - 1] ^= 1
        #expect(throws: CryptoError.self) {
            try SealedBox.open(tampered, publicKey: key.publicKey.curve25519(), secretKey: key.curve25519SecretKey())
        }
        let stranger = SigningKeyPair.generate()
        #expect(throws: CryptoError.self) {
            try SealedBox.open(sealed, publicKey: stranger.publicKey.curve25519(), secretKey: stranger.curve25519SecretKey())
        }
    }

    @Test func kxAndAeadAgree() throws {
        let c = KxKeyPair.generate(), s = KxKeyPair.generate()
        let ck = try c.clientSessionKeys(serverPublicKey: s.publicKey)
        let sk = try s.serverSessionKeys(clientPublicKey: c.publicKey)
        #expect(ck.tx == sk.rx && ck.rx == sk.tx && ck.tx != ck.rx)
        let nonce = [UInt8](repeating: 3, count: 24)
        let ct = try AEAD.seal([1, 2, 3], additionalData: [9], nonce: nonce, key: ck.tx)
        #expect(try AEAD.open(ct, additionalData: [9], nonce: nonce, key: sk.rx) == [1, 2, 3])
        #expect(throws: CryptoError.self) { try AEAD.open(ct, additionalData: [8], nonce: nonce, key: sk.rx) }
    }

    @Test func proofOfWorkBindsAuthorToNonce() {
        let nonce = [UInt8](repeating: 5, count: 16), author = [UInt8](repeating: 6, count: 32)
        let s = ProofOfWork.mint(genesisNonce: nonce, author: author, bits: 10)
        #expect(ProofOfWork.isValid(genesisNonce: nonce, author: author, stamp: s, bits: 10))
        #expect(ProofOfWork.leadingZeroBits(ProofOfWork.digest(genesisNonce: nonce, author: author, stamp: s)) >= 10)
        // The same stamp almost surely fails for another nonce at 10 bits (p = 2^-10); find a
        // deterministic counterexample among a few nonces to show the binding.
        let others = (0..<8).map { [UInt8](repeating: UInt8(100 + $0), count: 16) }
        #expect(others.contains { !ProofOfWork.isValid(genesisNonce: $0, author: author, stamp: s, bits: 10) })
        #expect(ProofOfWork.leadingZeroBits([0, 0x10]) == 11)
    }
}
