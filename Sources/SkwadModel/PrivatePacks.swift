import Foundation
import SwiftProtobuf
import SkwadCrypto

/// An op of an invite-only pack as it travels (PROTOCOL.md §3b): its kind, padded and sealed
/// with XChaCha20-Poly1305 under the pack key of `epoch`. Relays see the pack, the pseudonym,
/// the time and a size class; members open it into the kind inside.
public struct Sealed: Hashable, Sendable {
    public var epoch: UInt32
    /// nonce (24 bytes) || ciphertext with its 16-byte tag.
    public var box: [UInt8]
    public init(epoch: UInt32, box: [UInt8]) { self.epoch = epoch; self.box = box }
}

/// A new key of an invite-only pack (epoch >= 1), by its Alpha: one sealed box of the key per
/// remaining member's pseudonym. A removed member gets none (PROTOCOL.md §3b).
public struct PackKeys: Hashable, Sendable {
    public var epoch: UInt32
    public var sealed: [[UInt8]]
    public init(epoch: UInt32, sealed: [[UInt8]]) { self.epoch = epoch; self.sealed = sealed }
}

extension Limits {
    /// Pack key epochs: 0 (the genesis key) ... this.
    public static let maxPackEpoch: UInt32 = 1000
    /// Sealed keys in one `PackKeys` op (more members: several ops of the same epoch).
    public static let maxPackKeyEntries = 10
    public static let packKeyBytes = 32
    /// crypto_box_seal of a 32-byte key.
    public static var sealedPackKeyBytes: Int { packKeyBytes + sealOverhead }
    /// A sealed op's plaintext is padded to a multiple of this.
    public static let sealedPad = 64
    /// Bounds of `CreatePack.sealed_meta` and of a `Sealed` box (nonce, tag, padded plaintext).
    public static let maxSealedMeta = 512
    public static let minSealedBox = 24 + 16 + 64
    public static let maxSealedBox = 24 + 16 + 64 * 14
}

/// Invite-only packs: pack keys, the sealed genesis metadata (PROTOCOL.md §3b).
public enum PrivatePack {
    /// The clear shape of an invite-only genesis: no name, tags or colour, a sealed meta of
    /// bounded size, no lock (a lock would need location claims in the clear).
    static func check(_ c: CreatePack) throws {
        guard c.name.isEmpty, c.tags.isEmpty, c.color.isEmpty else {
            throw ModelError.invalid("an invite-only pack shows no name, tags or colour in the clear")
        }
        guard (24 + 16 + 1...Limits.maxSealedMeta).contains(c.sealedMeta.count) else {
            throw ModelError.invalid("sealed_meta of \(c.sealedMeta.count) bytes (41...\(Limits.maxSealedMeta))")
        }
        guard !c.locked else { throw ModelError.invalid("an invite-only pack cannot be locked") }
        guard (Limits.minNonce...Limits.maxNonce).contains(c.nonce.count) else {
            throw ModelError.invalid("genesis nonce must be \(Limits.minNonce)...\(Limits.maxNonce) bytes")
        }
        guard c.powBits <= Limits.maxPowBits else { throw ModelError.invalid("pow_bits above \(Limits.maxPowBits)") }
    }

    static func metaAD(_ nonce: [UInt8]) -> [UInt8] { Array("skwad/pack-meta/v1".utf8) + nonce }

    /// Seals name, tags and colour under the epoch-0 key, bound to the genesis nonce. `nonce`:
    /// 24 fresh random bytes, drawn by the caller (the model draws no randomness).
    public static func sealMeta(
        name: String, tags: [String], color: String, genesisNonce: [UInt8], key: [UInt8],
        nonce: [UInt8]
    ) throws -> [UInt8] {
        var m = Skwad_V1_PackMeta(); m.name = name; m.tags = tags; m.color = color
        var opts = BinaryEncodingOptions(); opts.useDeterministicOrdering = true
        let plain = [UInt8]((try? m.serializedData(options: opts)) ?? Data())
        return nonce + (try AEAD.seal(plain, additionalData: metaAD(genesisNonce), nonce: nonce, key: key))
    }

