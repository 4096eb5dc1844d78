import Foundation
import Testing

/// Issue 26's invite-only packs with real processes on loopback: `a` creates a private pack
/// and invites `c` with a join code; `c` reads it; `b`, a relay inside the fence, stores and
/// forwards its ciphertext, lists no pack and keeps no plaintext on disk; after `a` removes `c`
/// by rotating the key, `c` holds the next post and cannot read it.
@Suite(.serialized) struct PrivatePackLocalnetTests {
    @Test func aMemberReadsARelayCannotAndARemovedMemberLosesLaterPosts() async throws {
        let net = try Localnet()
        defer { net.stop() }
        #expect(try await net.startThree())
        net["a"].send("create Flat4B --radius 1000 --private")
        #expect(await net["a"].waitFor("invite-only: relays see no name"))
        net["a"].send(#"post Flat4B "rent is due friday" "transfer to the usual account""#)
        #expect(await net["a"].waitFor("posted "))
        net["a"].send("invite Flat4B")
        #expect(await net["a"].waitFor("join code for Flat4B"))
        let code = try #require(net["a"].text.split(whereSeparator: \.isWhitespace).first { $0.hasPrefix("skw-") }.map(String.init))

        // c joins with the code and reads the pack.
        net["c"].send("join \(code)")
        #expect(await net["c"].waitFor("joined invite-only pack Flat4B", seconds: 30))
        #expect(await net["c"].waitFor("rent is due friday", poll: "feed Flat4B"))
        net["c"].send(#"post Flat4B "hello from c" "moving in monday""#)
        #expect(await net["c"].waitFor("posted "))
        #expect(await net["a"].waitFor("hello from c", poll: "feed Flat4B"))

        // b relays: it holds the four ops (genesis, two posts, c's sealed `joined`), and lists
        // and reads nothing of them.
        #expect(await net["b"].waitFor("4 ops stored", poll: "whoami"))
        let mark = net["b"].text.count
        net["b"].send("packs")
        net["b"].send("feed")
        net["b"].send("map")
        net["b"].send("feed Flat4B")
        #expect(await net["b"].waitFor("no pack named 'Flat4B'", after: mark))
        let seen = String(net["b"].text.dropFirst(mark))
        #expect(!seen.contains("rent is due") && !seen.contains("hello from c"))
        #expect(!seen.contains("Flat4B ·") && !seen.contains("Flat4B·"))

        // a removes c (by the tag its feed shows for c's post) and posts again.
        let cLine = try #require(net["a"].text.split(separator: "\n").last { $0.contains("hello from c") }.map(String.init))
        let cTag = try #require(cLine.split(separator: " ").first { $0.hasPrefix("anon·") }.map(String.init))
        net["a"].send("remove Flat4B \(cTag)")
        #expect(await net["a"].waitFor("removed \(cTag) from Flat4B"))
        net["a"].send(#"post Flat4B "new door code 4711" "changed today""#)
        #expect(await net["a"].waitFor("new door code 4711", poll: "feed Flat4B"))
        // c holds the key handout and the new post (6 ops) and cannot read the post: the
        // handout's box to c said it was removed, so the pack left c's packs and its inbox
        // says so.
        #expect(await net["c"].waitFor("6 ops stored", poll: "whoami"))
        #expect(await net["b"].waitFor("6 ops stored", poll: "whoami"))
        let cMark = net["c"].text.count
        net["c"].send("inbox")
        #expect(await net["c"].waitFor("you were removed from invite-only pack", after: cMark))
        for line in ["feed Flat4B", #"post Flat4B "still here" "x""#] {
            let mark = net["c"].text.count
            net["c"].send(line)
            #expect(await net["c"].waitFor("no pack named 'Flat4B'", after: mark))
        }
        #expect(!String(net["c"].text.dropFirst(cMark)).contains("4711"))

        // Nothing readable of the pack in b's store (database and write-ahead log).
        for n in ["b"] {
            for file in ["skwad.sqlite", "skwad.sqlite-wal"] {
                guard let bytes = FileManager.default.contents(atPath: "\(net.dir)/\(n)/\(file)") else { continue }
                for secret in ["rent is due", "hello from c", "4711", "Flat4B"] {
                    #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(n)/\(file) holds \(secret)")
                }
            }
        }
    }
}
