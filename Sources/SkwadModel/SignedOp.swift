import SkwadCrypto

/// A decoded op together with its envelope and id. Build one with `SignedOp.sign` (local
/// ops) or `SignedOp.open` (bytes from elsewhere: decodes, checks limits, verifies).
///
/// Its three parts live in one immutable heap object, so a `SignedOp` is one reference wide:
/// replicas keep tens of thousands in hash tables whose every slot, empty ones included,
/// would otherwise hold the whole value (docs/BENCHMARKS.md "Where a simulated node's memory goes").
public struct SignedOp: Hashable, Sendable {
    /// Inlinable, with its accessors, so that a caller in another module that reads
    /// `op.body.kind` loads that field alone: an opaque getter would copy the whole body
    /// (every reference in it retained and released) on each read.
    @usableFromInline final class Parts: Sendable {
        @usableFromInline let envelope: Envelope
        @usableFromInline let id: OpID
        @usableFromInline let body: OpBody
        init(envelope: Envelope, id: OpID, body: OpBody) { self.envelope = envelope; self.id = id; self.body = body }
    }

    @usableFromInline let parts: Parts
    @inlinable public var envelope: Envelope { parts.envelope }
    @inlinable public var id: OpID { parts.id }
    @inlinable public var body: OpBody { parts.body }

    public static func == (a: SignedOp, b: SignedOp) -> Bool {
        a.parts === b.parts || (a.id == b.id && a.envelope == b.envelope && a.body == b.body)
    }

    /// The id alone: it is the BLAKE2b hash of the body, so equal ops share it.
    public func hash(into h: inout Hasher) { h.combine(id) }

    /// The pack this op belongs to (its own id for `CreatePack`).
    @inlinable public var packID: PackID { parts.body.packID ?? parts.id }
    @inlinable public var author: PublicKey { parts.body.author }
    @inlinable public var hlc: HLC { parts.body.hlc }

    /// Trusted construction (e.g. reloading from the local store): no signature check.
    public init(trusted envelope: Envelope) throws {
        parts = Parts(envelope: envelope, id: OpID.of(body: envelope.body), body: try OpBody(serialized: envelope.body))
    }

    init(envelope: Envelope, id: OpID, body: OpBody) { parts = Parts(envelope: envelope, id: id, body: body) }

    /// Signs a body with `key` (whose public key must be `body.author`) and checks limits.
    public static func sign(_ body: OpBody, with key: SigningKeyPair) throws -> SignedOp {
        guard key.publicKey == body.author else { throw ModelError.invalid("signing key is not the op's author") }
        try Validation.check(body)
        let bytes = body.serialized()
        let env = Envelope(body: bytes, signature: key.sign(bytes))
        guard env.serialized().count <= Limits.maxEnvelopeBytes else {
            throw ModelError.tooLarge("op is \(env.serialized().count) bytes encoded, limit \(Limits.maxEnvelopeBytes)")
        }
        return SignedOp(envelope: env, id: OpID.of(body: bytes), body: body)
    }

    /// Decodes envelope bytes, checks limits, verifies the signature over the body bytes
    /// exactly as received.
    public static func open(_ bytes: [UInt8]) throws -> SignedOp {
        let env = try Envelope(serialized: bytes)
        return try open(env)
    }

    public static func open(_ env: Envelope) throws -> SignedOp {
        let body = try OpBody(serialized: env.body)
        try Validation.check(body)
        guard body.author.verify(signature: env.signature, message: env.body) else {
            throw ModelError.invalid("bad signature")
        }
        return SignedOp(envelope: env, id: OpID.of(body: env.body), body: body)
    }
}

/// Field limits of an op body (normative: docs/PROTOCOL.md §Limits).
public enum Validation {
    static func text(_ s: String, _ max: Int, _ what: String) throws {
        guard s.utf8.count <= max else { throw ModelError.tooLarge("\(what) is \(s.utf8.count) bytes, limit \(max)") }
    }

