import Foundation
import Testing
import SkwadModel
import SkwadNode
@testable import SkwadREPL

@Suite struct QuotingTests {
    @Test func quotedWordsAreNeverOptions() throws {
        #expect(try Tokenizer.tokens(#"a "b" c"d""#) == [.init("a"), .init("b", quoted: true), .init("cd", quoted: true)])
        #expect(
            try Registry.parse(#"post Quad "--not an option" "body" --tags a"#) as? PostCommand
                == PostCommand(pack: "Quad", title: "--not an option", body: "body", tags: ["a"]))
        #expect(try Registry.parse(#"comment ab "--""#) as? CommentCommand == CommentCommand(target: "ab", text: "--"))
        #expect(
            try Registry.parse(#"create "--x" --tags "--y""#) as? CreateCommand
                == CreateCommand(name: "--x", radius: nil, locked: false, tags: ["--y"], color: ""))
    }
}
