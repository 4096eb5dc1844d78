import Foundation
import Testing
import SkwadModel
import SkwadReplica
@testable import SkwadStore
import SkwadTestKit

/// The picture tables (PROTOCOL §10b, §6): blocks kept per root, deleted with the last pack
/// that holds the picture, counted once against the cap, evicted least recently used unless
/// one of their packs is ours.
@Suite struct PictureStoreTests {
    func picture(_ seed: UInt64) throws -> (ref: PictureRef, blocks: [(index: Int, data: [UInt8])]) {
        let (ref, blocks) = PictureBlocks.make(try PictureFormat.strip(TestPictures.png(width: 40, height: 30, seed: seed)))
        return (ref, blocks.enumerated().map { ($0.offset, $0.element) })
    }

    @Test func aPictureInTwoPacksStaysUntilBothAreGone() throws {
        let store = try Store()
        let p = try picture(1)
        let packA = try PackID(bytes: [UInt8](repeating: 1, count: 32)), packB = try PackID(bytes: [UInt8](repeating: 2, count: 32))
        try store.putPicture(p.ref, pack: packA, blocks: p.blocks, nowMs: 1)
        try store.putPicture(p.ref, pack: packB, blocks: [], nowMs: 2)
        #expect(try store.picture(root: p.ref.root)?.isComplete == true)
        let bytes = p.blocks.reduce(0) { $0 + $1.data.count }
        #expect(try store.pictureBytes() == bytes)  // counted once
        try store.bury([Tombstone(pack: packA, reason: .deleted, expiresMs: nil)])
        #expect(try store.picture(root: p.ref.root)?.isComplete == true)
        #expect(try store.pictureBlocks(root: p.ref.root, nowMs: 3).count == p.ref.blockCount)
        try store.bury([Tombstone(pack: packB, reason: .expired, expiresMs: nil)])
        #expect(try store.picture(root: p.ref.root) == nil)
        #expect(try store.pictureBlocks(root: p.ref.root, nowMs: 4).isEmpty)
        #expect(try store.pictureBytes() == 0)
    }

    @Test func eviction() throws {
        let store = try Store()
        let ours = try PackID(bytes: [UInt8](repeating: 1, count: 32)), theirs = try PackID(bytes: [UInt8](repeating: 2, count: 32))
        let a = try picture(1), b = try picture(2), c = try picture(3)
        try store.putPicture(a.ref, pack: ours, blocks: a.blocks, nowMs: 1)  // oldest, but ours
        try store.putPicture(b.ref, pack: theirs, blocks: b.blocks, nowMs: 2)
        try store.putPicture(c.ref, pack: theirs, blocks: c.blocks, nowMs: 3)
        let each = try store.pictureBytes() / 3
        let gone = try store.evictPictures(capBytes: 2 * each + 10, members: [ours])
        #expect(gone == [b.ref.root])
        #expect(try store.picture(root: a.ref.root) != nil && store.picture(root: c.ref.root) != nil)
    }
}
