import Foundation
import Testing
import SkwadCrypto
import SkwadModel

/// The moderation test vector of docs/PROTOCOL.md §7 (issues 11 and 47): an `Edit` body, a
/// `Report` sealed to the vector's pseudonym and carried by a fixed one-off key, and a `Ban`
/// body, checked byte for byte against the document.
@Suite struct ModerationVectorTests {
    static let target = try! OpID(bytes: [UInt8](repeating: 0x22, count: 32))
    static var editBody: OpBody {
        OpBody(
            packID: TestVector.packID, author: TestVector.pseudonym.publicKey, hlc: HLC(physicalMs: 1_790_000_000_000, counter: 2),
            stamp: 7, kind: .edit(Edit(target: target, body: "edited")))
    }
    static let content = ReportContent(target: target, reason: "spam", reporter: TestVector.pseudonym.publicKey, stamp: 7)
    static let carrier = try! SigningKeyPair(seed: [UInt8](repeating: 0x33, count: 32))
    static var banBody: OpBody {
        OpBody(
            packID: TestVector.packID, author: TestVector.pseudonym.publicKey, hlc: HLC(physicalMs: 1_790_000_000_000, counter: 3),
            stamp: 7, kind: .ban(Ban(author: carrier.publicKey, banned: true, reason: "spam")))
    }

    static func documented() throws -> [String: [UInt8]] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("docs/PROTOCOL.md"), encoding: .utf8)
        guard let start = text.range(of: "```vector-moderation\n"), let end = text.range(of: "```", range: start.upperBound..<text.endIndex)
        else {
            throw ModelError.malformed("no vector-moderation block in PROTOCOL.md")
        }
        var out: [String: [UInt8]] = [:]
        for line in text[start.upperBound..<end.lowerBound].split(separator: "\n") {
            let kv = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if kv.count == 2, let bytes = Hex.decode(kv[1]) { out[kv[0]] = bytes }
        }
        return out
    }

    @Test func theDocumentedEditBodyReportAndBanMatch() throws {
        let v = try Self.documented()
        #expect(v.count == 5)
        #expect(Self.editBody.serialized() == v["edit_body"])
        #expect(try OpBody(serialized: try #require(v["edit_body"])) == Self.editBody)
        #expect(Self.content.serialized() == v["report_content"])
        #expect(Self.banBody.serialized() == v["ban_body"])
        #expect(try OpBody(serialized: try #require(v["ban_body"])) == Self.banBody)
        // Sealing is random; the documented report opens with the pseudonym's key to the content,
        // under its pack and carrier only.
        let report = Report(keys: [try #require(v["report_key"])], box: try #require(v["report_box"]))
        #expect(report.open(with: TestVector.pseudonym, pack: TestVector.packID, carrier: Self.carrier.publicKey) == Self.content)
        #expect(report.open(with: SigningKeyPair.generate(), pack: TestVector.packID, carrier: Self.carrier.publicKey) == nil)
        #expect(report.open(with: TestVector.pseudonym, pack: TestVector.packID, carrier: TestVector.pseudonym.publicKey) == nil)
    }

    /// Prints a fresh vector block (run by hand with SKWAD_PRINT_VECTOR=1 to rewrite the document).
    @Test func printsAVectorWhenAsked() throws {
        let r = try Report.seal(
            Self.content, signer: TestVector.pseudonym, to: [TestVector.pseudonym.publicKey], pack: TestVector.packID,
            carrier: Self.carrier.publicKey, key: SecureRandom.bytes(AEAD.keyCount), nonce: SecureRandom.bytes(AEAD.nonceCount))
        #expect(r.open(with: TestVector.pseudonym, pack: TestVector.packID, carrier: Self.carrier.publicKey) == Self.content)
        guard ProcessInfo.processInfo.environment["SKWAD_PRINT_VECTOR"] == "1" else { return }
        print("report_content: \(Hex.encode(Self.content.serialized()))")
        print("report_key: \(Hex.encode(r.keys[0]))")
        print("report_box: \(Hex.encode(r.box))")
        print("ban_body: \(Hex.encode(Self.banBody.serialized()))")
    }
}
