import Foundation
import SwiftProtobuf
import SkwadCrypto

/// Translation between the domain types and the generated protobuf messages.
/// Decoding validates shapes (lengths, ranges, limits) and never traps on any input.
extension OpBody {
    /// Deterministic protobuf serialization of the body.
    public func serialized() -> [UInt8] {
        var m = Skwad_V1_OpBody()
        m.version = version
        if let packID { m.packID = Data(packID.bytes) }
        m.author = Data(author.bytes)
        m.hlc = hlc.raw
        if let location { m.location = location }
        m.stamp = stamp
        switch kind {
        case .createPack(let c):
            var x = Skwad_V1_CreatePack()
            x.name = c.name; x.tags = c.tags; x.color = c.color; x.locked = c.locked
            x.nonce = Data(c.nonce); x.powBits = c.powBits; x.hideScore = c.hideScore
            x.inviteOnly = c.inviteOnly; x.sealedMeta = Data(c.sealedMeta)
            if let f = c.fence {
                var w = Skwad_V1_Fence()
                w.latE6 = f.center.latE6; w.lonE6 = f.center.lonE6; w.radiusM = UInt32(f.radiusMeters.rounded())
                x.fence = w
            }
            m.createPack = x
        case .post(let p):
            var x = Skwad_V1_Post(); x.title = p.title; x.body = p.body; x.tags = p.tags; x.ask = p.ask
            if let r = p.picture {
                var w = Skwad_V1_Picture(); w.root = Data(r.root); w.size = r.size; w.type = r.type; w.chunks = r.chunks
                x.picture = w
            }
            m.post = x
        case .comment(let c):
            var x = Skwad_V1_Comment(); x.post = Data(c.post.bytes); x.body = c.body
            if let p = c.parent { x.parent = Data(p.bytes) }
            m.comment = x
        case .vote(let v):
            var x = Skwad_V1_Vote(); x.target = Data(v.target.bytes); x.value = v.value
            m.vote = x
        case .delete(let d):
            var x = Skwad_V1_Delete(); x.target = Data(d.target.bytes)
            m.delete = x
        case .editPack(let e):
            var x = Skwad_V1_EditPack()
            if let n = e.name { x.name = n }
            if let c = e.color { x.color = c }
            if let t = e.tags { x.setTags = true; x.tags = t }
            m.editPack = x
        case .moderate(let d):
            var x = Skwad_V1_Moderate(); x.target = Data(d.target.bytes); x.hidden = d.hidden; x.reason = d.reason
            m.moderate = x
        case .edit(let e):
            var x = Skwad_V1_Edit(); x.target = Data(e.target.bytes)
            if let t = e.title { x.title = t }
            if let b = e.body { x.body = b }
            m.edit = x
        case .report(let r):
            var x = Skwad_V1_Report(); x.keys = r.keys.map { Data($0) }; x.box = Data(r.box)
            m.report = x
        case .ban(let b):
            var x = Skwad_V1_Ban(); x.author = Data(b.author.bytes); x.banned = b.banned; x.reason = b.reason
            m.ban = x
        case .place(let x): m.place = x.wire()
        case .review(let x): m.review = x.wire()
        case .reviewReply(let x): m.reviewReply = x.wire()
        case .directMessage(let d):
            var x = Skwad_V1_DirectMessage(); x.sealed = Data(d.sealed)
            m.directMessage = x
        case .profile(let p):
            var x = Skwad_V1_Profile(); x.name = p.name; x.about = p.about
            m.profile = x
        case .sealed(let s):
            var x = Skwad_V1_Sealed(); x.epoch = s.epoch; x.box = Data(s.box)
            m.sealed = x
        case .packKeys(let k):
            var x = Skwad_V1_PackKeys(); x.epoch = k.epoch; x.sealed = k.sealed.map { Data($0) }
            m.packKeys = x
        case .joined:
            m.joined = Skwad_V1_Joined()
        case .pick(let k):
            var x = Skwad_V1_Pick(); x.ask = Data(k.ask.bytes); x.caption = Data(k.caption.bytes)
            m.pick = x
        }
        var opts = BinaryEncodingOptions(); opts.useDeterministicOrdering = true
        return [UInt8]((try? m.serializedData(options: opts)) ?? Data())
    }