    /// The genesis with its name, tags and colour filled in, when `key` opens its sealed meta
    /// and what is inside is within the limits of a public genesis; nil otherwise.
    public static func openMeta(_ c: CreatePack, key: [UInt8]) -> CreatePack? {
        guard c.inviteOnly, c.sealedMeta.count > AEAD.nonceCount,
            let plain = try? AEAD.open(
                Array(c.sealedMeta[AEAD.nonceCount...]), additionalData: metaAD(c.nonce),
                nonce: Array(c.sealedMeta[..<AEAD.nonceCount]), key: key),
            let m = try? Skwad_V1_PackMeta(serializedBytes: plain),
            !m.name.trimmingWhitespace().isEmpty, m.name.utf8.count <= Limits.maxPackName,
            m.tags.count <= Limits.maxTags, m.tags.allSatisfy({ !$0.isEmpty && $0.utf8.count <= Limits.maxTag }),
            m.color.utf8.count <= Limits.maxColor
        else { return nil }
        var out = c
        out.name = m.name; out.tags = m.tags; out.color = m.color
        return out
    }
}

extension OpKind {
    /// Kinds a sealed op may carry: what members write in the pack's feed. Pack-wide kinds
    /// (edits of the pack, moderation, deletion of the pack) are not sealed.
    public var mayBeSealed: Bool {
        switch self {
        case .post, .comment, .vote, .edit, .joined: true
        case .delete(let d): d.target.bytes.count == OpID.byteCount
        default: false
        }
    }
}

extension Sealed {
    /// Binds the box to its pack, its author and its epoch: it cannot be moved into another op.
    static func associatedData(pack: PackID, author: PublicKey, epoch: UInt32) -> [UInt8] {
        Array("skwad/pack/v1".utf8) + pack.bytes + author.bytes
            + [UInt8(epoch >> 24 & 0xff), UInt8(epoch >> 16 & 0xff), UInt8(epoch >> 8 & 0xff), UInt8(epoch & 0xff)]
    }

    /// Seals `kind` (one of `mayBeSealed`, not a deletion of the pack itself) for `author`'s op in
    /// `pack`. `nonce`: 24 fresh random bytes, drawn by the caller.
    public static func seal(_ kind: OpKind, key: [UInt8], epoch: UInt32, pack: PackID, author: PublicKey, nonce: [UInt8]) throws -> Sealed {
        guard kind.mayBeSealed else { throw ModelError.invalid("a \(kind.name) is not sealed in an invite-only pack") }
        if case .delete(let d) = kind, d.target == pack { throw ModelError.invalid("a pack deletion is not sealed") }
        var m = try Skwad_V1_OpBody(serializedBytes: OpBody(packID: pack, author: author, hlc: HLC(raw: 0), kind: kind).serialized())
        m.version = 0; m.packID = Data(); m.author = Data(); m.hlc = 0; m.stamp = 0; m.location = ""
        var opts = BinaryEncodingOptions(); opts.useDeterministicOrdering = true
        let inner = [UInt8](try m.serializedData(options: opts))
        var plain = [UInt8(inner.count >> 8 & 0xff), UInt8(inner.count & 0xff)] + inner
        let padded = (plain.count + Limits.sealedPad - 1) / Limits.sealedPad * Limits.sealedPad
        plain += [UInt8](repeating: 0, count: padded - plain.count)
        let box =
            nonce
            + (try AEAD.seal(
                plain, additionalData: associatedData(pack: pack, author: author, epoch: epoch),
                nonce: nonce, key: key))
        guard box.count <= Limits.maxSealedBox else {
            throw ModelError.tooLarge("sealed op of \(box.count) bytes, limit \(Limits.maxSealedBox)")
        }
        return Sealed(epoch: epoch, box: box)
    }

