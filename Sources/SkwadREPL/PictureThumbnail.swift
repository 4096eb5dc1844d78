import CPicture
import SkwadModel

/// Decoding a picture for display (Debian's libpng, libjpeg-turbo and libwebp through their
/// setjmp-free APIs) and drawing it as coloured half-blocks. The dimensions are read from the
/// headers first: a picture of more than `maxPixels` is never decoded, so a decompression
/// bomb (a small file claiming a huge image) costs nothing.
enum PictureThumbnail {
    /// The most pixels decoded: 16 megapixels (48 MiB of RGB at most, freed at once).
    static let maxPixels = 16 << 20
    /// A feed thumbnail: at most 16 × 4 cells (`show` draws 32 × 12).
    static let feedColumns = 16, feedRows = 4

    /// RGB pixels, row by row.
    struct Image: Equatable {
        let width: Int, height: Int
        let rgb: [UInt8]
    }

    /// Decodes `bytes` (sniffed); nil when malformed, or larger than `maxPixels`.
    static func decode(_ bytes: [UInt8]) -> Image? {
        guard let type = PictureType.sniff(bytes), !bytes.isEmpty else { return nil }
        switch type {
        case .png: return decodePNG(bytes)
        case .jpeg: return decodeJPEG(bytes)
        case .webp: return decodeWebP(bytes)
        }
    }

    static func fits(_ w: Int, _ h: Int) -> Bool { w > 0 && h > 0 && w <= 65535 && h <= 65535 && w * h <= maxPixels }

    static func decodePNG(_ bytes: [UInt8]) -> Image? {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        return bytes.withUnsafeBytes { raw -> Image? in
            guard png_image_begin_read_from_memory(&image, raw.baseAddress, raw.count) != 0 else { return nil }
            defer { png_image_free(&image) }
            let w = Int(image.width), h = Int(image.height)
            guard fits(w, h) else { return nil }
            image.format = UInt32(PNG_FORMAT_RGB)
            var out = [UInt8](repeating: 0, count: w * h * 3)
            let ok = out.withUnsafeMutableBytes { png_image_finish_read(&image, nil, $0.baseAddress, Int32(w * 3), nil) }
            return ok != 0 ? Image(width: w, height: h, rgb: out) : nil
        }
    }

    static func decodeJPEG(_ bytes: [UInt8]) -> Image? {
        guard let tj = tjInitDecompress() else { return nil }
        defer { tjDestroy(tj) }
        var w: Int32 = 0, h: Int32 = 0, sub: Int32 = 0, space: Int32 = 0
        guard tjDecompressHeader3(tj, bytes, UInt(bytes.count), &w, &h, &sub, &space) == 0, fits(Int(w), Int(h)) else { return nil }
        var out = [UInt8](repeating: 0, count: Int(w) * Int(h) * 3)
        let ok = out.withUnsafeMutableBufferPointer {
            tjDecompress2(tj, bytes, UInt(bytes.count), $0.baseAddress, w, 0, h, Int32(TJPF_RGB.rawValue), 0)
        }
        return ok == 0 ? Image(width: Int(w), height: Int(h), rgb: out) : nil
    }

    static func decodeWebP(_ bytes: [UInt8]) -> Image? {
        var w: Int32 = 0, h: Int32 = 0
        guard WebPGetInfo(bytes, bytes.count, &w, &h) != 0, fits(Int(w), Int(h)) else { return nil }
        var out = [UInt8](repeating: 0, count: Int(w) * Int(h) * 3)
        let ok = out.withUnsafeMutableBufferPointer { WebPDecodeRGBInto(bytes, bytes.count, $0.baseAddress, $0.count, w * 3) }
        return ok != nil ? Image(width: Int(w), height: Int(h), rgb: out) : nil
    }

    /// `image` in at most `columns` × `rows` terminal cells, two pixels a cell (upper half
    /// block, foreground the upper pixel, background the lower), 24-bit colour; aspect kept.
    static func halfBlocks(_ image: Image, columns: Int = 32, rows: Int = 12, indent: String = "    ") -> [String] {
        let scale = max(Double(image.width) / Double(columns), Double(image.height) / Double(rows * 2), 1)
        let cw = max(1, Int(Double(image.width) / scale)), ch = max(1, Int(Double(image.height) / scale / 2))
        func pixel(_ x: Int, _ y: Int) -> (UInt8, UInt8, UInt8) {
            let px = min(image.width - 1, Int(Double(x) * scale)), py = min(image.height - 1, Int(Double(y) * scale))
            let i = (py * image.width + px) * 3
            return (image.rgb[i], image.rgb[i + 1], image.rgb[i + 2])
        }
        return (0..<ch).map { row in
            var line = indent
            for col in 0..<cw {
                let t = pixel(col, row * 2), b = pixel(col, row * 2 + 1)
                line += "\u{1B}[38;2;\(t.0);\(t.1);\(t.2)m\u{1B}[48;2;\(b.0);\(b.1);\(b.2)m▀"
            }
            return line + "\u{1B}[0m"
        }
    }
}
