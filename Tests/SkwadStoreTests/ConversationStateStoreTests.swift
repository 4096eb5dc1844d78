import Foundation
import Testing
import SkwadCrypto
import SkwadModel
@testable import SkwadStore

/// The conversation tables are read once and kept (every batch of admitted ops asks for
/// them): each write is seen by the next read, and a reopened store reads the file.
@Suite struct ConversationStateStoreTests {
    @Test func everyWriteIsSeenByTheNextReadAndByAReopenedStore() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-convstate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("skwad.sqlite").path
        let pack = OpID.of(body: [1, 2, 3]), peer = SigningKeyPair.generate().publicKey
        let letter = SentLetter(id: OpID.of(body: [4]), pack: pack, peer: peer, text: "hi", atMs: 7)
        do {
            let s = try Store(path: path)
            #expect(try s.conversationState() == ConversationState())  // read (and kept) while empty
            try s.setFollowed(pack: pack, author: peer, on: true, atMs: 5)
            #expect(try s.conversationState().followed == [pack.bytes + peer.bytes: 5])
            try s.setVerified(pack: pack, peer: peer, on: true, atMs: 6)
            #expect(try s.conversationState().verified == [pack.bytes + peer.bytes])
            try s.addSentLetter(letter)
            #expect(try s.conversationState().sent == [letter])
            try s.setFollowed(pack: pack, author: peer, on: false, atMs: 8)
            #expect(try s.conversationState().followed.isEmpty)
        }
        let reopened = try Store(path: path)
        let state = try reopened.conversationState()
        #expect(state.sent == [letter] && state.verified == [pack.bytes + peer.bytes] && state.followed.isEmpty)
    }
}