    /// The kind inside, when `key` opens the box for this pack, author and epoch, the padding
    /// is zeros, and the kind is one that may be sealed and within the limits; nil otherwise.
    public func open(key: [UInt8], pack: PackID, author: PublicKey, hlc: HLC) -> OpKind? {
        guard box.count >= Limits.minSealedBox,
            let plain = try? AEAD.open(
                Array(box[AEAD.nonceCount...]),
                additionalData: Self.associatedData(pack: pack, author: author, epoch: epoch),
                nonce: Array(box[..<AEAD.nonceCount]), key: key), plain.count >= 2
        else { return nil }
        let n = Int(plain[0]) << 8 | Int(plain[1])
        guard n <= plain.count - 2, plain[(2 + n)...].allSatisfy({ $0 == 0 }),
            var m = try? Skwad_V1_OpBody(serializedBytes: Array(plain[2..<(2 + n)])),
            m.version == 0, m.packID.isEmpty, m.author.isEmpty, m.hlc == 0, m.stamp == 0, m.location.isEmpty
        else { return nil }
        m.version = wireVersion; m.packID = Data(pack.bytes); m.author = Data(author.bytes); m.hlc = hlc.raw
        guard let bytes = try? m.serializedData(), let body = try? OpBody(serialized: [UInt8](bytes)),
            body.kind.mayBeSealed, (try? Validation.check(body)) != nil
        else { return nil }
        if case .delete(let d) = body.kind, d.target == pack { return nil }
        return body.kind
    }

    func check() throws {
        guard epoch <= Limits.maxPackEpoch else { throw ModelError.invalid("pack key epoch \(epoch) above \(Limits.maxPackEpoch)") }
        guard (Limits.minSealedBox...Limits.maxSealedBox).contains(box.count),
            (box.count - AEAD.nonceCount - AEAD.tagCount) % Limits.sealedPad == 0
        else {
            throw ModelError.invalid("sealed op of \(box.count) bytes is not a size class")
        }
    }
}

extension PackKeys {
    /// What a box sealed to a removed pseudonym holds instead of a key: 32 zero bytes, the
    /// notice "you were removed" (PROTOCOL.md §3b). Never a pack key.
    public static let removedNotice = [UInt8](repeating: 0, count: Limits.packKeyBytes)

    /// Seals `key` to each member's pseudonym, and `removedNotice` to each of `removed` (at
    /// most `maxPackKeyEntries` boxes in all).
    public static func make(key: [UInt8], epoch: UInt32, members: [PublicKey], removed: [PublicKey] = []) throws -> PackKeys {
        guard members.count + removed.count <= Limits.maxPackKeyEntries else {
            throw ModelError.tooLarge("\(members.count + removed.count) boxes in one pack_keys op")
        }
        guard key != removedNotice else { throw ModelError.invalid("a pack key of zeros is the removal notice") }
        let boxes = try members.map { try SealedBox.seal(key, to: try $0.curve25519()) }
        return PackKeys(epoch: epoch, sealed: boxes + (try removed.map { try SealedBox.seal(removedNotice, to: try $0.curve25519()) }))
    }

    /// What one of the boxes holds for `pseudonym` (a key, or `removedNotice`); nil when none
    /// opens with it.
    public func open(with pseudonym: SigningKeyPair) -> [UInt8]? {
        guard let pk = try? pseudonym.publicKey.curve25519(), let sk = try? pseudonym.curve25519SecretKey() else { return nil }
        for box in sealed {
            if let k = try? SealedBox.open(box, publicKey: pk, secretKey: sk), k.count == Limits.packKeyBytes { return k }
        }
        return nil
    }

    func check() throws {
        guard (1...Limits.maxPackEpoch).contains(epoch) else {
            throw ModelError.invalid("pack key epoch must be 1...\(Limits.maxPackEpoch)")
        }
        guard sealed.count <= Limits.maxPackKeyEntries else {
            throw ModelError.tooLarge("pack keys for \(sealed.count) members, limit \(Limits.maxPackKeyEntries)")
        }
        for box in sealed where box.count != Limits.sealedPackKeyBytes {
            throw ModelError.invalid("a sealed pack key is \(box.count) bytes, not \(Limits.sealedPackKeyBytes)")
        }
    }
}

extension SignedOp {
    /// The same op (envelope, id, signature: what is stored and forwarded) read as `kind`: a
    /// sealed op once a member opened it. Views read the kind; gossip and the store the envelope.
    public func opened(as kind: OpKind) -> SignedOp {
        var b = body
        b.kind = kind
        return SignedOp(envelope: envelope, id: id, body: b)
    }

    /// The op as it travels (a sealed op opened here reads as its inner kind).
    public func asReceived() -> SignedOp { (try? SignedOp(trusted: envelope)) ?? self }
}