    /// Decodes body bytes. Throws `ModelError` with a one-line reason on anything malformed.
    public init(serialized bytes: [UInt8]) throws {
        let m: Skwad_V1_OpBody
        do { m = try Skwad_V1_OpBody(serializedBytes: bytes) } catch {
            throw ModelError.malformed("op body is not valid protobuf")
        }
        guard m.version == wireVersion else { throw ModelError.malformed("unsupported op version \(m.version)") }
        author = try Self.key(m.author, "author")
        version = m.version
        hlc = HLC(raw: m.hlc)
        stamp = m.stamp
        if m.location.isEmpty {
            location = nil
        } else {
            guard m.location.utf8.count <= Limits.maxGeohash, (try? Geohash.decode(m.location)) != nil else {
                throw ModelError.malformed("location claim is not a geohash cell")
            }
            location = m.location
        }
        switch m.kind {
        case .createPack(let x)?:
            guard m.packID.isEmpty else { throw ModelError.malformed("create_pack must not name a pack id") }
            packID = nil
            var fence: Geofence?
            if x.hasFence {
                guard x.fence.radiusM > 0, x.fence.radiusM <= Limits.maxRadiusMeters else {
                    throw ModelError.malformed("geofence radius must be 1...\(Limits.maxRadiusMeters) m")
                }
                let c: GeoPoint
                do { c = try GeoPoint(latE6: x.fence.latE6, lonE6: x.fence.lonE6) } catch {
                    throw ModelError.malformed("geofence centre out of range")
                }
                fence = Geofence(center: c, radiusMeters: Double(x.fence.radiusM))
            }
            kind = .createPack(
                CreatePack(
                    name: x.name, tags: x.tags, color: x.color, fence: fence, locked: x.locked,
                    nonce: [UInt8](x.nonce), powBits: x.powBits, hideScore: x.hideScore,
                    inviteOnly: x.inviteOnly, sealedMeta: [UInt8](x.sealedMeta)))
        case .post(let x)?:
            packID = try Self.id(m.packID, "pack id")
            let picture =
                x.hasPicture
                ? PictureRef(root: [UInt8](x.picture.root), size: x.picture.size, type: x.picture.type, chunks: x.picture.chunks) : nil
            kind = .post(Post(title: x.title, body: x.body, tags: x.tags, ask: x.ask, picture: picture))
        case .comment(let x)?:
            packID = try Self.id(m.packID, "pack id")
            kind = .comment(
                Comment(
                    post: try Self.id(x.post, "comment post"),
                    parent: x.parent.isEmpty ? nil : try Self.id(x.parent, "comment parent"), body: x.body))
        case .vote(let x)?:
            packID = try Self.id(m.packID, "pack id")
            kind = .vote(Vote(target: try Self.id(x.target, "vote target"), value: x.value))
        case .delete(let x)?:
            packID = try Self.id(m.packID, "pack id")
            kind = .delete(Delete(target: try Self.id(x.target, "delete target")))
        case .editPack(let x)?:
            packID = try Self.id(m.packID, "pack id")
            kind = .editPack(
                EditPack(
                    name: x.hasName ? x.name : nil, color: x.hasColor ? x.color : nil,
                    tags: x.setTags ? x.tags : nil))
        case .moderate(let x)?:
            packID = try Self.id(m.packID, "pack id")
            kind = .moderate(Moderate(target: try Self.id(x.target, "moderate target"), hidden: x.hidden, reason: x.reason))
        case .edit(let x)?:
            packID = try Self.id(m.packID, "pack id")
            kind = .edit(
                Edit(
                    target: try Self.id(x.target, "edit target"), title: x.hasTitle ? x.title : nil,
                    body: x.hasBody ? x.body : nil))
        case .report(let x)?:
            packID = try Self.id(m.packID, "pack id")
            kind = .report(Report(keys: x.keys.map { [UInt8]($0) }, box: [UInt8](x.box)))
        case .ban(let x)?:
            packID = try Self.id(m.packID, "pack id")
            guard x.author.count == PublicKey.byteCount else { throw ModelError.malformed("ban author must be 32 bytes") }
            kind = .ban(Ban(author: try PublicKey(bytes: [UInt8](x.author)), banned: x.banned, reason: x.reason))
        case .place(let x)?:
            packID = try Self.id(m.packID, "pack id")
            kind = .place(try Place(wire: x))
        case .review(let x)?:
            packID = try Self.id(m.packID, "pack id")
            kind = .review(try Review(wire: x))
        case .reviewReply(let x)?:
            packID = try Self.id(m.packID, "pack id")
            kind = .reviewReply(try ReviewReply(wire: x))
        case .directMessage(let x)?:
            packID = try Self.id(m.packID, "pack id")
            kind = .directMessage(DirectMessage(sealed: [UInt8](x.sealed)))
        case .profile(let x)?:
            packID = try Self.id(m.packID, "pack id")
            kind = .profile(Profile(name: x.name, about: x.about))
        case .sealed(let x)?:
            packID = try Self.id(m.packID, "pack id")
            kind = .sealed(Sealed(epoch: x.epoch, box: [UInt8](x.box)))
        case .packKeys(let x)?:
            packID = try Self.id(m.packID, "pack id")
            guard x.sealed.count <= Limits.maxPackKeyEntries else {
                throw ModelError.tooLarge("pack keys for \(x.sealed.count) members, limit \(Limits.maxPackKeyEntries)")
            }
            kind = .packKeys(PackKeys(epoch: x.epoch, sealed: x.sealed.map { [UInt8]($0) }))
        case .joined?:
            packID = try Self.id(m.packID, "pack id")
            kind = .joined
        case .pick(let x)?:
            packID = try Self.id(m.packID, "pack id")
            kind = .pick(Pick(ask: try Self.id(x.ask, "pick ask"), caption: try Self.id(x.caption, "pick caption")))
        case nil:
            throw ModelError.malformed("op has no kind (unknown to wire version 1)")
        }
    }

