import SkwadCrypto

/// What a post carries of its picture (PROTOCOL.md §5 "Pictures"): the root of its manifest,
/// its size, type and chunk count. Admission checks only this shape; the bytes travel apart
/// as blocks (PROTOCOL.md §10b), each checked against the manifest.
public struct PictureRef: Hashable, Sendable {
    public var root: [UInt8]
    public var size: UInt32
    /// The wire's type number (`PictureType`); an unknown one is refused at admission.
    public var type: UInt32
    public var chunks: UInt32

    public init(root: [UInt8], size: UInt32, type: UInt32, chunks: UInt32) {
        self.root = root; self.size = size; self.type = type; self.chunks = chunks
    }

    public var pictureType: PictureType? { PictureType(rawValue: type) }

    /// Admission's check (PROTOCOL §4): a 32-byte root, a known type, 1...1 MiB, and the
    /// chunk count that size needs (so at most `PictureBlocks.maxChunks`).
    public func check() throws {
        guard root.count == 32 else { throw ModelError.invalid("picture root must be 32 bytes") }
        guard pictureType != nil else { throw ModelError.invalid("picture type \(type) is not JPEG, PNG or WebP") }
        guard size >= 1, Int(size) <= PictureFormat.maxBytes else {
            throw ModelError.invalid("picture size \(size) is not 1...\(PictureFormat.maxBytes)")
        }
        guard Int(chunks) == PictureBlocks.chunkCount(size: Int(size)) else {
            throw ModelError.invalid("picture of \(size) bytes has \(PictureBlocks.chunkCount(size: Int(size))) chunks, not \(chunks)")
        }
    }

    /// Blocks of this picture: the manifest head, its pages, its chunks.
    public var blockCount: Int { PictureBlocks.blockCount(chunks: Int(chunks)) }
}

/// A picture as content-addressed blocks (PROTOCOL.md §10b). The picture is cut into chunks
/// of `chunkSize` bytes (the last one shorter), each hashed with BLAKE2b-256. Block 0 is the
/// manifest head: type (1 byte), size (4, big-endian), chunk count (2), then the BLAKE2b-256
/// of each page; the root is the BLAKE2b-256 of the head. Blocks 1...P are the pages: the
/// hashes of `hashesPerPage` chunks each. Blocks P+1... are the chunks. Every block fits one
/// datagram with room for the message around it, and every block is checked on its own.
public enum PictureBlocks {
    /// Bytes of picture per chunk.
    public static let chunkSize = 1024
    /// Chunk hashes per page (a page is as large as a chunk).
    public static let hashesPerPage = 32
    /// The most chunks a picture has: ceil(1 MiB / 1024) = 1024.
    public static let maxChunks = (PictureFormat.maxBytes + chunkSize - 1) / chunkSize
    /// Head: 7 bytes and one hash per page, at most 7 + 32 × 32 = 1031 bytes.
    public static let headPrefix = 7
    public static let maxBlockBytes = headPrefix + 32 * ((maxChunks + hashesPerPage - 1) / hashesPerPage)

    /// The most blocks a picture has: 1 + 32 + 1024.
    public static let maxBlocks = blockCount(chunks: maxChunks)

    public static func chunkCount(size: Int) -> Int { (size + chunkSize - 1) / chunkSize }
    public static func pageCount(chunks: Int) -> Int { (chunks + hashesPerPage - 1) / hashesPerPage }
    public static func blockCount(chunks: Int) -> Int { 1 + pageCount(chunks: chunks) + chunks }

    /// The blocks of a stripped picture, in index order, and the ref its post carries.
    public static func make(_ p: StrippedPicture) -> (ref: PictureRef, blocks: [[UInt8]]) {
        let n = chunkCount(size: p.bytes.count)
        var chunks: [[UInt8]] = []
        chunks.reserveCapacity(n)
        for i in 0..<n { chunks.append(Array(p.bytes[(i * chunkSize)..<min(p.bytes.count, (i + 1) * chunkSize)])) }
        let hashes = chunks.map { Blake2b.hash256($0) }
        var pages: [[UInt8]] = []
        for start in stride(from: 0, to: n, by: hashesPerPage) {
            pages.append(hashes[start..<min(n, start + hashesPerPage)].flatMap { $0 })
        }
        let size = UInt32(p.bytes.count)
        var head: [UInt8] = [
            UInt8(p.type.rawValue), UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)
        ]
        head += [UInt8(n >> 8), UInt8(n & 0xFF)]
        for page in pages { head += Blake2b.hash256(page) }
        let ref = PictureRef(root: Blake2b.hash256(head), size: size, type: p.type.rawValue, chunks: UInt32(n))
        return (ref, [head] + pages + chunks)
    }
}

