import SkwadCrypto

enum SigningKeyPairFactory {
    static func generate() -> (seedHex: String, publicHex: String) {
        let k = SigningKeyPair.generate()
        return (Hex.encode(k.seed), k.publicKey.hex)
    }
}
