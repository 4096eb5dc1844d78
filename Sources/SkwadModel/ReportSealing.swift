import Foundation
import SwiftProtobuf
import SkwadCrypto

/// Sealing and opening reports (PROTOCOL.md §3, `Report`). The op is signed by a one-off key
/// (the carrier), so nobody but a moderator learns who reported: the reporter's pseudonym is
/// inside, with its signature binding the content to the pack and the carrier. One random report
/// key is `crypto_box_seal`ed to the X25519 form of each moderator's Ed25519 key, and the padded
/// seal is sealed once under it (XChaCha20-Poly1305). Relays carry the boxes and open none.
extension Report {
    /// Who a report in a pack is sealed to: the Alpha first, then admin keys in byte order,
    /// `Limits.maxReportRecipients` at most in all.
    public static func recipients(alpha: PublicKey, adminKeys: Set<PublicKey>) -> [PublicKey] {
        let admins = adminKeys.subtracting([alpha]).sorted()
        return Array(([alpha] + admins).prefix(Limits.maxReportRecipients))
    }

    /// What the reporter signs: the content bound to its pack and to the op carrying it, so it
    /// can be neither moved to another pack nor re-sent under another op.
    static func signedBytes(_ content: [UInt8], pack: PackID, carrier: PublicKey) -> [UInt8] {
        Array("skwad/report/v1".utf8) + pack.bytes + carrier.bytes + content
    }

    /// The box's additional data: the pack and the carrier.
    static func boxAAD(pack: PackID, carrier: PublicKey) -> [UInt8] {
        Array("skwad/report/v1".utf8) + pack.bytes + carrier.bytes
    }

    /// Seals `content`, signed by `reporter` (whose key must be `content.reporter`), to each of
    /// `moderators` (1...`Limits.maxReportRecipients`). `carrier`: the one-off key that signs the op.
    /// `key` and `nonce`: the box's fresh secret key and nonce (`AEAD.keyCount`, `AEAD.nonceCount`
    /// bytes), drawn by the caller: the model draws no randomness.
    public static func seal(
        _ content: ReportContent, signer reporter: SigningKeyPair, to moderators: [PublicKey], pack: PackID, carrier: PublicKey,
        key: [UInt8], nonce: [UInt8]
    ) throws -> Report {
        guard reporter.publicKey == content.reporter else { throw ModelError.invalid("the report's reporter is not the signing key") }
        return try sealUnchecked(content, signer: reporter, to: moderators, pack: pack, carrier: carrier, key: key, nonce: nonce)
    }

    /// `seal` without the reporter check: what a hostile peer can write (a content naming a
    /// reporter whose key did not sign it). For attack tests.
    public static func sealUnchecked(
        _ content: ReportContent, signer: SigningKeyPair, to moderators: [PublicKey], pack: PackID, carrier: PublicKey,
        key: [UInt8], nonce: [UInt8]
    ) throws -> Report {
        guard key.count == AEAD.keyCount, nonce.count == AEAD.nonceCount else {
            throw ModelError.invalid("a report's box takes a \(AEAD.keyCount)-byte key and a \(AEAD.nonceCount)-byte nonce")
        }
        guard !moderators.isEmpty, moderators.count <= Limits.maxReportRecipients else {
            throw ModelError.invalid("a report is sealed to 1...\(Limits.maxReportRecipients) moderators")
        }
        let bytes = content.serialized()
        var seal = Skwad_V1_ReportSeal()
        seal.content = Data(bytes)
        seal.signature = Data(signer.sign(signedBytes(bytes, pack: pack, carrier: carrier)))
        var opts = BinaryEncodingOptions(); opts.useDeterministicOrdering = true
        let inner = [UInt8]((try? seal.serializedData(options: opts)) ?? Data())
        guard inner.count + 2 <= Limits.reportPadded else {
            throw ModelError.tooLarge("report of \(inner.count) bytes does not fit \(Limits.reportPadded)")
        }
        var plain = [UInt8(inner.count >> 8), UInt8(inner.count & 0xff)] + inner
        plain += [UInt8](repeating: 0, count: Limits.reportPadded - plain.count)
        let box = nonce + (try AEAD.seal(plain, additionalData: boxAAD(pack: pack, carrier: carrier), nonce: nonce, key: key))
        return Report(keys: try moderators.map { try SealedBox.seal(key, to: try $0.curve25519()) }, box: box)
    }

    /// The content, when one of the key boxes opens with `key` (a moderator's Ed25519 key
    /// pair), the box opens under `pack` and `carrier` (the op's author), and the content is
    /// signed by the reporter it names; nil for anyone else and for anything malformed or
    /// forged. The reporter's stamp is checked by the caller, which knows the pack's genesis.
    public func open(with key: SigningKeyPair, pack: PackID, carrier: PublicKey) -> ReportContent? {
        guard let pk = try? key.publicKey.curve25519(), let sk = try? key.curve25519SecretKey(),
            box.count == Limits.reportBox
        else { return nil }
        for sealedKey in keys.prefix(Limits.maxReportRecipients) {
            guard let reportKey = try? SealedBox.open(sealedKey, publicKey: pk, secretKey: sk), reportKey.count == AEAD.keyCount,
                let plain = try? AEAD.open(
                    Array(box[AEAD.nonceCount...]), additionalData: Self.boxAAD(pack: pack, carrier: carrier),
                    nonce: Array(box[..<AEAD.nonceCount]), key: reportKey),
                plain.count >= 2
            else { continue }
            let n = Int(plain[0]) << 8 | Int(plain[1])
            guard n <= plain.count - 2, plain[(2 + n)...].allSatisfy({ $0 == 0 }),
                let seal = try? Skwad_V1_ReportSeal(serializedBytes: Array(plain[2..<(2 + n)])),
                let content = try? ReportContent(serialized: [UInt8](seal.content)),
                content.reporter.verify(
                    signature: [UInt8](seal.signature),
                    message: Self.signedBytes([UInt8](seal.content), pack: pack, carrier: carrier))
            else { return nil }
            return content
        }
        return nil
    }
}
