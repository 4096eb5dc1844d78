import Foundation
import SwiftProtobuf
import SkwadCrypto

/// A direct message (or a delivery receipt) between two pseudonyms of a pack, as it travels:
/// one sealed box of a fixed size class (PROTOCOL.md §3a). The op carrying it is signed by a
/// one-off key; the sender's pseudonym and signature are inside the box (sealed sender).
public struct DirectMessage: Hashable, Sendable {
    public var sealed: [UInt8]
    public init(sealed: [UInt8]) { self.sealed = sealed }
}

/// What a direct message says, once opened: a text, or a receipt acknowledging direct
/// messages that arrived (never both).
public struct DirectLetter: Hashable, Sendable {
    public var sender: PublicKey
    /// The sender's pseudonym stamp for the pack: a sender identity costs what any pseudonym costs.
    public var stamp: UInt64
    public var recipient: PublicKey
    /// 1...`Limits.maxBody` bytes in a message; empty in a receipt.
    public var text: String
    /// A receipt: ids of 1...`Limits.maxReceiptAcks` direct messages from the recipient.
    public var acks: [OpID]

    public init(sender: PublicKey, stamp: UInt64, recipient: PublicKey, text: String = "", acks: [OpID] = []) {
        self.sender = sender; self.stamp = stamp; self.recipient = recipient; self.text = text; self.acks = acks
    }

    public var isReceipt: Bool { !acks.isEmpty }
}

extension Limits {
    /// Plaintext sizes a direct message is padded to; the sealed box adds `sealOverhead`.
    public static let directClasses = [256, 512, 768]
    /// Sealed sizes admission accepts: 304, 560, 816 bytes.
    public static var directSealedSizes: [Int] { directClasses.map { $0 + sealOverhead } }
    /// Ids acknowledged by one receipt.
    public static let maxReceiptAcks = 8
    /// Letters from one sender to one recipient shown per clock hour: the smallest (hlc, id) count.
    public static let lettersPerSenderHour = 60
}

extension DirectLetter {
    /// What the sender signs: the letter bound to its pack and to the op that carries it, so
    /// it can be neither moved to another pack nor re-sent under another op.
    static func signedBytes(_ letter: [UInt8], pack: PackID, carrier: PublicKey) -> [UInt8] {
        Array("skwad/dm/v1".utf8) + pack.bytes + carrier.bytes + letter
    }

    func serialized() -> [UInt8] {
        var m = Skwad_V1_DirectLetter()
        m.sender = Data(sender.bytes); m.stamp = stamp; m.recipient = Data(recipient.bytes); m.text = text
        m.acks = acks.map { Data($0.bytes) }
        var opts = BinaryEncodingOptions(); opts.useDeterministicOrdering = true
        return [UInt8]((try? m.serializedData(options: opts)) ?? Data())
    }

    init(serialized bytes: [UInt8]) throws {
        let m: Skwad_V1_DirectLetter
        do { m = try Skwad_V1_DirectLetter(serializedBytes: bytes) } catch { throw ModelError.malformed("letter is not valid protobuf") }
        guard m.sender.count == 32, m.recipient.count == 32 else { throw ModelError.malformed("letter keys must be 32 bytes") }
        sender = try PublicKey(bytes: [UInt8](m.sender)); recipient = try PublicKey(bytes: [UInt8](m.recipient))
        stamp = m.stamp; text = m.text
        guard m.acks.count <= Limits.maxReceiptAcks, m.acks.allSatisfy({ $0.count == OpID.byteCount }) else {
            throw ModelError.malformed("a receipt acknowledges 1...\(Limits.maxReceiptAcks) ids of 32 bytes")
        }
        acks = m.acks.map { OpID(unchecked: [UInt8]($0)) }
        try check()
    }

    /// A text of 1...`maxBody` bytes and no acks, or acks and no text.
    func check() throws {
        if acks.isEmpty {
            guard !text.trimmingWhitespace().isEmpty else { throw ModelError.invalid("a direct message is empty") }
            guard text.utf8.count <= Limits.maxBody else {
                throw ModelError.tooLarge("message is \(text.utf8.count) bytes, limit \(Limits.maxBody)")
            }
        } else {
            guard text.isEmpty, acks.count <= Limits.maxReceiptAcks else {
                throw ModelError.invalid("a receipt carries 1...\(Limits.maxReceiptAcks) ids and no text")
            }
        }
    }
}

