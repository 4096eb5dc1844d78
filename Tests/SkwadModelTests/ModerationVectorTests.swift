import Foundation
import Testing
import SkwadCrypto
import SkwadModel

/// The moderation test vector of docs/PROTOCOL.md §7 (issue 11): an `Edit` body and a
/// `Report` box sealed to the vector's pseudonym, checked byte for byte against the document.
@Suite struct ModerationVectorTests {
    static let target = try! OpID(bytes: [UInt8](repeating: 0x22, count: 32))
    static var editBody: OpBody {
        OpBody(
            packID: TestVector.packID, author: TestVector.pseudonym.publicKey, hlc: HLC(physicalMs: 1_790_000_000_000, counter: 2),
            stamp: 7, kind: .edit(Edit(target: target, body: "edited")))
    }
    static let content = ReportContent(target: target, reason: "spam")

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

    @Test func theDocumentedEditBodyAndReportBoxMatch() throws {
        let v = try Self.documented()
        #expect(v.count == 3)
        #expect(Self.editBody.serialized() == v["edit_body"])
        #expect(try OpBody(serialized: try #require(v["edit_body"])) == Self.editBody)
        #expect(Self.content.serialized() == v["report_content"])
        // A sealed box is random; the documented one opens with the pseudonym's key to the content.
        let box = try #require(v["report_box"])
        #expect(Report(sealed: [box]).open(with: TestVector.pseudonym) == Self.content)
        #expect(Report(sealed: [box]).open(with: SigningKeyPair.generate()) == nil)
    }
}
