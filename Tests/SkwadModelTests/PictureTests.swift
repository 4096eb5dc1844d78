import Testing
import SkwadCrypto
import SkwadTestKit
@testable import SkwadModel

/// Pictures (PROTOCOL §5 "Pictures", §10b; SECURITY.md "Pictures"): the type comes from the
/// bytes, metadata never leaves the node, malformed files are refused, and every block is
/// checked against the manifest whose root the post carries.
@Suite struct PictureFormatTests {
    @Test func theTypeIsSniffedFromTheBytesNotTheName() throws {
        #expect(PictureType.sniff(TestPictures.jpeg) == .jpeg)
        #expect(PictureType.sniff(TestPictures.png(width: 2, height: 2)) == .png)
        #expect(PictureType.sniff(TestPictures.webp) == .webp)
        #expect(PictureType.sniff(Array("GIF89a......".utf8)) == nil)
        #expect(PictureType.sniff(Array("<svg xmlns=".utf8)) == nil)
        #expect(throws: ModelError.self) { try PictureFormat.strip(Array("not a picture at all".utf8)) }
    }

    @Test func jpegExifGpsXmpAndCommentsAreStripped() throws {
        let dirty = TestPictures.jpegWithMetadata
        #expect(TestPictures.contains(dirty, TestPictures.gpsMarker))
        let p = try PictureFormat.strip(dirty)
        #expect(p.type == .jpeg)
        #expect(!TestPictures.contains(p.bytes, TestPictures.gpsMarker))
        #expect(!TestPictures.contains(p.bytes, Array("Exif".utf8)))
        #expect(p.bytes == TestPictures.jpeg)  // exactly the picture without its metadata
        #expect(p.width == 8 && p.height == 6)
    }

    @Test func pngMetadataChunksAreStripped() throws {
        let clean = TestPictures.png(width: 5, height: 3)
        let p = try PictureFormat.strip(TestPictures.png(width: 5, height: 3, metadata: true))
        #expect(!TestPictures.contains(p.bytes, TestPictures.gpsMarker))
        #expect(!TestPictures.contains(p.bytes, Array("tIME".utf8)))
        #expect(p.bytes == clean)
        #expect(p.width == 5 && p.height == 3)
    }

    @Test func webpExifAndXmpAreStrippedAndTheirFlagsCleared() throws {
        let p = try PictureFormat.strip(TestPictures.webpWithMetadata)
        #expect(!TestPictures.contains(p.bytes, TestPictures.gpsMarker))
        #expect(!TestPictures.contains(p.bytes, Array("EXIF".utf8)))
        let vp8x = Array("VP8X".utf8)
        #expect(TestPictures.contains(p.bytes, vp8x))
        #expect(p.bytes[20] & 0x0C == 0)  // flags byte of the VP8X chunk right after the header
        #expect(PictureFormat.le32(p.bytes, 4) == p.bytes.count - 8)
        #expect(p.width == 1 && p.height == 1)
        #expect(try PictureFormat.strip(TestPictures.webp).bytes == TestPictures.webp)
    }

    @Test func malformedFilesAreRefusedWithOneLine() throws {
        let jpeg = TestPictures.jpeg, png = TestPictures.png(width: 4, height: 4), webp = TestPictures.webp
        var bad: [[UInt8]] = [
            Array(jpeg.prefix(jpeg.count / 2)),  // truncated scan
            Array(jpeg.prefix(40)),  // truncated segment
            [0xFF, 0xD8, 0xFF, 0xD9],  // no frame
            Array(png.prefix(png.count - 5)),  // truncated IEND
            Array(png.prefix(8)) + [0, 0, 0, 13] + Array("IDAT".utf8) + [UInt8](repeating: 0, count: 17),  // IHDR not first
            Array(webp.prefix(20)),  // RIFF size past the end
            Array("RIFF".utf8) + [4, 0, 0, 0] + Array("WEBP".utf8)  // no image
        ]
        var flipped = png
        flipped[20] ^= 1  // a byte of IHDR: the CRC no longer matches
        bad.append(flipped)
        var lengthBomb = jpeg
        lengthBomb[4] = 0xFF; lengthBomb[5] = 0xFF  // APP0 claims 65535 bytes
        bad.append(lengthBomb)
        for b in bad {
            do {
                _ = try PictureFormat.strip(b)
                Issue.record("accepted a malformed picture of \(b.count) bytes")
            } catch let e as ModelError {
                #expect(!"\(e)".contains("\n"))
            }
        }
    }

    @Test func aPictureOverOneMebibyteIsRefused() throws {
        let big = TestPictures.png(width: 620, height: 600)  // 1.1 MB of pixels
        #expect(big.count > PictureFormat.maxBytes)
        #expect(throws: ModelError.self) { try PictureFormat.strip(big) }
    }
}

