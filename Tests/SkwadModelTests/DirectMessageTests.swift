import Testing
import SkwadCrypto
import SkwadModel

/// Direct messages (PROTOCOL.md §3a): sealed sender, fixed size classes, bindings.
@Suite struct DirectMessageTests {
    let pack = try! OpID(bytes: [UInt8](repeating: 7, count: 32))
    let other = try! OpID(bytes: [UInt8](repeating: 8, count: 32))
    let alice = SigningKeyPair.generate(), bob = SigningKeyPair.generate(), mallory = SigningKeyPair.generate()
    let carrier = SigningKeyPair.generate()

    func letter(_ text: String, acks: [OpID] = []) -> DirectLetter {
        DirectLetter(sender: alice.publicKey, stamp: 42, recipient: bob.publicKey, text: text, acks: acks)
    }

    @Test func onlyTheRecipientOpensAndSeesTheSender() throws {
        let dm = try DirectMessage.seal(letter("meet at 6"), signer: alice, pack: pack, carrier: carrier.publicKey)
        let opened = try #require(dm.open(with: bob, pack: pack, carrier: carrier.publicKey))
        #expect(opened.sender == alice.publicKey && opened.text == "meet at 6" && opened.stamp == 42)
        #expect(dm.open(with: mallory, pack: pack, carrier: carrier.publicKey) == nil)
        #expect(dm.open(with: alice, pack: pack, carrier: carrier.publicKey) == nil)  // the sender cannot read it back
        // The plaintext is nowhere in the box, nor the sender's key.
        #expect(!dm.sealed.contains(subsequence: Array("meet at 6".utf8)))
        #expect(!dm.sealed.contains(subsequence: alice.publicKey.bytes))
    }

    @Test func sizesAreOnlyTheClasses() throws {
        var seen = Set<Int>()
        for n in [1, 50, 100, 200, 300, 450, 600] {
            let dm = try DirectMessage.seal(letter(String(repeating: "x", count: n)), signer: alice, pack: pack, carrier: carrier.publicKey)
            #expect(Limits.directSealedSizes.contains(dm.sealed.count), "\(n) bytes -> \(dm.sealed.count)")
            seen.insert(dm.sealed.count)
        }
        #expect(seen == Set(Limits.directSealedSizes))
        let receipt = try DirectMessage.seal(
            letter("", acks: (0..<8).map { try! OpID(bytes: [UInt8](repeating: UInt8($0), count: 32)) }),
            signer: alice, pack: pack, carrier: carrier.publicKey)
        #expect(Limits.directSealedSizes.contains(receipt.sealed.count))
        #expect(throws: ModelError.self) {
            try DirectMessage.seal(
                letter(String(repeating: "x", count: 601)), signer: alice,
                pack: pack, carrier: carrier.publicKey)
        }
        #expect(throws: ModelError.self) { try DirectMessage.seal(letter("  "), signer: alice, pack: pack, carrier: carrier.publicKey) }
    }

    @Test func aLetterIsBoundToItsPackItsCarrierAndItsSender() throws {
        let dm = try DirectMessage.seal(letter("hi"), signer: alice, pack: pack, carrier: carrier.publicKey)
        #expect(dm.open(with: bob, pack: other, carrier: carrier.publicKey) == nil)  // moved to another pack
        #expect(dm.open(with: bob, pack: pack, carrier: mallory.publicKey) == nil)  // re-sent under another op
        // Mallory claims to be Alice: the signature is Mallory's, so the letter says nothing.
        let forged = try DirectMessage.sealUnchecked(letter("send money"), signer: mallory, pack: pack, carrier: carrier.publicKey)
        #expect(forged.open(with: bob, pack: pack, carrier: carrier.publicKey) == nil)
        #expect(throws: ModelError.self) { try DirectMessage.seal(letter("x"), signer: mallory, pack: pack, carrier: carrier.publicKey) }
    }

    @Test func aMessageAtItsLimitFitsAnEnvelope() throws {
        let dm = try DirectMessage.seal(letter(String(repeating: "é", count: 300)), signer: alice, pack: pack, carrier: carrier.publicKey)
        let body = OpBody(
            packID: pack, author: carrier.publicKey, hlc: HLC(physicalMs: 1_790_000_000_000, counter: 0), stamp: .max,
            kind: .directMessage(dm))
        let op = try SignedOp.sign(body, with: carrier)
        #expect(op.envelope.serialized().count <= Limits.maxEnvelopeBytes)
        #expect(try SignedOp.open(op.envelope.serialized()).body.kind == .directMessage(dm))
    }

    @Test func theSafetyNumberIsTheSameOnBothSidesAndDiffersByPack() {
        let ab = SafetyNumber.of(alice.publicKey, bob.publicKey, pack: pack)
        #expect(ab == SafetyNumber.of(bob.publicKey, alice.publicKey, pack: pack))
        #expect(ab != SafetyNumber.of(alice.publicKey, bob.publicKey, pack: other))
        #expect(ab != SafetyNumber.of(alice.publicKey, mallory.publicKey, pack: pack))
        #expect(ab.count == 23 && ab.split(separator: " ").count == 4 && ab.allSatisfy { $0 == " " || $0.isNumber })
    }
}

extension Array where Element == UInt8 {
    func contains(subsequence s: [UInt8]) -> Bool {
        guard s.count <= count else { return false }
        return (0...(count - s.count)).contains { Array(self[$0..<($0 + s.count)]) == s }
    }
}
