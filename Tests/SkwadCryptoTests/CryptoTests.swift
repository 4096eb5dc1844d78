import Testing
@testable import SkwadCrypto

@Suite struct Ed25519VectorTests {
    // RFC 8032 §7.1, TEST 1–3.
    static let vectors: [(sk: String, pk: String, msg: String, sig: String)] = [
        ("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
         "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
         "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"),
        ("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
         "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
         "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"),
        ("c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
         "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025", "af82",
         "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a"),
    ]

    @Test(arguments: 0..<3) func rfc8032(index: Int) throws {
        let v = Self.vectors[index]
        let key = try SigningKeyPair(seed: Hex.decode(v.sk)!)
        #expect(key.publicKey.hex == v.pk)
        let msg = Hex.decode(v.msg)!
        let sig = key.sign(msg)
        #expect(Hex.encode(sig) == v.sig)
        #expect(key.publicKey.verify(signature: sig, message: msg))
        var bad = sig; bad[0] ^= 1
        #expect(!key.publicKey.verify(signature: bad, message: msg))
        #expect(!key.publicKey.verify(signature: sig, message: msg + [0]))
        #expect(!key.publicKey.verify(signature: Array(sig.prefix(63)), message: msg))
    }

    @Test func badKeyLengthsAreErrors() {
        #expect(throws: CryptoError.self) { try SigningKeyPair(seed: [1, 2, 3]) }
        #expect(throws: CryptoError.self) { try PublicKey(bytes: [UInt8](repeating: 0, count: 31)) }
    }
}

@Suite struct Blake2bTests {
    @Test func emptyString256() {
        #expect(Hex.encode(Blake2b.hash256([])) == "0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8")
    }

    // RFC 7693 Appendix A: BLAKE2b-512("abc").
    @Test func rfc7693abc() {
        let h = Blake2b.hash(Array("abc".utf8), outputCount: 64)
        #expect(Hex.encode(h) == "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923")
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