/// A picture being received: checks each block against the ref, the head and the pages, and
/// tells what to ask for next. Holds the head and the pages (at most 33 KiB); chunks are
/// handed on as they are checked, never kept here.
public struct PictureAssembly: Sendable {
    public let ref: PictureRef
    public private(set) var head: [UInt8]?
    /// Page hashes from the head, then each page once checked.
    var pageHashes: [[UInt8]] = []
    var pages: [Int: [UInt8]] = [:]
    /// Indexes of blocks already checked.
    public private(set) var have: Set<Int> = []

    public init(ref: PictureRef) { self.ref = ref }

    public enum Outcome: Equatable, Sendable {
        /// Checked: keep it.
        case accepted
        /// Held already: nothing to do.
        case duplicate
        /// Not one we could check yet (its page is missing) or out of range: dropped.
        case unexpected
        /// Does not hash to what the manifest says: dropped.
        case wrongHash
    }

    public var pageCount: Int { PictureBlocks.pageCount(chunks: Int(ref.chunks)) }
    public var isComplete: Bool { have.count == ref.blockCount }

    /// Offers block `index`. Chunks are checked against their page, pages against the head,
    /// the head against the root and the ref's size, type and count.
    public mutating func offer(index: Int, data: [UInt8]) -> Outcome {
        guard index >= 0, index < ref.blockCount else { return .unexpected }
        if have.contains(index) { return .duplicate }
        let pc = pageCount
        if index == 0 {
            guard Blake2b.hash256(data) == ref.root else { return .wrongHash }
            let expected = PictureBlocks.headPrefix + 32 * pc
            let size = UInt32(data.count >= 5 ? Int(data[1]) << 24 | Int(data[2]) << 16 | Int(data[3]) << 8 | Int(data[4]) : 0)
            guard data.count == expected, UInt32(data[0]) == ref.type, size == ref.size,
                Int(data[5]) << 8 | Int(data[6]) == Int(ref.chunks)
            else { return .wrongHash }
            head = data
            pageHashes = (0..<pc).map { Array(data[(PictureBlocks.headPrefix + 32 * $0)..<(PictureBlocks.headPrefix + 32 * ($0 + 1))]) }
        } else if index <= pc {
            guard head != nil else { return .unexpected }
            let p = index - 1
            let count = min(PictureBlocks.hashesPerPage, Int(ref.chunks) - p * PictureBlocks.hashesPerPage)
            guard data.count == 32 * count, Blake2b.hash256(data) == pageHashes[p] else { return .wrongHash }
            pages[p] = data
        } else {
            let c = index - 1 - pc
            guard let page = pages[c / PictureBlocks.hashesPerPage] else { return .unexpected }
            let slot = c % PictureBlocks.hashesPerPage
            let expectedCount = c == Int(ref.chunks) - 1 ? Int(ref.size) - c * PictureBlocks.chunkSize : PictureBlocks.chunkSize
            guard data.count == expectedCount, Blake2b.hash256(data) == Array(page[(32 * slot)..<(32 * slot + 32)]) else {
                return .wrongHash
            }
        }
        have.insert(index)
        return .accepted
    }

    /// Up to `limit` blocks to ask for now, skipping `excluded` (asked already): the head
    /// first, then pages, then the chunks whose page is here.
    public func next(limit: Int, excluding excluded: Set<Int>) -> [Int] {
        var out: [Int] = []
        func consider(_ i: Int) -> Bool {
            if !have.contains(i) && !excluded.contains(i) { out.append(i) }
            return out.count >= limit
        }
        guard head != nil else { _ = consider(0); return out }
        let pc = pageCount
        for p in 0..<pc where consider(1 + p) { return out }
        for p in pages.keys.sorted() {
            let first = p * PictureBlocks.hashesPerPage
            for c in first..<min(Int(ref.chunks), first + PictureBlocks.hashesPerPage) where consider(1 + pc + c) { return out }
        }
        return out
    }

    /// The index of chunk `c` (0-based) among the blocks.
    public func blockIndex(chunk c: Int) -> Int { 1 + pageCount + c }

    /// The picture's bytes from its chunk blocks (index order), when all checked.
    public static func assemble(ref: PictureRef, blocks: [Int: [UInt8]]) -> [UInt8]? {
        let pc = PictureBlocks.pageCount(chunks: Int(ref.chunks))
        var out: [UInt8] = []
        out.reserveCapacity(Int(ref.size))
        for c in 0..<Int(ref.chunks) {
            guard let b = blocks[1 + pc + c] else { return nil }
            out += b
        }
        return out.count == Int(ref.size) ? out : nil
    }
}