@Suite struct PictureBlockTests {
    @Test func blocksRoundTripAndEachIsChecked() throws {
        let p = try PictureFormat.strip(TestPictures.png(width: 120, height: 100))  // ≈ 36 KB: 36 chunks, 2 pages
        let (ref, blocks) = PictureBlocks.make(p)
        try ref.check()
        #expect(ref.chunks == UInt32((p.bytes.count + 1023) / 1024))
        #expect(blocks.count == ref.blockCount && ref.blockCount == 1 + 2 + Int(ref.chunks))
        #expect(blocks.allSatisfy { $0.count <= PictureBlocks.maxBlockBytes })
        var a = PictureAssembly(ref: ref)
        #expect(a.next(limit: 8, excluding: []) == [0])
        #expect(a.offer(index: 5, data: blocks[5]) == .unexpected)  // its page is not here yet
        #expect(a.offer(index: 0, data: blocks[1]) == .wrongHash)
        #expect(a.offer(index: 0, data: blocks[0]) == .accepted)
        #expect(a.offer(index: 0, data: blocks[0]) == .duplicate)
        #expect(a.next(limit: 8, excluding: []) == [1, 2])
        var wrong = blocks[1]
        wrong[0] ^= 1
        #expect(a.offer(index: 1, data: wrong) == .wrongHash)
        for i in 1..<blocks.count { #expect(a.offer(index: i, data: blocks[i]) == .accepted) }
        #expect(a.isComplete)
        #expect(a.offer(index: blocks.count, data: []) == .unexpected)
        let byIndex = Dictionary(uniqueKeysWithValues: blocks.enumerated().map { ($0.offset, $0.element) })
        #expect(PictureAssembly.assemble(ref: ref, blocks: byIndex) == p.bytes)
    }

    @Test func aChunkWithTheWrongHashIsRefused() throws {
        let p = try PictureFormat.strip(TestPictures.png(width: 40, height: 40))
        let (ref, blocks) = PictureBlocks.make(p)
        var a = PictureAssembly(ref: ref)
        #expect(a.offer(index: 0, data: blocks[0]) == .accepted)
        #expect(a.offer(index: 1, data: blocks[1]) == .accepted)
        var chunk = blocks[2]
        chunk[chunk.count - 1] ^= 0x80
        #expect(a.offer(index: 2, data: chunk) == .wrongHash)
        #expect(a.offer(index: 2, data: blocks[2] + [0]) == .wrongHash)
        #expect(!a.have.contains(2))
    }

    @Test func aRefWithAMillionChunksOrAnUnknownTypeIsRefusedAtAdmission() throws {
        let root = [UInt8](repeating: 7, count: 32)
        let million = PictureRef(root: root, size: 1_000_000 * 1024, type: 1, chunks: 1_000_000)
        #expect(throws: ModelError.self) { try million.check() }
        #expect(throws: ModelError.self) { try PictureRef(root: root, size: 2048, type: 1, chunks: 1_000_000).check() }
        #expect(throws: ModelError.self) { try PictureRef(root: root, size: 2048, type: 9, chunks: 2).check() }
        #expect(throws: ModelError.self) { try PictureRef(root: [1], size: 2048, type: 1, chunks: 2).check() }
        #expect(throws: ModelError.self) { try PictureRef(root: root, size: 0, type: 1, chunks: 0).check() }
        try PictureRef(root: root, size: 2048, type: 1, chunks: 2).check()
        #expect(PictureBlocks.maxChunks == 1024)
        // A head that claims more chunks than the ref is refused even when it hashes to the root.
        let lying: [UInt8] = [1, 0, 0, 8, 0, 0x0F, 0x42] + [UInt8](repeating: 0, count: 32)
        var a = PictureAssembly(ref: PictureRef(root: Blake2b.hash256(lying), size: 2048, type: 1, chunks: 2))
        #expect(a.offer(index: 0, data: lying) == .wrongHash)
    }

    @Test func aPostCarriesItsPictureRefThroughTheCodec() throws {
        var f = OpFactory(seed: 28)
        let u = f.user()
        let g = f.createPack(by: u)
        let (ref, _) = PictureBlocks.make(try PictureFormat.strip(TestPictures.jpeg))
        let op = f.op(.post(Post(title: "caption this", body: "", ask: true, picture: ref)), by: u, in: g)
        let back = try SignedOp.open(try Envelope(serialized: op.envelope.serialized()))
        guard case .post(let p) = back.body.kind else { Issue.record("not a post"); return }
        #expect(p.picture == ref && p.ask)
        var forged = ref
        forged.chunks = 1_000_000
        let bytes = f.unchecked(.post(Post(title: "t", body: "", picture: forged)), by: u, in: g)
        #expect(throws: ModelError.self) { try SignedOp.open(try Envelope(serialized: bytes)) }
    }
}
