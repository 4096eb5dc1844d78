/// Picture files (PROTOCOL.md §5 "Pictures"): the type sniffed from the bytes (the name of
/// a file is never trusted), the dimensions read from the headers, and the metadata stripped
/// before a picture leaves the node, so that it never publishes where it was taken. Pure
/// parsing, bounded by the input: every length is checked against what is left, nothing
/// is decoded.
public enum PictureType: UInt32, Sendable, CaseIterable {
    case jpeg = 1, png = 2, webp = 3

    public var name: String {
        switch self {
        case .jpeg: "jpeg"
        case .png: "png"
        case .webp: "webp"
        }
    }

    /// The file name extension `open` writes.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .webp: "webp"
        }
    }

    /// The type the first bytes show, or nil.
    public static func sniff(_ b: [UInt8]) -> PictureType? {
        if b.count >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF { return .jpeg }
        if b.count >= 8 && Array(b[0..<8]) == PictureFormat.pngSignature { return .png }
        if b.count >= 12 && Array(b[0..<4]) == Array("RIFF".utf8) && Array(b[8..<12]) == Array("WEBP".utf8) { return .webp }
        return nil
    }
}

/// A picture ready to leave the node: its type, its bytes with the metadata gone, and its
/// dimensions from the headers.
public struct StrippedPicture: Sendable, Equatable {
    public let type: PictureType
    public let bytes: [UInt8]
    public let width: Int
    public let height: Int

    /// A picture as given (tests forge one; posting goes through `PictureFormat.strip`).
    public init(type: PictureType, bytes: [UInt8], width: Int, height: Int) {
        self.type = type; self.bytes = bytes; self.width = width; self.height = height
    }
}

public enum PictureFormat {
    /// The largest picture a post carries, after stripping: 1 MiB.
    public static let maxBytes = 1 << 20
    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Sniffs, strips and measures `bytes`; throws `ModelError.invalid` with one line on a
    /// file that is not a well-formed JPEG, PNG or WebP, or is larger than `maxBytes`.
    public static func strip(_ bytes: [UInt8]) throws -> StrippedPicture {
        guard let type = PictureType.sniff(bytes) else { throw ModelError.invalid("not a JPEG, PNG or WebP picture") }
        let out: (bytes: [UInt8], width: Int, height: Int)
        switch type {
        case .jpeg: out = try stripJPEG(bytes)
        case .png: out = try stripPNG(bytes)
        case .webp: out = try stripWebP(bytes)
        }
        guard out.width > 0, out.height > 0 else { throw ModelError.invalid("\(type.name) picture has no size") }
        guard out.bytes.count <= maxBytes else {
            throw ModelError.invalid("picture is \(out.bytes.count) bytes without its metadata, more than \(maxBytes) (1 MiB)")
        }
        return StrippedPicture(type: type, bytes: out.bytes, width: out.width, height: out.height)
    }

    /// Type and dimensions of a picture already stripped (one received): nil when malformed.
    public static func measure(_ bytes: [UInt8]) -> StrippedPicture? {
        guard let p = try? strip(bytes), p.bytes == bytes else { return nil }
        return p
    }

    static func malformed(_ type: PictureType, _ why: String) -> ModelError { .invalid("malformed \(type.name): \(why)") }