extension DirectMessage {
    /// Signs `letter` with `sender` (its key must be `letter.sender`), pads it to the smallest
    /// size class that holds it, and seals it to the recipient's pseudonym. `carrier` is the
    /// one-off key that will sign the op.
    public static func seal(
        _ letter: DirectLetter, signer sender: SigningKeyPair, pack: PackID,
        carrier: PublicKey
    ) throws -> DirectMessage {
        guard sender.publicKey == letter.sender else { throw ModelError.invalid("the letter's sender is not the signing key") }
        try letter.check()
        return try sealUnchecked(letter, signer: sender, pack: pack, carrier: carrier)
    }

    /// `seal` without its checks: what a hostile peer can write (a letter claiming a sender
    /// whose key did not sign it, an empty text). For attack tests.
    public static func sealUnchecked(
        _ letter: DirectLetter, signer sender: SigningKeyPair, pack: PackID,
        carrier: PublicKey
    ) throws -> DirectMessage {
        let bytes = letter.serialized()
        var seal = Skwad_V1_DirectSeal()
        seal.letter = Data(bytes)
        seal.signature = Data(sender.sign(DirectLetter.signedBytes(bytes, pack: pack, carrier: carrier)))
        var opts = BinaryEncodingOptions(); opts.useDeterministicOrdering = true
        let inner = [UInt8]((try? seal.serializedData(options: opts)) ?? Data())
        guard let size = Limits.directClasses.first(where: { $0 >= inner.count + 2 }) else {
            throw ModelError.tooLarge("letter of \(inner.count) bytes does not fit the largest size class")
        }
        var plain = [UInt8(inner.count >> 8), UInt8(inner.count & 0xff)] + inner
        plain += [UInt8](repeating: 0, count: size - plain.count)
        return DirectMessage(sealed: try SealedBox.seal(plain, to: try letter.recipient.curve25519()))
    }

    /// The letter, when the box opens with `key` (the recipient's pseudonym), is addressed
    /// to it, and carries a valid signature of its sender bound to `pack` and `carrier`; nil
    /// for anyone else and for anything malformed or forged. The sender's stamp is checked
    /// by the caller, which knows the pack's genesis.
    public func open(with key: SigningKeyPair, pack: PackID, carrier: PublicKey) -> DirectLetter? {
        guard let pk = try? key.publicKey.curve25519(), let sk = try? key.curve25519SecretKey(),
            let plain = try? SealedBox.open(sealed, publicKey: pk, secretKey: sk), plain.count >= 2
        else { return nil }
        let n = Int(plain[0]) << 8 | Int(plain[1])
        guard n <= plain.count - 2, plain[(2 + n)...].allSatisfy({ $0 == 0 }),
            let seal = try? Skwad_V1_DirectSeal(serializedBytes: Array(plain[2..<(2 + n)])),
            let letter = try? DirectLetter(serialized: [UInt8](seal.letter)),
            letter.recipient == key.publicKey, letter.sender != key.publicKey,
            letter.sender.verify(
                signature: [UInt8](seal.signature),
                message: DirectLetter.signedBytes(
                    [UInt8](seal.letter), pack: pack,
                    carrier: carrier))
        else { return nil }
        return letter
    }
}

/// The safety number of two pseudonyms of a pack (`verify`): the same on both sides, 20
/// digits in four groups, compared out of band (PROTOCOL.md §3a).
public enum SafetyNumber {
    public static func of(_ a: PublicKey, _ b: PublicKey, pack: PackID) -> String {
        let (lo, hi) = a < b ? (a, b) : (b, a)
        let h = Blake2b.hash256(Array("skwad/safety/v1".utf8) + pack.bytes + lo.bytes + hi.bytes)
        var groups: [String] = []
        for g in 0..<4 {
            var v: UInt64 = 0
            for i in 0..<5 { v = v << 8 | UInt64(h[g * 5 + i]) }
            let digits = String(v % 100_000)
            groups.append(String(repeating: "0", count: 5 - digits.count) + digits)
        }
        return groups.joined(separator: " ")
    }
}
