import SkwadCrypto

/// Sealing and opening reports (PROTOCOL.md §3, `Report`): one `crypto_box_seal` of the
/// content per moderator, to the X25519 form of the moderator's Ed25519 key. Relays carry
/// the boxes and can open none of them.
extension Report {
    /// Who a report in a pack is sealed to: the Alpha first, then admin keys in byte order,
    /// `Limits.maxReportRecipients` at most in all.
    public static func recipients(alpha: PublicKey, adminKeys: Set<PublicKey>) -> [PublicKey] {
        let admins = adminKeys.subtracting([alpha]).sorted()
        return Array(([alpha] + admins).prefix(Limits.maxReportRecipients))
    }

    /// Seals `content` to each of `moderators` (at most `Limits.maxReportRecipients`).
    public static func seal(_ content: ReportContent, to moderators: [PublicKey]) throws -> Report {
        guard !moderators.isEmpty, moderators.count <= Limits.maxReportRecipients else {
            throw ModelError.invalid("a report is sealed to 1...\(Limits.maxReportRecipients) moderators")
        }
        let plain = content.serialized()
        return Report(sealed: try moderators.map { try SealedBox.seal(plain, to: try $0.curve25519()) })
    }

    /// The content, when one of the boxes opens with `key` (a moderator's Ed25519 key pair);
    /// nil for anyone else, and for boxes whose content is malformed.
    public func open(with key: SigningKeyPair) -> ReportContent? {
        guard let pk = try? key.publicKey.curve25519(), let sk = try? key.curve25519SecretKey() else { return nil }
        for box in sealed.prefix(Limits.maxReportRecipients) {
            if let plain = try? SealedBox.open(box, publicKey: pk, secretKey: sk), let c = try? ReportContent(serialized: plain) {
                return c
            }
        }
        return nil
    }
}