    static func be16(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) << 8 | Int(b[i + 1]) }
    static func be32(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3]) }
    static func le24(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 | Int(b[i + 2]) << 16 }
    static func le32(_ b: [UInt8], _ i: Int) -> Int { le24(b, i) | Int(b[i + 3]) << 24 }

    // MARK: - JPEG

    /// Keeps SOI, APP0, the tables, frames and scans, RST and EOI; drops APP1-APP15 (EXIF,
    /// XMP, ICC, Adobe, …), COM and anything after EOI.
    static func stripJPEG(_ b: [UInt8]) throws -> ([UInt8], Int, Int) {
        var out: [UInt8] = [0xFF, 0xD8]
        out.reserveCapacity(b.count)
        var i = 2, width = 0, height = 0, scans = 0
        while true {
            guard i < b.count, b[i] == 0xFF else { throw malformed(.jpeg, "expected a marker at byte \(i)") }
            while i < b.count && b[i] == 0xFF { i += 1 }  // fill bytes
            guard i < b.count else { throw malformed(.jpeg, "truncated marker") }
            let marker = b[i]
            i += 1
            switch marker {
            case 0xD9:
                guard scans > 0, width > 0 else { throw malformed(.jpeg, "no frame or scan before EOI") }
                out += [0xFF, 0xD9]
                return (out, width, height)
            case 0xD0...0xD7, 0x01:
                out += [0xFF, marker]
                continue
            case 0x00, 0xD8:
                throw malformed(.jpeg, "unexpected marker \(marker)")
            default: break
            }
            guard i + 2 <= b.count else { throw malformed(.jpeg, "truncated segment") }
            let length = be16(b, i)
            guard length >= 2, i + length <= b.count else { throw malformed(.jpeg, "segment runs past the end") }
            let segment = b[(i - 2)..<(i + length)]
            i += length
            switch marker {
            case 0xE1...0xEF, 0xFE: continue  // APP1-APP15, COM: metadata
            case 0xC0...0xC3, 0xC5...0xC7, 0xC9...0xCB, 0xCD...0xCF:
                guard length >= 8 else { throw malformed(.jpeg, "short frame header") }
                height = be16(b, i - length + 3)
                width = be16(b, i - length + 5)
            default: break
            }
            out += segment
            guard marker == 0xDA else { continue }
            scans += 1
            // Entropy-coded data: up to the next marker that is not a stuffed 0xFF00 or a restart.
            let start = i
            while true {
                guard i + 1 < b.count else { throw malformed(.jpeg, "scan runs past the end") }
                if b[i] == 0xFF, b[i + 1] != 0x00, !(0xD0...0xD7).contains(b[i + 1]), b[i + 1] != 0xFF { break }
                i += 1
            }
            out += b[start..<i]
        }
    }

    // MARK: - PNG

    /// Chunks dropped from a PNG: EXIF, text and time.
    static let pngDropped: Set<String> = ["eXIf", "tEXt", "zTXt", "iTXt", "tIME"]

    /// Keeps every chunk but `pngDropped`, checking lengths, CRCs and the IHDR-first,
    /// IEND-last order; drops anything after IEND.
    static func stripPNG(_ b: [UInt8]) throws -> ([UInt8], Int, Int) {
        var out = pngSignature
        out.reserveCapacity(b.count)
        var i = 8, width = 0, height = 0, first = true, sawData = false
        while true {
            guard i + 12 <= b.count else { throw malformed(.png, "truncated chunk") }
            let length = be32(b, i)
            guard length <= b.count - i - 12 else { throw malformed(.png, "chunk runs past the end") }
            let typeBytes = Array(b[(i + 4)..<(i + 8)])
            guard typeBytes.allSatisfy({ (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }) else {
                throw malformed(.png, "bad chunk type")
            }
            let type = String(decoding: typeBytes, as: UTF8.self)
            let crc = be32(b, i + 8 + length)
            guard UInt32(crc) == CRC32.checksum(b[(i + 4)..<(i + 8 + length)]) else { throw malformed(.png, "\(type) CRC mismatch") }
            if first {
                guard type == "IHDR", length == 13 else { throw malformed(.png, "IHDR is not first") }
                width = be32(b, i + 8); height = be32(b, i + 12)
                first = false
            }
            if type == "IDAT" { sawData = true }
            let end = i + 12 + length
            if !pngDropped.contains(type) { out += b[i..<end] }
            i = end
            if type == "IEND" {
                guard sawData else { throw malformed(.png, "no image data") }
                return (out, width, height)
            }
        }
    }

    // MARK: - WebP

    /// Keeps every RIFF chunk but EXIF and XMP, clears their VP8X flags and writes the RIFF
    /// size again; drops anything after the RIFF form.
    static func stripWebP(_ b: [UInt8]) throws -> ([UInt8], Int, Int) {
        let riff = le32(b, 4)
        guard riff >= 4, riff % 2 == 0, riff <= b.count - 8 else { throw malformed(.webp, "RIFF size \(riff) does not fit the file") }
        let end = 8 + riff
        var body: [UInt8] = Array("WEBP".utf8)
        var i = 12, width = 0, height = 0, sawImage = false
        while i < end {
            guard i + 8 <= end else { throw malformed(.webp, "truncated chunk") }
            let fourcc = String(decoding: b[i..<(i + 4)], as: UTF8.self)
            let size = le32(b, i + 4)
            let padded = size &+ (size & 1)
            guard size >= 0, padded <= end - i - 8 else { throw malformed(.webp, "\(fourcc) runs past the end") }
            let p = i + 8
            var chunk = Array(b[i..<(p + padded)])
            switch fourcc {
            case "EXIF", "XMP ":
                i = p + padded
                continue
            case "VP8X":
                guard size >= 10 else { throw malformed(.webp, "short VP8X") }
                chunk[8] &= ~0x0C  // EXIF (0x08) and XMP (0x04) flags
                width = le24(b, p + 4) + 1; height = le24(b, p + 7) + 1
            case "VP8 ":
                guard size >= 10, b[p + 3] == 0x9D, b[p + 4] == 0x01, b[p + 5] == 0x2A else { throw malformed(.webp, "bad VP8 frame") }
                if width == 0 {
                    width = (Int(b[p + 6]) | Int(b[p + 7]) << 8) & 0x3FFF; height = (Int(b[p + 8]) | Int(b[p + 9]) << 8) & 0x3FFF
                }
                sawImage = true
            case "VP8L":
                guard size >= 5, b[p] == 0x2F else { throw malformed(.webp, "bad VP8L header") }
                if width == 0 {
                    let bits = le32(b, p + 1)
                    width = (bits & 0x3FFF) + 1; height = ((bits >> 14) & 0x3FFF) + 1
                }
                sawImage = true
            case "ANMF": sawImage = true
            default: break
            }
            body += chunk
            i = p + padded
        }
        guard sawImage else { throw malformed(.webp, "no image data") }
        let n = UInt32(body.count)
        let header: [UInt8] = Array("RIFF".utf8) + [UInt8(n & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 24)]
        return (header + body, width, height)
    }
}

/// CRC-32 (ISO 3309, as PNG uses it).
enum CRC32 {
    static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes { c = table[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }
}
