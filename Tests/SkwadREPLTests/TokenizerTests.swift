import Foundation
import Testing
import SkwadModel
import SkwadNode
@testable import SkwadREPL

@Suite struct TokenizerTests {
    @Test func quotesGroupAndEscapesWork() throws {
        #expect(try Tokenizer.split(#"post Quad "Free pizza" "say \"hi\" \\ now""#) == ["post", "Quad", "Free pizza", #"say "hi" \ now"#])
        #expect(try Tokenizer.split("  feed   --limit 3 ") == ["feed", "--limit", "3"])
        #expect(try Tokenizer.split(#"post a "" b"#) == ["post", "a", "", "b"])
        #expect(throws: Tokenizer.Failure.self) { try Tokenizer.split(#"post "oops"#) }
    }
}
