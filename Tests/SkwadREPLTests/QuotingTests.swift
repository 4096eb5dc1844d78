import Foundation
import Testing
import SkwadModel
import SkwadNode
@testable import SkwadREPL

@Suite struct QuotingTests {
    @Test func quotedWordsAreNeverOptions() throws {
        #expect(try Tokenizer.tokens(#"a "b" c"d""#) == [.init("a"), .init("b", quoted: true), .init("cd", quoted: true)])
        #expect(
            try Command.parse(#"post Quad "--not an option" "body" --tags a"#)
                == .post(pack: "Quad", title: "--not an option", body: "body", tags: ["a"]))
        #expect(try Command.parse(#"comment ab "--""#) == .comment(target: "ab", text: "--"))
        #expect(
            try Command.parse(#"create "--x" --tags "--y""#) == .create(name: "--x", radius: nil, locked: false, tags: ["--y"], color: ""))
    }
}
