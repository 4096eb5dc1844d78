import Testing
import SkwadModel
import SkwadTestKit
@testable import SkwadREPL

/// Decoding for thumbnails (libpng, libjpeg-turbo, libwebp): the three types decode to the
/// dimensions their headers state, a bomb is refused before any pixel is decoded, garbage is
/// refused, and a thumbnail is at most its cells.
@Suite struct PictureThumbnailTests {
    @Test func theThreeTypesDecode() throws {
        let jpeg = try #require(PictureThumbnail.decode(TestPictures.jpeg))
        #expect(jpeg.width == 8 && jpeg.height == 6 && jpeg.rgb.count == 8 * 6 * 3)
        let png = try #require(PictureThumbnail.decode(TestPictures.png(width: 5, height: 3, seed: 2)))
        #expect(png.width == 5 && png.height == 3)
        // Stored deflate: the decoded pixels are the generator's bytes (rows after their filter byte).
        let raw = TestPictures.png(width: 5, height: 3, seed: 2)
        #expect(TestPictures.contains(raw, Array(png.rgb[0..<15])))
        let webp = try #require(PictureThumbnail.decode(TestPictures.webp))
        #expect(webp.width == 1 && webp.height == 1)
    }

    @Test func aDecompressionBombIsNeverDecoded() throws {
        // A valid PNG whose IHDR claims 60,000 × 60,000 (3.6 gigapixels): refused from the header.
        var bomb = TestPictures.png(width: 4, height: 4)
        func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        bomb.replaceSubrange(16..<24, with: be32(60_000) + be32(60_000))
        let crc = TestPictures.crc32(Array(bomb[12..<29]))
        bomb.replaceSubrange(29..<33, with: be32(Int(crc)))
        #expect(PictureThumbnail.decode(bomb) == nil)
        #expect(PictureThumbnail.decode([0xFF, 0xD8, 0xFF, 0xE0, 0, 0]) == nil)
        #expect(PictureThumbnail.decode(Array("RIFF\u{10}\0\0\0WEBPVP8 ".utf8)) == nil)
    }

    @Test func aThumbnailFitsItsCells() throws {
        let image = try #require(PictureThumbnail.decode(TestPictures.png(width: 200, height: 100)))
        let lines = PictureThumbnail.halfBlocks(image, columns: 20, rows: 8)
        #expect(lines.count == 5)  // 20 columns wide: 10 pixel rows, 5 lines
        #expect(lines.allSatisfy { $0.filter { $0 == "▀" }.count == 20 && $0.hasSuffix("\u{1B}[0m") })
    }
}
