import Foundation
import Testing
import SkwadCrypto
import SkwadModel
import SkwadReplica
@testable import SkwadStore
import SkwadTestKit

/// Pack keys of invite-only packs in the store ("i26: private packs"): they survive a reopen,
/// and leave with the pack's other rows when it is purged.
@Suite struct PrivatePackStoreTests {
    @Test func keysSurviveAReopenAndLeaveWithThePurgedPack() throws {
        var f = OpFactory(seed: 2606, floors: false)
        let alpha = f.user(), carol = f.user()
        let k0 = [UInt8](repeating: 1, count: 32), k1 = [UInt8](repeating: 2, count: 32)
        let g = f.createPrivatePack(by: alpha, key: k0)
        let carolKey = f.pseudonym(carol, in: g).publicKey
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("skwad.sqlite").path
        do {
            let store = try Store(path: path)
            try store.append(
                [g],
                with: [
                    .packKey(g.id, epoch: 0, key: k0), .packKey(g.id, epoch: 1, key: k1),
                    .removedMember(g.id, carolKey)
                ])
        }
        let store = try Store(path: path)
        #expect(try store.packKeys() == [g.id: [0: k0, 1: k1]])
        #expect(try store.removedMembers(g.id) == [carolKey])
        try store.bury([Tombstone(pack: g.id, reason: .deleted)])
        #expect(try store.packKeys().isEmpty && store.removedMembers(g.id).isEmpty)
    }
}
