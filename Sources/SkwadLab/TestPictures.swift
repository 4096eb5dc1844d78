import Foundation
import SkwadGossip
import SkwadModel

/// Pictures for tests and benchmarks (`skwad bench pictures`), built in code: a small real
/// JPEG (8 × 6, libjpeg-turbo, quality 50), a 1 × 1 lossless WebP, PNGs of any size (stored
/// deflate blocks, so real and decodable), each with or without metadata that names a place
/// (EXIF GPS, XMP, text, time).
public enum TestPictures {
    /// An 8 × 6 baseline JPEG with a JFIF APP0 and no metadata.
    public static let jpeg: [UInt8] = [UInt8](
        Data(
            base64Encoded: [
                "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDABALDA4MChAODQ4SERATGCgaGBYWGDEjJR0oOjM9PDkzODdASFxOQERXRTc4UG1RV19i",
                "Z2hnPk1xeXBkeFxlZ2P/2wBDARESEhgVGC8aGi9jQjhCY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2Nj",
                "Y2NjY2NjY2P/wAARCAAGAAgDASIAAhEBAxEB/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUF",
                "BAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVW",
                "V1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi",
                "4+Tl5ufo6erx8vP09fb3+Pn6/8QAHwEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoL/8QAtREAAgECBAQDBAcFBAQAAQJ3AAEC",
                "AxEEBSExBhJBUQdhcRMiMoEIFEKRobHBCSMzUvAVYnLRChYkNOEl8RcYGRomJygpKjU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVm",
                "Z2hpanN0dXZ3eHl6goOEhYaHiImKkpOUlZaXmJmaoqOkpaanqKmqsrO0tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk5ebn6Onq",
                "8vP09fb3+Pn6/9oADAMBAAIRAxEAPwCOw0OLjpRRRWNWtPm3LwNep7Fan//Z"
            ].joined()
        )!)

    /// A 1 × 1 lossless WebP (VP8L, no VP8X).
    public static let webp: [UInt8] = [UInt8](Data(base64Encoded: "UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==")!)

    /// Bytes every metadata block below carries: a GPS position in EXIF's ASCII form.
    public static let gpsMarker: [UInt8] = Array("GPSLatitude 48/1 51/1 2418/100 N GPSLongitude 2/1 21/1 78/100 E".utf8)

    /// A TIFF-headed EXIF payload carrying `gpsMarker`.
    static var exifPayload: [UInt8] { Array("MM".utf8) + [0x00, 0x2A, 0x00, 0x00, 0x00, 0x08] + gpsMarker }

    /// `jpeg` with an EXIF APP1 (GPS), an XMP APP1 and a COM segment after SOI, and an APP2.
    public static var jpegWithMetadata: [UInt8] {
        func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
            let n = payload.count + 2
            return [0xFF, marker, UInt8(n >> 8), UInt8(n & 0xFF)] + payload
        }
        let exif = segment(0xE1, Array("Exif".utf8) + [0, 0] + exifPayload)
        let xmp = segment(0xE1, Array("http://ns.adobe.com/xap/1.0/".utf8) + [0] + gpsMarker)
        let com = segment(0xFE, gpsMarker)
        let icc = segment(0xE2, Array("ICC_PROFILE".utf8) + [0] + gpsMarker)
        // After SOI and after APP0 (whose length is at bytes 4...5).
        let app0End = 4 + (Int(jpeg[4]) << 8 | Int(jpeg[5]))
        return Array(jpeg[0..<2]) + exif + Array(jpeg[2..<app0End]) + xmp + com + icc + Array(jpeg[app0End...])
    }

    /// `webp` in an extended (VP8X) form with EXIF and XMP chunks and their flags set.
    public static var webpWithMetadata: [UInt8] {
        func chunk(_ fourcc: String, _ payload: [UInt8]) -> [UInt8] {
            let n = payload.count
            return Array(fourcc.utf8) + [UInt8(n & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 24)] + payload
                + (n % 2 == 1 ? [0] : [])
        }
        let vp8x = chunk("VP8X", [0x0C, 0, 0, 0, 0, 0, 0, 0, 0, 0])  // EXIF and XMP flags, 1 × 1 canvas
        let body = Array("WEBP".utf8) + vp8x + Array(webp[12...]) + chunk("EXIF", exifPayload) + chunk("XMP ", gpsMarker)
        let n = body.count
        return Array("RIFF".utf8) + [UInt8(n & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 24)] + body
    }

    /// A width × height RGB PNG of pseudo-random pixels (seeded), its IDAT in stored deflate
    /// blocks; with `metadata`, eXIf (GPS), tEXt, iTXt, zTXt and tIME chunks before IDAT.
    public static func png(width: Int, height: Int, seed: UInt64 = 1, metadata: Bool = false) -> [UInt8] {
        var rng = SplitMix(seed: seed)
        var raw: [UInt8] = []
        raw.reserveCapacity((width * 3 + 1) * height)
        for _ in 0..<height {
            raw.append(0)
            for _ in 0..<(width * 3) { raw.append(UInt8(truncatingIfNeeded: rng.next())) }
        }
        var z: [UInt8] = [0x78, 0x01]
        var i = 0
        repeat {
            let n = min(65535, raw.count - i)
            let last: UInt8 = i + n >= raw.count ? 1 : 0
            z += [last, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8(~n >> 8 & 0xFF)] + raw[i..<(i + n)]
            i += n
        } while i < raw.count
        var a: UInt32 = 1, b: UInt32 = 0
        for x in raw { a = (a + UInt32(x)) % 65521; b = (b + a) % 65521 }
        let adler = b << 16 | a
        z += [UInt8(adler >> 24), UInt8(adler >> 16 & 0xFF), UInt8(adler >> 8 & 0xFF), UInt8(adler & 0xFF)]
        func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            return be32(data.count) + body + be32(Int(crc32(body)))
        }
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        out += chunk("IHDR", be32(width) + be32(height) + [8, 2, 0, 0, 0])
        if metadata {
            out += chunk("eXIf", exifPayload)
            out += chunk("tEXt", Array("Comment".utf8) + [0] + gpsMarker)
            out += chunk("iTXt", Array("XML:com.adobe.xmp".utf8) + [0, 0, 0, 0, 0] + gpsMarker)
            out += chunk("zTXt", Array("Raw".utf8) + [0, 0] + gpsMarker)
            out += chunk("tIME", [0x07, 0xEA, 11, 25, 12, 0, 0])
        }
        out += chunk("IDAT", z)
        out += chunk("IEND", [])
        return out
    }

    public static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for x in bytes {
            c ^= UInt32(x)
            for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        }
        return c ^ 0xFFFF_FFFF
    }

    /// Does `haystack` contain `needle`?
    public static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        for i in 0...(haystack.count - needle.count) where haystack[i] == needle[0] && Array(haystack[i..<(i + needle.count)]) == needle {
            return true
        }
        return false
    }
}