    public static func check(_ b: OpBody) throws {
        func text(_ s: String, _ max: Int, _ what: String) throws { try Validation.text(s, max, what) }
        func tags(_ t: [String]) throws {
            guard t.count <= Limits.maxTags else { throw ModelError.tooLarge("\(t.count) tags, limit \(Limits.maxTags)") }
            for x in t {
                try text(x, Limits.maxTag, "tag")
                guard !x.isEmpty else { throw ModelError.invalid("empty tag") }
            }
        }
        switch b.kind {
        case .createPack(let c) where c.inviteOnly:
            try PrivatePack.check(c)
        case .createPack(let c):
            guard c.sealedMeta.isEmpty else { throw ModelError.invalid("only an invite-only pack carries sealed_meta") }
            guard !c.name.trimmingWhitespace().isEmpty else { throw ModelError.invalid("pack name is empty") }
            try text(c.name, Limits.maxPackName, "pack name"); try tags(c.tags); try text(c.color, Limits.maxColor, "colour")
            guard (Limits.minNonce...Limits.maxNonce).contains(c.nonce.count) else {
                throw ModelError.invalid("genesis nonce must be \(Limits.minNonce)...\(Limits.maxNonce) bytes")
            }
            guard c.powBits <= Limits.maxPowBits else { throw ModelError.invalid("pow_bits above \(Limits.maxPowBits)") }
            if c.locked && c.fence == nil { throw ModelError.invalid("a locked pack needs a geofence") }
        case .post(let p):
            guard !p.title.trimmingWhitespace().isEmpty else { throw ModelError.invalid("post title is empty") }
            try text(p.title, Limits.maxTitle, "title"); try text(p.body, Limits.maxBody, "body"); try tags(p.tags)
            try p.picture?.check()
        case .comment(let c):
            guard !c.body.trimmingWhitespace().isEmpty else { throw ModelError.invalid("comment is empty") }
            try text(c.body, Limits.maxBody, "comment")
        case .vote(let v):
            guard (-1...1).contains(v.value) else { throw ModelError.invalid("vote value must be -1, 0 or +1") }
        case .delete: break
        case .editPack(let e):
            if let n = e.name {
                guard !n.trimmingWhitespace().isEmpty else { throw ModelError.invalid("pack name is empty") }
                try text(n, Limits.maxPackName, "pack name")
            }
            if let c = e.color { try text(c, Limits.maxColor, "colour") }
            if let t = e.tags { try tags(t) }
        case .moderate(let m):
            try text(m.reason, Limits.maxReason, "reason")
        case .edit(let e):
            guard e.title != nil || e.body != nil else { throw ModelError.invalid("an edit changes nothing") }
            if let t = e.title {
                guard !t.trimmingWhitespace().isEmpty else { throw ModelError.invalid("post title is empty") }
                try text(t, Limits.maxTitle, "title")
            }
            if let b = e.body { try text(b, Limits.maxBody, "body") }
        case .report(let r):
            guard (1...Limits.maxReportRecipients).contains(r.keys.count) else {
                throw ModelError.invalid("a report is sealed to 1...\(Limits.maxReportRecipients) moderators, got \(r.keys.count)")
            }
            for k in r.keys where k.count != Limits.reportKeyBox {
                throw ModelError.invalid("a report key box of \(k.count) bytes (not \(Limits.reportKeyBox))")
            }
            guard r.box.count == Limits.reportBox else {
                throw ModelError.invalid("a report box of \(r.box.count) bytes (not \(Limits.reportBox))")
            }
        case .ban(let b):
            try text(b.reason, Limits.maxReason, "reason")
        case .place(let p): try p.check()
        case .review(let r): try r.check()
        case .reviewReply(let r): try r.check()
        case .profile(let p):
            guard !p.name.trimmingWhitespace().isEmpty else { throw ModelError.invalid("a display name is empty") }
            try text(p.name, Limits.maxDisplayName, "display name"); try text(p.about, Limits.maxReason, "about")
        case .sealed(let s): try s.check()
        case .packKeys(let k): try k.check()
        case .joined, .pick: break
        case .directMessage(let d):
            guard Limits.directSealedSizes.contains(d.sealed.count) else {
                throw ModelError.invalid(
                    "a direct message is \(d.sealed.count) bytes, not one of the size classes \(Limits.directSealedSizes)")
            }
        }
    }
}

extension String {
    func trimmingWhitespace() -> Substring {
        var s = self[...]
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return s
    }
}
