import SkwadCrypto
import SkwadModel

/// The inputs of the test vector in docs/PROTOCOL.md §7.
enum TestVector {
    static let master = try! MasterSecret(bytes: (0..<32).map { UInt8($0) })
    static let nonce: [UInt8] = (0..<16).map { UInt8(0xA0 + $0) }
    static let packID = try! OpID(bytes: [UInt8](repeating: 0x11, count: 32))
    static var pseudonym: SigningKeyPair { master.pseudonym(genesisNonce: nonce) }
    static var body: OpBody {
        OpBody(
            packID: packID, author: pseudonym.publicKey, hlc: HLC(physicalMs: 1_790_000_000_000, counter: 1),
            location: "dpphz6q", stamp: 7, kind: .post(Post(title: "hello", body: "first post", tags: ["intro"])))
    }
}
