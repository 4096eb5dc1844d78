import Foundation
import Testing
import SkwadCrypto
import SkwadModel

/// Checks the test vector printed in docs/PROTOCOL.md §7, so the document and the code
/// cannot drift apart.
@Suite struct ProtocolVectorTests {
    static func documentedVector() throws -> [String: [UInt8]] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("docs/PROTOCOL.md"), encoding: .utf8)
        guard let start = text.range(of: "```vector\n"), let end = text.range(of: "```", range: start.upperBound..<text.endIndex) else {
            throw ModelError.malformed("no vector block in PROTOCOL.md")
        }
        var out: [String: [UInt8]] = [:]
        for line in text[start.upperBound..<end.lowerBound].split(separator: "\n") {
            let kv = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if kv.count == 2, let bytes = Hex.decode(kv[1]) { out[kv[0]] = bytes }
        }
        return out
    }

    @Test func signingTheDocumentedBodyGivesTheDocumentedBytes() throws {
        let v = try Self.documentedVector()
        #expect(v.count == 5)
        let op = try SignedOp.sign(TestVector.body, with: TestVector.pseudonym)
        #expect(TestVector.pseudonym.publicKey.bytes == v["pseudonym"])
        #expect(op.envelope.body == v["body"])
        #expect(op.envelope.signature == v["signature"])
        #expect(op.envelope.serialized() == v["envelope"])
        #expect(op.id.bytes == v["id"])
    }

    @Test func openingTheDocumentedEnvelopeGivesTheFields() throws {
        let v = try Self.documentedVector()
        let op = try SignedOp.open(try #require(v["envelope"]))
        #expect(op.body == TestVector.body)
        #expect(op.packID == TestVector.packID)
        #expect(op.id.bytes == v["id"])
    }
}