    private static func id(_ d: Data, _ what: String) throws -> OpID {
        guard d.count == OpID.byteCount else { throw ModelError.malformed("\(what) must be 32 bytes, got \(d.count)") }
        return OpID(unchecked: [UInt8](d))
    }
    private static func key(_ d: Data, _ what: String) throws -> PublicKey {
        guard d.count == PublicKey.byteCount else { throw ModelError.malformed("\(what) must be 32 bytes, got \(d.count)") }
        return try PublicKey(bytes: [UInt8](d))
    }
}

/// `Envelope { body, signature }`: what is stored and forwarded, byte for byte.
public struct Envelope: Hashable, Sendable {
    public let body: [UInt8]
    public let signature: [UInt8]

    public init(body: [UInt8], signature: [UInt8]) { self.body = body; self.signature = signature }

    /// The protobuf encoding of `Envelope{body = 1, signature = 2}`, written by hand: it is
    /// on every hot path (store, gossip) and is exactly what a deterministic protobuf encoder
    /// writes (fields in order, empty fields omitted).
    public func serialized() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(body.count + signature.count + 8)
        func field(_ tag: UInt8, _ bytes: [UInt8]) {
            guard !bytes.isEmpty else { return }
            out.append(tag)
            var n = bytes.count
            while n >= 0x80 { out.append(UInt8(n & 0x7f) | 0x80); n >>= 7 }
            out.append(UInt8(n))
            out += bytes
        }
        field(0x0a, body)
        field(0x12, signature)
        return out
    }

    public init(serialized bytes: [UInt8]) throws {
        guard bytes.count <= Limits.maxEnvelopeBytes else {
            throw ModelError.tooLarge("envelope is \(bytes.count) bytes, limit \(Limits.maxEnvelopeBytes)")
        }
        let m: Skwad_V1_Envelope
        do { m = try Skwad_V1_Envelope(serializedBytes: bytes) } catch {
            throw ModelError.malformed("envelope is not valid protobuf")
        }
        guard m.signature.count == Limits.signatureBytes else {
            throw ModelError.malformed("signature must be 64 bytes, got \(m.signature.count)")
        }
        body = [UInt8](m.body); signature = [UInt8](m.signature)
    }

    public var id: OpID { OpID.of(body: body) }
}

extension ReportContent {
    /// Deterministic protobuf bytes (what the reporter signs, inside the box).
    public func serialized() -> [UInt8] {
        var m = Skwad_V1_ReportContent(); m.target = Data(target.bytes); m.reason = reason
        m.reporter = Data(reporter.bytes); m.stamp = stamp
        var opts = BinaryEncodingOptions(); opts.useDeterministicOrdering = true
        return [UInt8]((try? m.serializedData(options: opts)) ?? Data())
    }

    /// Decodes an opened box's content. Throws `ModelError` on anything malformed.
    public init(serialized bytes: [UInt8]) throws {
        guard bytes.count <= Limits.maxReportPlain else { throw ModelError.tooLarge("report content is \(bytes.count) bytes") }
        let m: Skwad_V1_ReportContent
        do { m = try Skwad_V1_ReportContent(serializedBytes: bytes) } catch {
            throw ModelError.malformed("report content is not valid protobuf")
        }
        guard m.target.count == OpID.byteCount else { throw ModelError.malformed("report target must be 32 bytes") }
        guard m.reporter.count == PublicKey.byteCount else { throw ModelError.malformed("report reporter must be 32 bytes") }
        guard !m.reason.isEmpty, m.reason.utf8.count <= Limits.maxReason else {
            throw ModelError.malformed("report reason must be 1...\(Limits.maxReason) bytes")
        }
        target = OpID(unchecked: [UInt8](m.target)); reason = m.reason
        reporter = try PublicKey(bytes: [UInt8](m.reporter)); stamp = m.stamp
    }
}
